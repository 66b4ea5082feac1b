"""Two runs of benchmark.run on the same tasks, before and after training: the pass rate of each,
the difference with a paired bootstrap 95% interval over tasks, and the verdicts of each.

    python -m experiments.compare_runs runs/smollm2-before runs/smollm2-sft [--json OUT.json]

A sample counts at its last turn. Tasks are resampled with replacement, each carrying its pass rate
in both runs, so the interval reflects which tasks happened to be drawn; only tasks both runs
evaluated enter. An interval that contains zero shows no measured change."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from statistics import mean

from benchmark.metrics import by_task, final_turns
from benchmark.rundir import verdict_lines
from benchmark.stats import bootstrap_interval, resample_weights
from benchmark.verdict import Verdict


def final_verdicts(run_dir: Path) -> list[Verdict]:
    """Each sample's verdict at its last turn."""
    return final_turns(v for _, v in verdict_lines(run_dir / "results.jsonl") if isinstance(v, Verdict))


def pass_rates(verdicts: list[Verdict]) -> dict[str, float]:
    return {t: mean(v.correct for v in vs) for t, vs in by_task(verdicts).items()}


def compare(before: Path, after: Path, resamples: int = 10000, seed: int = 0) -> dict:
    vb, va = final_verdicts(before), final_verdicts(after)
    rb, ra = pass_rates(vb), pass_rates(va)
    tasks = sorted(set(rb) & set(ra))
    if not tasks:
        raise SystemExit("the two runs share no task")
    diffs = [ra[t] - rb[t] for t in tasks]
    interval = bootstrap_interval(
        [diffs, [1.0] * len(tasks)],
        lambda sums: sums[0] / sums[1],
        resample_weights(len(tasks), resamples, seed),
    )
    return {
        "tasks": tasks,
        "pass_rate_before": mean(rb[t] for t in tasks),
        "pass_rate_after": mean(ra[t] for t in tasks),
        "difference": mean(diffs),
        "ci95": interval.to_list(),
        "verdicts_before": dict(Counter(v.status.value for v in vb if v.task_id in tasks)),
        "verdicts_after": dict(Counter(v.status.value for v in va if v.task_id in tasks)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the comparison here")
    args = ap.parse_args(argv)
    result = compare(args.before, args.after, args.resamples, args.seed)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
