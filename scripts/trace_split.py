"""How a kernel's two call speeds move the paired speedup, read from interleaved timings' traces.

On the H200 each call of the Triton row sum ran at one of two speeds about 8% apart, and one fresh
run in five scored about 1.5% below the others. This reads `bench_harness.py --sections repeats`
traces (its `timing-trace/` folder, or a `.jsonl.gz` of them as committed under docs/timing-traces/):
per run, each arm's share of slow calls (more than `--slow` above its median) and how often both calls
of a round were slow; then the measured calls, split into each arm's fast and slow ones, resampled
into runs whose arms have chosen slow shares, and each estimator's shift from the true ratio there:
the paired median the verdict uses, the ratio of the arms' 10th and 20th percentiles, and the ratio
of each arm's fast-speed median (its calls within `--slow` of its 10th percentile).

    python scripts/trace_split.py docs/timing-traces/sum_rows-2026-12-04.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
from collections.abc import Callable
from pathlib import Path

from benchmark.evaluate.timing import paired_ratio

SLOW = 0.04  # a call this much above its arm's median is slow (the row sum's slow speed: 8-9% above)
SPLITS = ((0.0, 0.0), (0.2, 0.2), (0.2, 0.5), (0.5, 0.2), (0.1, 0.4), (0.3, 0.6))  # (reference, candidate)


def load(source: Path) -> list[dict]:
    """Every timing of a trace folder (`*/*.json`, each with its path's name) or a .jsonl.gz of them."""
    if source.is_dir():
        return [{"path": f.parent.name, **json.loads(f.read_text())} for f in sorted(source.glob("*/*.json"))]
    with gzip.open(source, "rt") as f:
        return [json.loads(line) for line in f]


def slow_calls(times: list[float], slow: float) -> list[bool]:
    med = statistics.median(times)
    return [t > (1 + slow) * med for t in times]


def split_of(run: dict, slow: float) -> dict:
    """A run's slow share per arm, and the share of rounds where both calls were slow (against the
    product of the shares, were the arms independent)."""
    a, b = (slow_calls(s, slow) for s in run["samples_ms"])
    n = len(a)
    pa, pb = sum(a) / n, sum(b) / n
    return {
        "rounds": n,
        "reference": pa,
        "candidate": pb,
        "both": sum(x and y for x, y in zip(a, b, strict=True)) / n,
        "independent": pa * pb,
        "ratio": run.get("ratio"),
    }


def fast_median(times: list[float], slow: float) -> float:
    floor = statistics.quantiles(times, n=10)[0]
    return statistics.median(t for t in times if t <= (1 + slow) * floor)


ESTIMATORS: dict[str, Callable[[list[float], list[float], float], float]] = {
    "paired median": lambda a, b, slow: paired_ratio(a, b),
    "10th percentiles": lambda a, b, slow: (
        statistics.quantiles(a, n=10)[0] / statistics.quantiles(b, n=10)[0]
    ),
    "20th percentiles": lambda a, b, slow: statistics.quantiles(a, n=5)[0] / statistics.quantiles(b, n=5)[0],
    "fast-speed medians": lambda a, b, slow: fast_median(a, slow) / fast_median(b, slow),
}


def resampled(runs: list[dict], slow: float, resamples: int, rounds: int, seed: int) -> list[dict]:
    """Each estimator's median shift and 95% range over `resamples` synthetic runs per split in SPLITS,
    drawn from the measured calls (each normalized by its run's arm median; true ratio 1)."""
    rng = random.Random(seed)
    fast: list[list[float]] = [[], []]
    slow_pool: list[list[float]] = [[], []]
    for run in runs:
        for k, times in enumerate(run["samples_ms"]):
            med = statistics.median(times)
            for t, is_slow in zip(times, slow_calls(times, slow), strict=True):
                (slow_pool if is_slow else fast)[k].append(t / med)
    if not all(slow_pool):
        raise SystemExit("no slow calls in these traces: nothing to resample")
    table = []
    for p_ref, p_cand in SPLITS:
        shifts: dict[str, list[float]] = {name: [] for name in ESTIMATORS}
        for _ in range(resamples):
            a, b = (
                [rng.choice(slow_pool[k]) if rng.random() < p else rng.choice(fast[k]) for _ in range(rounds)]
                for k, p in ((0, p_ref), (1, p_cand))
            )
            for name, estimate in ESTIMATORS.items():
                shifts[name].append(estimate(a, b, slow) - 1)
        row = {"reference": p_ref, "candidate": p_cand}
        for name, v in shifts.items():
            q = statistics.quantiles(v, n=40)
            row[name] = (statistics.median(v), q[0], q[-1])
        table.append(row)
    return table


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "traces", type=Path, help="a timing-trace folder of one case, or a .jsonl.gz of its traces"
    )
    p.add_argument("--slow", type=float, default=SLOW, help="a call this much above its arm's median is slow")
    p.add_argument("--resamples", type=int, default=300)
    p.add_argument(
        "--rounds", type=int, default=180, help="rounds per synthetic run (the row sum timed 156-181)"
    )
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    runs = load(args.traces)
    splits = [split_of(r, args.slow) for r in runs]
    print("| path | rounds | speedup | slow share: reference | candidate | both | were they independent |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for run, s in zip(runs, splits, strict=True):
        print(
            f"| {run.get('path', '-')} | {s['rounds']} | {s['ratio']:.4f} | {s['reference']:.2f} | "
            f"{s['candidate']:.2f} | {s['both']:.2f} | {s['independent']:.2f} |"
        )
    table = resampled(runs, args.slow, args.resamples, args.rounds, args.seed)
    print(
        f"\nshift from the true ratio, median [95% range] over {args.resamples} resampled runs of {args.rounds} rounds"
    )
    print("| slow share: reference | candidate | " + " | ".join(ESTIMATORS) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in ESTIMATORS) + " |")
    for row in table:
        cells = " | ".join(f"{m:+.2%} [{lo:+.2%}, {hi:+.2%}]" for m, lo, hi in (row[n] for n in ESTIMATORS))
        print(f"| {row['reference']:.1f} | {row['candidate']:.1f} | {cells} |")
    return {"runs": splits, "resampled": table}


if __name__ == "__main__":
    main()
