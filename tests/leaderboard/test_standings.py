"""leaderboard.standings: rankings (Pass@1 first, then fast_1, on their intervals), scopes and fast_p
curves come from benchmark.metrics."""

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


def test_standings_of_equal_correctness_rank_by_fast_1_per_scope(three_submissions):
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


def test_untimed_entries_rank_on_pass_at_1_and_show_no_sample_faster(three_submissions):
    perfect, worse = untimed_submission("Untimed Perfect"), untimed_submission("Untimed Worse", failing=2)
    table = standings.standings([perfect, *three_submissions, worse])
    for scope in ("overall", "level1"):
        ranked = [(e.submission.name, e.rank) for e in table[scope]]
        # Fast and Medium are clearly faster at a Pass@1 that overlaps the others'; the untimed entries
        # tie with Slow, which was timed and never faster, and are listed within the rank by Pass@1
        assert ranked == [
            ("Fast Model", 1),
            ("Medium Model", 1),
            ("Untimed Perfect", 3),
            ("Slow Model", 3),
            ("Untimed Worse", 3),
        ], scope
        assert table[scope][2].fast_1 is None and table[scope][2].speed_span == Interval(0.0, 0.0)
    perfect = table["overall"][2]
    assert perfect.pass_at_1 == 1.0 and perfect.metrics.geomean_speedup is None
    # the chart of an untimed entry has its correctness point only
    assert standings.fast_p_points(perfect.submission.verdicts) == [(0.0, 1.0)]


def test_two_untimed_entries_with_equal_pass_rank_by_name():
    table = standings.standings([untimed_submission("b model"), untimed_submission("A model")])
    assert [e.submission.name for e in table["overall"]] == ["A model", "b model"]


def entry_with(
    name: str, fast_1: float | None, lo: float, hi: float, pass_1: tuple[float, float, float] | None = None
) -> standings.Entry:
    """An entry with the given fast_1 and its interval (None: never timed) and, when given, Pass@1 as
    (value, lo, hi); otherwise the default verdicts' Pass@1."""
    sub = fakes.make_submission(name, fakes.default_verdicts(name.lower()))
    m = metrics.compute(sub.verdicts)
    m = replace(m, fast_p={1.0: fast_1}, fast_p_ci={} if fast_1 is None else {1.0: Interval(lo, hi)})
    if pass_1 is not None:
        m = replace(m, pass_at_k={1: pass_1[0]}, pass_at_k_ci={1: Interval(pass_1[1], pass_1[2])})
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
            assert e.rank == 1 + sum(bool(standings.lead(o, e)) for o in entries), scope
        for e, nxt in zip(entries, entries[1:], strict=False):
            assert e.ahead == (not e.speed_span.overlaps(nxt.speed_span))  # Pass@1 is the same
            assert e.rank <= nxt.rank


def test_correctness_comes_first_a_wrong_entry_never_ties_a_correct_one():
    """Equal fast_1 (0, as PyTorch against itself and a model that passes nothing both have) does not
    tie a Pass@1 of 1 with one of 0: the correct entry is clearly ahead, on Pass@1."""
    reference = entry_with("Reference", 0.0, 0.0, 0.0, pass_1=(1.0, 1.0, 1.0))
    wrong = entry_with("Wrong", 0.0, 0.0, 0.0, pass_1=(0.0, 0.0, 0.0))
    faster = entry_with("Faster", 0.4, 0.3, 0.5, pass_1=(0.75, 0.7, 0.8))
    assert ranked(wrong, faster, reference) == [
        ("Reference", 1, True),
        ("Faster", 2, True),
        ("Wrong", 3, False),
    ]
    assert [e.ahead_on for e in standings.rank_scope([wrong, faster, reference])] == ["Pass@1", "Pass@1", ""]


def test_entries_that_really_tie_share_a_rank():
    """Two entries that pass nothing (one never timed) tie below a correct one; only they share it."""
    reference = entry_with("Reference", 0.0, 0.0, 0.0, pass_1=(1.0, 1.0, 1.0))
    untimed = entry_with("Untimed", None, 0.0, 0.0, pass_1=(0.0, 0.0, 0.0))
    wrong = entry_with("Wrong", 0.0, 0.0, 0.0, pass_1=(0.0, 0.0, 0.0))
    assert ranked(untimed, wrong, reference) == [
        ("Reference", 1, True),
        ("Wrong", 2, False),
        ("Untimed", 2, False),
    ]


def test_overlapping_pass_at_1_is_decided_by_fast_1_and_says_so():
    a = entry_with("A", 0.6, 0.5, 0.7, pass_1=(0.7, 0.6, 0.8))
    b = entry_with("B", 0.1, 0.0, 0.2, pass_1=(0.8, 0.7, 0.9))  # more correct, within A's interval
    c = entry_with("C", 0.9, 0.8, 1.0, pass_1=(0.3, 0.2, 0.4))  # fastest, but clearly less correct
    assert standings.lead(a, b) == "fast_1" and standings.lead(b, a) == ""
    assert standings.lead(a, c) == standings.lead(b, c) == "Pass@1" and standings.lead(c, a) == ""
    assert ranked(c, b, a) == [("A", 1, True), ("B", 2, True), ("C", 3, False)]


def test_entry_colors_follow_the_slug_not_the_position():
    slugs = ["eager-pytorch-reference", "torch-compile-inductor", "smollm2-135m-instruct-q4-1"]
    colors = chart.entry_colors(slugs)
    assert colors == chart.entry_colors(reversed(slugs)) and len(set(colors.values())) == 3
    assert set(colors.values()) <= set(chart.PALETTE[: chart.DISTINCT])
    # a chart drawing the entries in another order keeps each entry's colour
    curves = [(s, s, [(0.0, 1.0)]) for s in slugs]
    for order in (curves, curves[::-1]):
        c = chart.fast_p_chart(order, colors=colors)
        assert {s.slug: s.color for s in c.series} == colors
    many = chart.entry_colors(f"entry-{i}" for i in range(12))
    assert len(set(many.values())) == len(chart.PALETTE)  # more entries than colours: all are used


def test_chart_band_steps_from_each_right_lo_to_each_left_hi():
    c = chart.fast_p_chart(
        [("a", "a", [(0.0, 1.0), (3.0, 0.0)])], bands=[[(0.0, 0.5, 1.0), (3.0, 0.0, 0.25)]]
    )

    def at(x, f):
        return f"{c.left + (c.right - c.left) * x / 3:.1f},{c.bottom - (c.bottom - c.top) * f:.1f}"

    assert c.series[0].band.split() == [at(0, 0.5), at(0, 0), at(3, 0), at(3, 0.25), at(3, 1.0), at(0, 1.0)]
    assert chart.fast_p_chart([("a", "a", [(0.0, 1.0)])]).series[0].band == ""


def test_suite_versions_are_ranked_apart_current_first_then_newest(three_submissions):
    from leaderboard.suites import SuiteRegistry, SuiteVersion

    slow, fast, medium = three_submissions
    tasks = fakes.registry().get(fakes.SUITE_VERSION).tasks

    def version(name: str, recorded: str, source: str = "builtin") -> SuiteVersion:
        return SuiteVersion(name, source, recorded, tasks, f"version {name}")

    registry = SuiteRegistry(
        {
            v.version: v
            for v in (
                version("a", "2026-10-01"),
                version("b", "2026-11-01"),
                version("c", "2026-09-01", "tasks/"),
            )
        }
    )
    subs = [
        replace(s, run=dict(s.run, suite_version=v))
        for s, v in ((slow, "a"), (fast, "b"), (medium, "current"), (replace(fast, slug="x"), "unknown"))
    ]
    subs.append(replace(subs[1], slug="fast-on-a", run=dict(subs[1].run, suite_version="a")))
    groups = standings.by_suite_version(subs, "current", registry)
    assert [g.version for g in groups] == ["current", "b", "a", "unknown"]
    assert [g.mark for g in groups] == [
        "",
        standings.OLDER_SUITE,
        standings.OLDER_SUITE,
        standings.OTHER_SUITE,
    ]
    assert groups[2].label == "3 tasks, 2026-10-01: version a"
    assert groups[3].label.startswith("not recorded")
    # each version ranked on its own: the fast entry on "a" is ahead of slow there, and alone on "b"
    assert [(e.submission.slug, e.rank) for e in groups[2].table["overall"]] == [
        ("fast-on-a", 1),
        ("slow-model", 2),
    ]
    assert [(e.submission.slug, e.rank) for e in groups[1].table["overall"]] == [("fast-model", 1)]
    assert standings.suite_group("c", "current", registry).mark == standings.OTHER_SUITE  # a custom folder


def test_over_best_aggregates_against_the_recorded_baselines():
    """The board's "over best": geomean over passing samples of speedup / the best baseline's, from
    the baselines the run's summary.json recorded; None for a run that recorded none."""
    verdicts = [
        make_verdict("level1/relu", 0, speedup=4.0),
        make_verdict("level1/relu", 1, status=Status.INCORRECT, speedup=None),
        make_verdict("level1/row_sum", 0, speedup=1.0),
    ]
    sub = fakes.make_submission("Model", verdicts)
    assert standings.submission_metrics(sub)["overall"].geomean_over_best is None
    sub.summary["baselines"] = {
        "gpu": "NVIDIA H200",
        "tasks": {
            "level1/relu": {"name": "sdpa_flash", "speedup": 2.0},
            "level1/row_sum": {"name": "x", "speedup": 0.5},
        },
    }
    assert standings.best_baselines(sub) == {"level1/relu": 2.0, "level1/row_sum": 0.5}
    assert standings.submission_metrics(sub)["overall"].geomean_over_best == pytest.approx(2.0)
