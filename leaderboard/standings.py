"""What the site shows, computed from submissions: metric rows per scope (overall and each level),
fast_p curves, and per-sample result rows. Every number comes from benchmark.metrics applied to the
submission's verdicts; the submitted summary.json is only checked against it at submit time.

Ranks mean only what the intervals allow: entries are ranked by fast_1 (entries with no timed
sample after every timed one, by Pass@1), and an entry's rank is 1 + the number of entries of its
group whose 95% interval lies wholly above its own. Entries whose intervals overlap the same
leaders share a rank; `Entry.ahead` marks an entry whose interval lies wholly above the next one's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from benchmark import metrics
from benchmark.stats import Interval
from benchmark.verdict import Verdict
from leaderboard.submission import Submission

FAST_P_MAX = 3.0
FAST_P_STEP = 0.02
BAND_STEP = 0.25  # the fast_p curve's interval band is bootstrapped at these thresholds


@dataclass(frozen=True)
class Entry:
    """One submission's numbers in one scope."""

    submission: Submission
    scope: str
    metrics: metrics.Metrics
    k: int  # samples per task: Pass@k and Avg@k use it
    rank: int = 0  # 1 + entries significantly ahead (set by `standings`); tied entries share it
    ahead: bool = False  # significantly ahead of the next entry: their intervals do not overlap

    @property
    def pass_at_1(self) -> float | None:
        return self.metrics.pass_at_k.get(1)

    @property
    def pass_at_k(self) -> float | None:
        return self.metrics.pass_at_k.get(self.k)

    @property
    def fast_1(self) -> float | None:
        """None when no correct sample of the scope was timed (see benchmark.metrics)."""
        return self.metrics.fast_p[1.0]

    @property
    def ranked_by(self) -> str:
        return "Pass@1" if self.fast_1 is None else "fast_1"

    @property
    def interval(self) -> Interval | None:
        """The 95% interval of the metric the entry is ranked by."""
        if self.fast_1 is None:
            return self.metrics.pass_at_k_ci.get(1)
        return self.metrics.fast_p_ci.get(1.0)


def scope_title(scope: str) -> str:
    if scope == "overall":
        return "Overall"
    if scope.startswith("level"):
        return f"Level {scope[5:]}"
    return scope.capitalize()


def scope_sort_key(scope: str) -> tuple[int, int, str]:
    if scope == "overall":
        return (0, 0, scope)
    if scope.startswith("level") and scope[5:].isdigit():
        return (1, int(scope[5:]), scope)
    return (2, 0, scope)


def submission_metrics(sub: Submission) -> dict[str, metrics.Metrics]:
    """Metrics of one submission per scope, with Pass@1 and Pass@K (K samples per task)."""
    ks = sorted({1, sub.samples_per_task})
    return metrics.compute_by_level(sub.verdicts, ks)


def _rank_key(e: Entry) -> tuple:
    """An untimed entry has no fast_1 to compare, so it ranks after every timed one: ranking it as 0
    would put an untimed correct model level with a timed wrong one."""
    return (
        e.fast_1 is None,
        -(e.fast_1 or 0.0),
        -(e.pass_at_1 or 0.0),
        -(e.metrics.geomean_speedup or 0.0),
        e.submission.name.lower(),
    )


def _span(e: Entry) -> Interval:
    """The entry's interval; a point where none was computed (no resamples), so it ties only its equals."""
    if e.interval is not None:
        return e.interval
    value = (e.fast_1 if e.fast_1 is not None else e.pass_at_1) or 0.0
    return Interval(value, value)


def tied_ranks(
    entries: list[Entry], key: Callable[[Entry], tuple] = _rank_key, start: int = 1
) -> list[Entry]:
    """One group ranked by intervals: rank = start + the entries whose interval lies wholly above
    this one's, listed by rank and then by `key`; `ahead` set where the next entry's interval lies
    wholly below."""
    ranked = [replace(e, rank=start + sum(_span(o).lo > _span(e).hi for o in entries)) for e in entries]
    ranked.sort(key=lambda e: (e.rank, key(e)))
    return [
        replace(e, ahead=i + 1 < len(ranked) and not _span(e).overlaps(_span(ranked[i + 1])))
        for i, e in enumerate(ranked)
    ]


def rank_scope(entries: list[Entry]) -> list[Entry]:
    """Timed entries ranked by fast_1's intervals, then untimed ones by Pass@1's, ranked after."""
    timed = tied_ranks([e for e in entries if e.fast_1 is not None])
    untimed = tied_ranks([e for e in entries if e.fast_1 is None], start=len(timed) + 1)
    return timed + untimed


def standings(subs: list[Submission]) -> dict[str, list[Entry]]:
    """Scope -> entries ranked by the intervals of fast_1 (untimed entries last, by Pass@1); within a
    rank, by fast_1, then Pass@1, then geometric-mean speedup."""
    out: dict[str, list[Entry]] = {}
    for sub in subs:
        for scope, m in submission_metrics(sub).items():
            out.setdefault(scope, []).append(Entry(sub, scope, m, sub.samples_per_task))
    return {s: rank_scope(out[s]) for s in sorted(out, key=scope_sort_key)}


def fast_p_points(
    verdicts: list[Verdict], p_max: float = FAST_P_MAX, step: float = FAST_P_STEP
) -> list[tuple[float, float]]:
    n = round(p_max / step)
    return metrics.fast_p_curve(verdicts, [round(i * step, 6) for i in range(n + 1)])


def fast_p_band_points(
    verdicts: list[Verdict], p_max: float = FAST_P_MAX, step: float = BAND_STEP
) -> list[tuple[float, Interval]]:
    n = round(p_max / step)
    return metrics.fast_p_band(verdicts, [round(i * step, 6) for i in range(n + 1)])


def scope_verdicts(sub: Submission, scope: str) -> list[Verdict]:
    if scope == "overall":
        return sub.verdicts
    return [v for v in sub.verdicts if f"level{v.level}" == scope]


@dataclass(frozen=True)
class ResultRow:
    """One sample (its final turn) as the submission page lists it."""

    verdict: Verdict
    tags: tuple[str, ...]

    @property
    def error_line(self) -> str:
        return (self.verdict.error or "").strip().splitlines()[0][:200] if self.verdict.error else ""


def result_rows(sub: Submission) -> list[ResultRow]:
    final = sorted(metrics.final_turns(sub.verdicts), key=lambda v: (v.level or 0, v.task_id, v.sample))
    return [ResultRow(v, tuple(sub.tasks.get(v.task_id, {}).get("tags", ()))) for v in final]
