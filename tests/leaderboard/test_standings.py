"""leaderboard.standings: rankings, scopes and fast_p curves come from benchmark.metrics."""

from __future__ import annotations

from dataclasses import replace

import leaderboard_fakes as fakes
import pytest
from leaderboard_fakes import make_verdict

from benchmark import metrics
from benchmark.stats import Interval
from benchmark.verdict import Status
from leaderboard import chart, standings


def test_fast_p_curve_by_hand():
    verdicts = [
        make_verdict("level1/relu", 0, speedup=0.5),
        make_verdict("level1/relu", 1, speedup=1.5),
        make_verdict("level1/row_sum", 0, speedup=2.5),
        make_verdict("level1/row_sum", 1, Status.INCORRECT),
    ]
    curve = dict(metrics.fast_p_curve(verdicts, [0.0, 0.4, 1.0, 1.5, 2.0, 3.0]))
    assert curve == {0.0: 0.75, 0.4: 0.75, 1.0: 0.5, 1.5: 0.25, 2.0: 0.25, 3.0: 0.0}
    # the curve agrees with compute() at the reported thresholds
    assert all(curve[p] == v for p, v in metrics.compute(verdicts).fast_p.items() if p in curve)


def test_fast_p_curve_of_nothing_is_zero():
    assert metrics.fast_p_curve([], [0.0, 1.0]) == [(0.0, 0.0), (1.0, 0.0)]


def test_fast_p_points_span_zero_to_three():
    pts = standings.fast_p_points([make_verdict("level1/relu", speedup=1.25)])
    assert pts[0] == (0.0, 1.0) and pts[-1] == (3.0, 0.0) and len(pts) == 151
    # faster than p while 1.25 > p x 1.02 (the spread floor): up to p = 1.2254
    assert dict(pts)[1.22] == 1.0 and dict(pts)[1.24] == 0.0


def test_standings_rank_by_fast_1_per_scope(three_submissions):
    table = standings.standings(three_submissions)
    assert list(table) == ["overall", "level1", "level2"]
    assert [e.submission.name for e in table["overall"]] == ["Fast Model", "Medium Model", "Slow Model"]
    fast = table["overall"][0]
    assert fast.k == 2 and fast.pass_at_1 == pytest.approx(5 / 6) and fast.pass_at_k == 1.0
    assert fast.metrics.tasks == 3 and table["level2"][0].metrics.tasks == 1


def test_standings_metrics_equal_compute_by_level(three_submissions):
    sub = three_submissions[0]
    assert standings.submission_metrics(sub) == metrics.compute_by_level(sub.verdicts, (1, 2))


def test_result_rows_carry_families_and_first_error_line(three_submissions):
    rows = standings.result_rows(three_submissions[0])
    assert [r.verdict.task_id for r in rows][:2] == ["level1/relu", "level1/relu"]
    failing = next(r for r in rows if not r.verdict.correct)
    assert failing.tags == ("reduction",) and failing.error_line == "incorrect: something went wrong"


def test_chart_geometry_maps_the_unit_square():
    c = chart.fast_p_chart([("a", "a", [(0.0, 1.0), (3.0, 0.0)]), ("b", "b", [(0.0, 0.5), (1.0, 0.5)])])
    assert [s.points.split()[0] for s in c.series] == [
        f"{c.left:.1f},{c.top:.1f}",
        f"{c.left:.1f},{(c.top + c.bottom) / 2:.1f}",
    ]
    assert c.series[0].points.split()[-1] == f"{c.right:.1f},{c.bottom:.1f}"
    assert c.series[0].color != c.series[1].color and c.series[1].fast_1 == 0.5
    assert c.series[0].title == "a: fast_1 = –" and c.p1_x == pytest.approx(c.left + (c.right - c.left) / 3)


def untimed_submission(name: str, failing: int = 0):
    """Every sample correct but none timed (a --no-timing run), `failing` of them incorrect instead."""
    model = name.lower()
    base = fakes.default_verdicts()
    verdicts = [make_verdict(v.task_id, v.sample, speedup=None, model=model) for v in base]
    verdicts[:failing] = [replace(v, status=Status.INCORRECT, speedup=None) for v in verdicts[:failing]]
    return fakes.make_submission(name, verdicts)


def test_untimed_submissions_rank_after_timed_ones(three_submissions):
    perfect, worse = untimed_submission("Untimed Perfect"), untimed_submission("Untimed Worse", failing=2)
    subs = [perfect, *three_submissions, worse]
    table = standings.standings(subs)
    for scope in ("overall", "level1"):
        names = [e.submission.name for e in table[scope]]
        assert names[-2:] == ["Untimed Perfect", "Untimed Worse"], scope  # then ranked by Pass@1
        assert table[scope][-1].fast_1 is None and table[scope][0].fast_1 is not None
    perfect = table["overall"][-2]
    assert perfect.pass_at_1 == 1.0 and perfect.metrics.geomean_speedup is None
    # the chart of an untimed entry has its correctness point only
    assert standings.fast_p_points(perfect.submission.verdicts) == [(0.0, 1.0)]


def test_two_untimed_entries_with_equal_pass_rank_by_name():
    table = standings.standings([untimed_submission("b model"), untimed_submission("A model")])
    assert [e.submission.name for e in table["overall"]] == ["A model", "b model"]


def entry_with(name: str, fast_1: float, lo: float, hi: float) -> standings.Entry:
    sub = fakes.make_submission(name, fakes.default_verdicts(name.lower()))
    m = replace(metrics.compute(sub.verdicts), fast_p={1.0: fast_1}, fast_p_ci={1.0: Interval(lo, hi)})
    return standings.Entry(sub, "overall", m, 2)


def ranked(*entries):
    return [(e.submission.name, e.rank, e.ahead) for e in standings.rank_scope(list(entries))]


def test_overlapping_intervals_tie_and_a_gap_is_marked():
    a, b, c = (
        entry_with("A", 0.6, 0.5, 0.7),
        entry_with("B", 0.55, 0.45, 0.65),
        entry_with("C", 0.2, 0.1, 0.3),
    )
    assert ranked(c, b, a) == [("A", 1, False), ("B", 1, True), ("C", 3, False)]


def test_an_entry_ranks_below_only_those_wholly_above_it():
    """A overlaps B and B overlaps C, but A lies wholly above C: C is third in line, rank 2."""
    a, b, c = entry_with("A", 0.6, 0.5, 0.7), entry_with("B", 0.5, 0.4, 0.6), entry_with("C", 0.4, 0.3, 0.45)
    assert ranked(a, b, c) == [("A", 1, False), ("B", 1, False), ("C", 2, False)]


def test_a_wide_interval_keeps_its_rank_and_the_list_stays_in_rank_order():
    """D's point is lowest but its interval reaches A's: it shares rank 1 and is listed before C."""
    a, c = entry_with("A", 0.6, 0.55, 0.65), entry_with("C", 0.4, 0.35, 0.45)
    d = entry_with("D", 0.3, 0.0, 0.6)
    assert ranked(a, c, d) == [("A", 1, False), ("D", 1, False), ("C", 2, False)]


def test_ranks_of_the_fake_submissions_agree_with_their_intervals(three_submissions):
    for scope, entries in standings.standings(three_submissions).items():
        for e in entries:
            above = sum(o.interval.lo > e.interval.hi for o in entries)
            assert e.rank == 1 + above, scope
        for e, nxt in zip(entries, entries[1:], strict=False):
            assert e.ahead == (not e.interval.overlaps(nxt.interval))
            assert e.rank <= nxt.rank


def test_chart_band_steps_from_each_right_lo_to_each_left_hi():
    c = chart.fast_p_chart(
        [("a", "a", [(0.0, 1.0), (3.0, 0.0)])], bands=[[(0.0, 0.5, 1.0), (3.0, 0.0, 0.25)]]
    )

    def at(x, f):
        return f"{c.left + (c.right - c.left) * x / 3:.1f},{c.bottom - (c.bottom - c.top) * f:.1f}"

    assert c.series[0].band.split() == [at(0, 0.5), at(0, 0), at(3, 0), at(3, 0.25), at(3, 1.0), at(0, 1.0)]
    assert chart.fast_p_chart([("a", "a", [(0.0, 1.0)])]).series[0].band == ""
