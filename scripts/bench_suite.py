"""Wall time of the whole built-in suite through `python -m benchmark.run --model reference`, one sample
per task (a script, not a test): how long a full benchmark pass of the harness takes on this machine.

    python scripts/bench_suite.py --fraction 1 --out $OUT/suite           # the whole suite, measured
    python scripts/bench_suite.py --fraction 0.06 --budget-s 95 --out ...  # a seeded sample, extrapolated

With --fraction below 1 (or when --budget-s cuts the run) the same fraction of each level is drawn
with --seed, and the full suite's wall time is extrapolated, labelled as such: the run's start-up
(until its first sample began, and the first samples' wait for the warm workers) plus the rest of
its wall time scaled by the cost of the whole suite over the cost of what was measured, a sample's
cost being its own build and run time with the run's median child start-up in place of its own
(the first samples wait for the zygote once: 16 s of the H200's first 4 of 21, which scaled to all
206 level-1 tasks had doubled the estimate) and each level weighed by its size (so a cut run that
reached mostly level 1 is not taken for the whole suite).
The interval resamples the measured samples within their levels (bootstrap) for each level's mean
cost; the pace (measured cost per second of the run) is the one observed. Verdicts are timestamped
as they land in the run's results.jsonl. --device cpu --tiny runs the test suite's two tasks."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmark.rundir import read_verdict
from benchmark.stats import quantile
from benchmark.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent

TINY_SUITE = ROOT / "tests" / "benchmark" / "data" / "suite"
GOAL_S = 600.0  # the whole suite in under 10 minutes


@dataclass(frozen=True)
class Landed:
    """One verdict as it landed: seconds since the run started, its level, its own time, its status."""

    at_s: float
    level: int | None
    own_s: float
    status: str
    startup_s: float = 0.0  # the child's start-up, part of own_s
    alone_s: float = 0.0  # the device held exclusively (timing), part of own_s


def sample_tasks(levels: dict[str, int | None], fraction: float, seed: int) -> list[str]:
    """The same fraction of every level (at least one task each), drawn with the seed."""
    by_level: dict[int | None, list[str]] = {}
    for task_id, level in sorted(levels.items()):
        by_level.setdefault(level, []).append(task_id)
    rng = random.Random(seed)
    chosen = []
    for level in sorted(by_level, key=lambda x: (x is None, x or 0)):
        ids = by_level[level]
        chosen += rng.sample(ids, min(len(ids), max(1, round(fraction * len(ids)))))
    return sorted(chosen)


def estimate(
    totals: dict[int | None, int], landed: list[Landed], wall_s: float, resamples: int = 2000, seed: int = 0
) -> dict:
    """The whole suite's wall time from the samples that landed (see the module docstring)."""
    if not landed:
        return {
            "full_s": None,
            "interval_s": None,
            "startup_s": None,
            "unmeasured_levels": sorted(totals, key=str),
        }
    typical = quantile([x.startup_s for x in landed], 0.5)
    first = min(landed, key=lambda x: x.at_s)
    startup = max(0.0, first.at_s - first.own_s + max(first.startup_s - typical, 0.0))
    steady = max(wall_s - startup, 1e-9)
    own: dict[int | None, list[float]] = {}
    for x in landed:
        own.setdefault(x.level, []).append(x.own_s - x.startup_s + typical)
    measured = sum(sum(v) for v in own.values())
    overall = measured / len(landed)

    def full(per_level: dict[int | None, list[float]]) -> float:
        """The suite's cost at the run's measured pace: `measured` seconds of samples took `steady`."""
        cost = sum(
            n * (sum(per_level[lv]) / len(per_level[lv]) if per_level.get(lv) else overall)
            for lv, n in totals.items()
        )
        return startup + steady * cost / measured

    rng = random.Random(seed)
    boots = sorted(full({lv: rng.choices(v, k=len(v)) for lv, v in own.items()}) for _ in range(resamples))
    return {
        "full_s": full(own),
        "interval_s": [boots[int(0.025 * resamples)], boots[int(0.975 * resamples) - 1]],
        "startup_s": startup,
        "unmeasured_levels": sorted((lv for lv in totals if lv not in own), key=str),
    }


def read_landed(path: Path, seen: int, at_s: float) -> list[Landed]:
    """Verdicts appended to results.jsonl since the `seen` complete lines already read (each poll
    parses only the new lines: the run being measured shares this host's cores)."""
    if not path.is_file():
        return []
    lines = path.read_text().split("\n")[:-1]  # the last piece is not a complete line yet
    verdicts = (read_verdict(line) for line in lines[seen:])
    return [
        Landed(at_s, v.level, v.phases.total_s, v.status.value, v.phases.startup_s, v.phases.alone_s)
        for v in verdicts
        if not isinstance(v, str)
    ]


def run(
    tasks: list[str] | None,
    device: str,
    out: Path,
    budget_s: float,
    suite: Path | None,
    lanes: int | None = None,
) -> tuple[list[Landed], float, bool, int]:
    """benchmark.run over the tasks (None: all), its verdicts timestamped as they land; at the budget it
    is interrupted (it records what finished) and, 20 s later, killed."""
    cmd = [
        sys.executable,
        "-m",
        "benchmark.run",
        "--model",
        "reference",
        "--device",
        device,
        "--quiet",
        "--out",
        str(out / "run"),
    ]
    cmd += ["--suite", str(suite)] if suite else []
    cmd += ["--lanes", str(lanes)] if lanes else []
    for t in tasks or []:
        cmd += ["--tasks", t]
    results = out / "run" / "results.jsonl"
    with open(out / "benchmark-run.log", "w") as log:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        landed: list[Landed] = []
        signals = [(budget_s, signal.SIGINT), (budget_s + 20, signal.SIGKILL)]
        while proc.poll() is None:
            now = time.monotonic() - t0
            landed += read_landed(results, len(landed), now)
            if signals and now > signals[0][0]:
                os.killpg(proc.pid, signals.pop(0)[1])
            time.sleep(0.25)
        landed += read_landed(results, len(landed), time.monotonic() - t0)
    cut = len(signals) < 2
    wall = max((x.at_s for x in landed), default=budget_s) if cut else time.monotonic() - t0
    return landed, wall, cut, proc.returncode


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("runs/bench-suite"))
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument(
        "--fraction", type=float, default=1.0, help="share of each level to run (1: the whole suite)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget-s", type=float, default=float("inf"), help="interrupt the run after this long")
    p.add_argument("--tiny", action="store_true", help="CPU self-check on the test suite's two tasks")
    p.add_argument("--lanes", type=int, default=None, help="benchmark.run's --lanes (default: its own)")
    args = p.parse_args(argv)
    out = args.out
    if (out / "run").exists():
        raise SystemExit(f"error: {out / 'run'} exists (benchmark.run would resume it); give a fresh --out")
    out.mkdir(parents=True, exist_ok=True)
    suite_dir = TINY_SUITE if args.tiny else None
    suite = load_suite(suite_dir)
    levels = {t.task_id: t.level for t in suite.tasks}
    totals: dict[int | None, int] = {}
    for lv in levels.values():
        totals[lv] = totals.get(lv, 0) + 1
    whole = args.fraction >= 1
    tasks = None if whole else sample_tasks(levels, args.fraction, args.seed)
    n = len(levels) if whole else len(tasks)
    print(
        f"suite: {n} of {len(levels)} tasks ({'all' if whole else f'seeded sample, fraction {args.fraction}'}), "
        f"benchmark.run --model reference on {args.device}",
        flush=True,
    )
    landed, wall, cut, rc = run(tasks, args.device, out, args.budget_s, suite_dir, args.lanes)
    measured = whole and not cut and len(landed) == n
    est = (
        {"full_s": wall, "interval_s": None, "startup_s": None, "unmeasured_levels": []}
        if measured
        else estimate(totals, landed, wall, seed=args.seed)
    )
    statuses: dict[str, int] = {}
    for x in landed:
        statuses[x.status] = statuses.get(x.status, 0) + 1
    report = {
        "device": args.device,
        "lanes": args.lanes,
        "suite_tasks": len(levels),
        "sampled": n,
        "fraction": args.fraction,
        "seed": args.seed,
        "tasks": tasks,
        "done": len(landed),
        "wall_s": wall,
        "cut": cut,
        "returncode": rc,
        "tasks_per_s": len(landed) / wall if wall > 0 else 0.0,
        # the device held alone per sample, and the rate that alone would allow
        "alone_p50_s": quantile([x.alone_s for x in landed], 0.5) if landed else None,
        "alone_bound_tasks_per_s": len(landed) / alone if (alone := sum(x.alone_s for x in landed)) else None,
        "statuses": statuses,
        "full_suite": {**est, "how": "measured" if measured else "extrapolated"},
        "goal_s": GOAL_S,
        "totals_per_level": {str(k): v for k, v in totals.items()},
        "landed": [asdict(x) for x in landed],
    }
    (out / "suite.json").write_text(json.dumps(report, indent=1))
    full = est["full_s"]
    interval = est["interval_s"]
    print(
        f"  {len(landed)}/{n} done in {wall:.1f} s{' (cut by the budget)' if cut else ''}: "
        f"{report['tasks_per_s']:.3f} tasks/s ({args.lanes or 'default'} lanes); statuses {statuses}",
        flush=True,
    )
    if report["alone_bound_tasks_per_s"]:
        print(
            f"  the device held alone: p50 {report['alone_p50_s']:.2f} s per task, a bound of "
            f"{report['alone_bound_tasks_per_s']:.3f} tasks/s",
            flush=True,
        )
    if full is not None:
        ci = f" [{interval[0]:.0f}, {interval[1]:.0f}]" if interval else ""
        print(
            f"  whole suite ({report['full_suite']['how']}): {full:.0f} s{ci}; goal < {GOAL_S:.0f} s: "
            f"{'PASS' if full < GOAL_S else 'MISS'}",
            flush=True,
        )
    return 0 if landed else 1


if __name__ == "__main__":
    sys.exit(main())
