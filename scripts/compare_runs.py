"""Two runs of benchmark.run on the same tasks, before and after training: the pass rate of each,
the difference with a paired bootstrap 95% interval over tasks, and the verdicts of each.

    python scripts/compare_runs.py runs/smollm2-before runs/smollm2-sft [--json OUT.json]

A sample counts at its last turn. Tasks are resampled with replacement, each carrying its pass rate
in both runs, so the interval reflects which tasks happened to be drawn; only tasks both runs
evaluated enter. An interval that contains zero shows no measured change."""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from statistics import mean


def last_turns(run_dir: Path) -> dict[tuple[str, int], str]:
    """(task, sample) -> the verdict of its last turn."""
    last: dict[tuple[str, int], tuple[int, str]] = {}
    for line in (run_dir / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        key = (r["task_id"], r["sample"])
        if key not in last or r["turn"] >= last[key][0]:
            last[key] = (r["turn"], r["verdict"])
    return {k: v for k, (_, v) in last.items()}


def pass_rates(verdicts: dict[tuple[str, int], str]) -> dict[str, float]:
    per_task = defaultdict(list)
    for (task, _), v in verdicts.items():
        per_task[task].append(v == "pass")
    return {t: mean(p) for t, p in per_task.items()}


def compare(before: Path, after: Path, resamples: int = 10000, seed: int = 0) -> dict:
    vb, va = last_turns(before), last_turns(after)
    rb, ra = pass_rates(vb), pass_rates(va)
    tasks = sorted(set(rb) & set(ra))
    if not tasks:
        raise SystemExit("the two runs share no task")
    diffs = [ra[t] - rb[t] for t in tasks]
    rng = random.Random(seed)
    boots = sorted(mean(rng.choices(diffs, k=len(diffs))) for _ in range(resamples))
    return {
        "tasks": tasks,
        "pass_rate_before": mean(rb[t] for t in tasks),
        "pass_rate_after": mean(ra[t] for t in tasks),
        "difference": mean(diffs),
        "ci95": [boots[int(0.025 * resamples)], boots[int(0.975 * resamples) - 1]],
        "verdicts_before": dict(Counter(v for (t, _), v in vb.items() if t in tasks)),
        "verdicts_after": dict(Counter(v for (t, _), v in va.items() if t in tasks)),
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
