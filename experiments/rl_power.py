"""How likely the RL demonstration is to claim a speed gain it really made: the power of its test-split
comparison (experiments.rl_demo: after - before RL, paired bootstrap 95% interval over tasks, a claim only
where the interval excludes zero), simulated on the CPU for a given shift of the policy's launch size.

RL's lever in the demonstration is the launch size: the SFT answers draw it uniformly from 16 to 4096
blocks, and only the large ones (1024, 4096) run faster than eager PyTorch. A policy that passes a share
`--pass-rate` of its samples and picks a large launch in a share `--large` of them (before RL 40%: two
of the five sizes) is sampled on `--tasks` tasks x `--samples` samples each, before and after, and
the demonstration's `paired_differences` decides whether the speedup and fast_1 (the benchmark's
fast_p at 1: above 1.1x, as no spread is recorded) improved. Each sample's speedup is its launch
size's on the H200 (docs/rl.md: 0.2x at 16 blocks to about 2x at 1024), with 10% noise.
The "no shift" row is the false-claim rate, which the interval keeps near 2.5%.

    python -m experiments.rl_power                                  # the table behind --test-samples 8
    python -m experiments.rl_power --samples 2 4 8 --after 0.55 0.68 0.8 --sims 300
"""

from __future__ import annotations

import argparse
import math
import random

from benchmark.stats import BOOTSTRAP_RESAMPLES
from experiments.rl_demo.differences import paired_differences

# speedup over eager of a passing answer by its launch size: the clusters of the H200's
# evaluations of 2026-12-05 (docs/rl-demo/full-seed0-gate-failed-2026-12-05.json)
SPEEDUP_BY_BLOCKS = {16: 0.2, 64: 0.45, 256: 0.8, 1024: 2.0, 4096: 1.9}
LARGE = (1024, 4096)
SMALL = tuple(b for b in SPEEDUP_BY_BLOCKS if b not in LARGE)


def sample_split(rng: random.Random, tasks: int, samples: int, pass_rate: float, large: float) -> dict:
    """Per task, `samples` [passed, speedup] draws of a policy with this pass rate and large-launch share."""
    per_task = {}
    for t in range(tasks):
        draws = []
        for _ in range(samples):
            if rng.random() >= pass_rate:
                draws.append([False, None])
                continue
            blocks = rng.choice(LARGE if rng.random() < large else SMALL)
            draws.append([True, SPEEDUP_BY_BLOCKS[blocks] * math.exp(rng.gauss(0.0, 0.1))])
        per_task[f"test/t{t:02d}"] = draws
    return per_task


def power(
    tasks: int,
    samples: int,
    pass_rate: float,
    before: float,
    after: float,
    sims: int,
    seed: int,
    resamples: int,
) -> dict[str, float]:
    """The share of simulated before/after pairs in which each metric's improvement is claimed."""
    rng = random.Random(seed)
    claimed = dict.fromkeys(("speedup_geomean", "fast_1"), 0)
    for _ in range(sims):
        b = sample_split(rng, tasks, samples, pass_rate, before)
        a = sample_split(rng, tasks, samples, pass_rate, after)
        diffs = paired_differences(b, a, resamples)
        for metric in claimed:
            claimed[metric] += diffs[metric].improved
    return {metric: n / sims for metric, n in claimed.items()}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=16, help="test tasks (default 16, the demonstration's)")
    p.add_argument("--samples", type=int, nargs="+", default=[2, 4, 8], help="samples per task to compare")
    p.add_argument("--pass-rate", type=float, default=0.6, help="share of samples that pass (default 0.6)")
    p.add_argument("--before", type=float, default=0.4, help="large-launch share before RL (default 0.4)")
    p.add_argument(
        "--after",
        type=float,
        nargs="+",
        default=[0.4, 0.55, 0.68, 0.8],
        help="large-launch shares after RL (default 0.4 0.55 0.68 0.8; 0.68 is what 3e-5 reached on the CPU)",
    )
    p.add_argument(
        "--sims", type=int, default=200, help="simulated before/after pairs per cell (default 200)"
    )
    p.add_argument("--resamples", type=int, default=BOOTSTRAP_RESAMPLES, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    print(f"{args.tasks} tasks, pass rate {args.pass_rate:.0%}, large launches {args.before:.0%} before RL")
    print("| large after | samples per task | speedup claimed | fast_1 claimed |")
    print("|---|---|---|---|")
    for after in args.after:
        for samples in args.samples:
            got = power(
                args.tasks, samples, args.pass_rate, args.before, after, args.sims, args.seed, args.resamples
            )
            label = f"{after:.0%}" + (" (no shift)" if after == args.before else "")
            print(f"| {label} | {samples} | {got['speedup_geomean']:.0%} | {got['fast_1']:.0%} |")


if __name__ == "__main__":
    main()
