"""Two runs of benchmark.run on the same tasks, before and after training: the pass rate of each,
the difference with a paired bootstrap 95% interval over tasks, and the verdicts of each.

    python -m experiments.compare_runs runs/smollm2-before runs/smollm2-sft [--json OUT.json]

A sample counts at its last turn. Tasks are resampled with replacement, each carrying its samples
in both runs, so the interval reflects which tasks happened to be drawn; only tasks both runs
evaluated enter. An interval that contains zero shows no measured change. Besides the pass rate,
"differences" holds fast_1 and the speedup's geomean the same way.

Two training arms, one run per training seed each (CuSeT against plain SFT, say):

    python -m experiments.compare_runs --base PLAIN_S0 PLAIN_S1 PLAIN_S2 --other CUSET_S0 CUSET_S1 CUSET_S2

gives other - base of pass@1, fast_1 and the speedup's geomean with a two-level bootstrap interval
(each resample draws each arm's seeds, then the tasks, paired: experiments.rl_demo.differences), so
the variance between training runs is in the interval."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from benchmark.metrics import by_task, final_turns
from benchmark.rundir import verdict_lines
from benchmark.verdict import Verdict
from experiments.rl_demo.differences import seed_task_differences
from experiments.rl_demo.metrics import split_metrics


def final_verdicts(run_dir: Path) -> list[Verdict]:
    """Each sample's verdict at its last turn."""
    return final_turns(v for _, v in verdict_lines(run_dir / "results.jsonl") if isinstance(v, Verdict))


def compare(before: Path, after: Path, resamples: int = 10000, seed: int = 0) -> dict:
    """after - before: `compare_arms` with one run a side (the interval over tasks alone), and each
    run's verdicts on the tasks both have."""
    arms = compare_arms([before], [after], resamples, seed)
    tasks, passed = arms["tasks"], arms["differences"]["pass_rate"]
    counts = [
        Counter(v.status.value for v in final_verdicts(run) if v.task_id in tasks) for run in (before, after)
    ]
    return {
        "tasks": tasks,
        "pass_rate_before": arms["base"]["pass_rate"][0],
        "pass_rate_after": arms["other"]["pass_rate"][0],
        "difference": passed["value"],
        "ci95": passed["interval"],
        "differences": arms["differences"],
        "verdicts_before": dict(counts[0]),
        "verdicts_after": dict(counts[1]),
    }


def samples_by_task(verdicts: list[Verdict]) -> dict[str, list]:
    """A run's samples as [passed, speedup] per task, as the two-level bootstrap reads them."""
    return {
        t: [[v.correct, v.speedup if v.correct else None] for v in vs] for t, vs in by_task(verdicts).items()
    }


def compare_arms(base: list[Path], other: list[Path], resamples: int = 10000, seed: int = 0) -> dict:
    """other - base, each arm one run per training seed on the same tasks (those every run has), every
    metric with its two-level bootstrap 95% interval over seeds and tasks; a change is claimed only
    where the interval excludes zero."""
    sides = [[samples_by_task(final_verdicts(run)) for run in runs] for runs in (base, other)]
    tasks = sorted(set.intersection(*(set(run) for runs in sides for run in runs)))
    if not tasks:
        raise SystemExit("the runs share no task")
    sides = [[{t: run[t] for t in tasks} for run in runs] for runs in sides]
    differences = seed_task_differences(sides[0], sides[1], resamples, seed)
    return {
        "tasks": tasks,
        **{
            name: {
                "runs": [str(r) for r in runs],
                "pass_rate": [split_metrics(run)["pass_rate"] for run in side],
            }
            for name, runs, side in (("base", base, sides[0]), ("other", other, sides[1]))
        },
        "differences": {metric: d.to_dict() for metric, d in differences.items()},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path, nargs="?")
    ap.add_argument("after", type=Path, nargs="?")
    ap.add_argument("--base", type=Path, nargs="+", help="one arm's runs, one per training seed")
    ap.add_argument("--other", type=Path, nargs="+", help="the other arm's runs, compared with --base")
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the comparison here")
    args = ap.parse_args(argv)
    if args.base or args.other:
        if not (args.base and args.other) or args.before or args.after:
            ap.error("give --base and --other together, without BEFORE and AFTER")
        result = compare_arms(args.base, args.other, args.resamples, args.seed)
    elif args.before and args.after:
        result = compare(args.before, args.after, args.resamples, args.seed)
    else:
        ap.error("give BEFORE and AFTER, or --base and --other")
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
