"""Where a `benchmark.run`'s device time went, read from its results.jsonl (a script, not a test): per
level, the samples' exclusive holds of the device summed and split as each verdict's
`timing_hold_s` splits them (the wait for the hold, then warm-up, timed rounds, the reference's time
alone and the rest), the timing tries beyond the first and what they held; and, for a run of the
reference against itself, how far its speedups stray from 1 by call time (the noise the judge's
spread must cover).

    python scripts/run_holds.py RUN_DIR [RUN_DIR ...]

The lanes' exclusive holds follow one another, so their sum bounds the run's wall time from below."""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

from benchmark.evaluate.judge import HOLD_PARTS, hold_parts
from benchmark.metrics import is_faster, noise_margin
from benchmark.rundir import verdict_lines
from benchmark.verdict import Verdict

BANDS_MS = (0.3, 1.0, 5.0)  # upper ends of the call-time bands of the noise table; the last is open
BAND_NAMES = [
    *(f"{lo:g}-{hi:g} ms" for lo, hi in zip((0.0, *BANDS_MS[:-1]), BANDS_MS, strict=True)),
    f"over {BANDS_MS[-1]:g} ms",
]


def summarize(verdicts: list[Verdict]) -> list[str]:
    lines = []
    by_level: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_level[f"level{v.level}" if v.level is not None else "?"].append(v)
    header = f"{'scope':8} {'samples':>7} {'alone s':>8} " + " ".join(f"{p:>8}" for p in HOLD_PARTS)
    lines.append(header + f" {'retried':>7} {'their s':>8}")
    for scope, vs in [*sorted(by_level.items()), ("all", verdicts)]:
        tries = [hold_parts(v.env) for v in vs]
        sums = {p: sum(t.get(p, 0.0) for ts in tries for t in ts) for p in HOLD_PARTS}
        retried = [v for v in vs if int(v.env.get("timing_tries", "1")) > 1]
        retried_s = sum(v.phases.alone_s for v in retried if v.phases)
        alone = sum(v.phases.alone_s for v in vs if v.phases)
        lines.append(
            f"{scope:8} {len(vs):7d} {alone:8.1f} "
            + " ".join(f"{sums[p]:8.1f}" for p in HOLD_PARTS)
            + f" {len(retried):7d} {retried_s:8.1f}"
        )
    return lines


def self_noise(verdicts: list[Verdict]) -> list[str]:
    """A run of the reference against itself: per band of the reference's time alone, the samples,
    the standard deviation of log speedup and how many lie beyond their own spread either way."""
    rows = defaultdict(list)
    for v in verdicts:
        if v.speedup and v.reference_alone_time is not None:
            rows[bisect.bisect_right(BANDS_MS, v.reference_alone_time.median_ms)].append(v)
    lines = [f"{'band':>12} {'samples':>7} {'sd log':>7} {'faster':>6} {'slower':>6}"]
    for k, vs in sorted(rows.items()):
        logs = [math.log(v.speedup) for v in vs]
        faster = sum(is_faster(v, 1.0) for v in vs)
        slower = sum(v.speedup < 1 / (1 + noise_margin(v)) for v in vs)
        sd = statistics.pstdev(logs) if len(logs) > 1 else 0.0
        lines.append(f"{BAND_NAMES[k]:>12} {len(vs):7d} {sd:7.4f} {faster:6d} {slower:6d}")
    return lines


def wall(run: Path) -> str:
    """ ", about N s from start to the last verdict" (run.json's start, results.jsonl's last write)."""
    try:
        started = json.loads((run / "run.json").read_text())["started"]
        last = (run / "results.jsonl").stat().st_mtime
    except (OSError, KeyError, ValueError):
        return ""
    return f", about {last - dt.datetime.fromisoformat(started).timestamp():.0f} s from start to the last verdict"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", type=Path, nargs="+", help="benchmark.run output folders")
    args = ap.parse_args(argv)
    for run in args.runs:
        verdicts = [v for _, v in verdict_lines(run / "results.jsonl") if isinstance(v, Verdict)]
        print(f"{run}: {len(verdicts)} verdicts{wall(run)}; exclusive holds in seconds")
        print("\n".join(summarize(verdicts)))
        if verdicts and all(v.model == "reference" for v in verdicts):
            print("the reference against itself, by its time alone:")
            print("\n".join(self_noise(verdicts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
