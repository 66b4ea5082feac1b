"""What the site shows, computed from submissions: metric rows per scope (overall and each level),
fast_p curves, and per-sample result rows. Every number comes from benchmark.metrics applied to the
submission's verdicts; the submitted summary.json is only checked against it at submit time.

Ranks put correctness first and mean only what the intervals allow. An entry is clearly ahead of
another when its 95% interval of Pass@1 lies wholly above the other's, or, where their Pass@1
intervals overlap, when its interval of fast_1 lies wholly above the other's (an entry never timed
has shown no sample faster: its fast_1 counts as 0). An entry's rank is 1 + the number of entries
clearly ahead of it, so entries that no other entry clearly beats share a rank; `Entry.ahead_on`
names the metric on which an entry is clearly ahead of the next one listed.

Entries are ranked only against entries that ran the same suite version (`by_suite_version`): a
level's Pass@1 over another set of tasks is another quantity, and the intervals assume one task
population. The built-in suite's current version comes first, older versions after it, newest
first."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from benchmark import metrics
from benchmark.stats import Interval
from benchmark.verdict import Verdict
from leaderboard.submission import Submission
from leaderboard.suites import SuiteRegistry

FAST_P_MAX = 3.0
FAST_P_STEP = 0.02
BAND_STEP = 0.25  # the fast_p curve's interval band is bootstrapped at these thresholds


RANK_METRICS = ("Pass@1", "fast_1")  # the ranking's keys, correctness first


@dataclass(frozen=True)
class Entry:
    """One submission's numbers in one scope."""

    submission: Submission
    scope: str
    metrics: metrics.Metrics
    k: int  # samples per task: Pass@k and Avg@k use it
    rank: int = 0  # 1 + entries clearly ahead (set by `standings`); tied entries share it
    ahead_on: str = ""  # the metric on which it is clearly ahead of the next entry listed ("": not)

    @property
    def ahead(self) -> bool:
        return bool(self.ahead_on)

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
    def pass_span(self) -> Interval:
        """Pass@1's 95% interval; a point where none was computed, so it ties only its equals."""
        ci = self.metrics.pass_at_k_ci.get(1)
        return ci if ci is not None else _point(self.pass_at_1)

    @property
    def speed_span(self) -> Interval:
        """fast_1's 95% interval; the point 0 for an entry never timed (no sample shown faster)."""
        if self.fast_1 is None:
            return _point(0.0)
        ci = self.metrics.fast_p_ci.get(1.0)
        return ci if ci is not None else _point(self.fast_1)


def _point(value: float | None) -> Interval:
    return Interval(value or 0.0, value or 0.0)


def lead(a: Entry, b: Entry) -> str:
    """The metric on which `a` is clearly ahead of `b` ("" when it is not): Pass@1's intervals
    apart, or overlapping Pass@1 intervals and fast_1's apart."""
    if a.pass_span.lo > b.pass_span.hi:
        return RANK_METRICS[0]
    if a.pass_span.overlaps(b.pass_span) and a.speed_span.lo > b.speed_span.hi:
        return RANK_METRICS[1]
    return ""


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
    return metrics.compute_by_level(sub.verdicts, ks, best=best_baselines(sub))


def best_baselines(sub: Submission) -> dict[str, float]:
    """Task id -> the speedup over eager of its best production baseline, as the run's summary.json
    recorded it from the suite's manifest on the run's GPU; empty for runs before baselines existed."""
    recorded = (sub.summary.get("baselines") or {}).get("tasks") or {}
    return {t: float(b["speedup"]) for t, b in recorded.items() if isinstance(b, dict) and b.get("speedup")}


def _order_key(e: Entry) -> tuple:
    """The listing order within a rank: the ranking's metrics by value, then geomean, then name."""
    return (
        -(e.pass_at_1 or 0.0),
        e.fast_1 is None,
        -(e.fast_1 or 0.0),
        -(e.metrics.geomean_speedup or 0.0),
        e.submission.name.lower(),
    )


def rank_scope(entries: list[Entry]) -> list[Entry]:
    """One scope ranked: rank = 1 + the entries clearly ahead (`lead`), listed by rank and then by
    `_order_key`; `ahead_on` set where an entry is clearly ahead of the next one listed."""
    ranked = [replace(e, rank=1 + sum(bool(lead(o, e)) for o in entries)) for e in entries]
    ranked.sort(key=lambda e: (e.rank, _order_key(e)))
    return [
        replace(e, ahead_on=lead(e, ranked[i + 1]) if i + 1 < len(ranked) else "")
        for i, e in enumerate(ranked)
    ]


def standings(
    subs: list[Submission], computed: dict[str, dict[str, metrics.Metrics]] | None = None
) -> dict[str, list[Entry]]:
    """Scope -> entries ranked by Pass@1, then fast_1, on their 95% intervals (see `lead`).
    `computed`: slug -> `submission_metrics`, where the caller has them already."""
    out: dict[str, list[Entry]] = {}
    for sub in subs:
        by_scope = computed[sub.slug] if computed is not None else submission_metrics(sub)
        for scope, m in by_scope.items():
            out.setdefault(scope, []).append(Entry(sub, scope, m, sub.samples_per_task))
    return {s: rank_scope(out[s]) for s in sorted(out, key=scope_sort_key)}


OLDER_SUITE = "older suite"  # a version of the built-in suite other than the current one
OTHER_SUITE = "other suite"  # a custom suite, or a version never recorded


@dataclass(frozen=True)
class SuiteGroup:
    """The entries that ran one suite version, ranked per scope against each other only."""

    version: str
    label: str  # `SuiteVersion.label`: size, date and what the version changed
    current: bool  # the built-in suite as it is now
    builtin: bool  # a version of the built-in suite (else a custom folder, or never recorded)
    table: dict[str, list[Entry]]  # scope -> ranked entries, as `standings` returns

    @property
    def mark(self) -> str:
        """The label its entries carry on the board: "" for the current suite."""
        if self.current:
            return ""
        return OLDER_SUITE if self.builtin else OTHER_SUITE


def by_suite_version(
    subs: list[Submission],
    current: str,
    registry: SuiteRegistry,
    computed: Mapping[str, dict[str, metrics.Metrics]] | None = None,
) -> list[SuiteGroup]:
    """One group per suite version the submissions ran, each ranked by `standings` on its own:
    `current` (the built-in suite's version now) first, then by the date the version was
    recorded, newest first; versions never recorded last."""
    versions: dict[str, list[Submission]] = {}
    for sub in subs:
        versions.setdefault(str(sub.run.get("suite_version", "")), []).append(sub)

    def recorded(version: str) -> str:
        entry = registry.get(version)
        return entry.recorded if entry is not None else ""

    ordered = sorted(versions, key=lambda v: (recorded(v), v), reverse=True)  # newest first
    ordered.sort(key=lambda v: (v != current, registry.get(v) is None))  # stable: current first
    return [
        replace(
            suite_group(version, current, registry),
            table=standings(versions[version], dict(computed) if computed is not None else None),
        )
        for version in ordered
    ]


def suite_group(version: str, current: str, registry: SuiteRegistry) -> SuiteGroup:
    """What the board says of a suite version, with no entries yet."""
    entry = registry.get(version)
    return SuiteGroup(
        version=version,
        label=registry.label(version),
        current=version == current,
        builtin=version == current or (entry is not None and entry.source == "builtin"),
        table={},
    )


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
