"""Evaluate one candidate file against one task file:
`python -m benchmark.check --task TASK.py --candidate CANDIDATE.py [--json]`.

Exits 0 whatever the verdict; 2 when the command itself is misused or asks for a device (`--device
cuda`) this machine does not have."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmark.evaluate import harness
from benchmark.evaluate.device_check import DeviceUnavailable, require_device
from benchmark.evaluate.harness import EvalConfig, TaskError, default_device, evaluate
from benchmark.task import TaskLoadError, load_task


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmark.check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--task", required=True, type=Path, help="task file (Model, get_inputs, get_init_inputs)")
    p.add_argument("--candidate", required=True, type=Path, help="candidate file defining ModelNew")
    p.add_argument("--device", choices=("cpu", "cuda"), default=None, help="default: cuda when available")
    p.add_argument("--baseline", choices=("eager", "compile"), default="eager")
    p.add_argument("--trials", type=int, default=harness.EvalConfig.trials)
    p.add_argument(
        "--timeout",
        type=float,
        default=harness.EvalConfig.timeout_s,
        help="run limit in seconds: the checks and timing",
    )
    p.add_argument(
        "--build-timeout",
        type=float,
        default=harness.EvalConfig.build_timeout_s,
        help="build limit in seconds: compiling the candidate's extensions (waits for other builds are free)",
    )
    p.add_argument("--no-strict", action="store_true", help="report anti-cheat flags without failing")
    p.add_argument("--no-timing", action="store_true", help="check correctness only")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON on the last line")
    args = p.parse_args(argv)
    device = args.device or default_device()
    try:
        require_device(device)
    except DeviceUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not args.candidate.is_file():
        print(f"error: candidate file {args.candidate} does not exist", file=sys.stderr)
        return 2
    try:
        task = load_task(args.task)
    except TaskLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    config = EvalConfig(
        device=device,
        trials=args.trials,
        baseline=args.baseline,
        measure=not args.no_timing,
        strict=not args.no_strict,
        timeout_s=args.timeout,
        build_timeout_s=args.build_timeout,
    )
    try:
        verdict = evaluate(task, args.candidate.read_text(), config)
    except TaskError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(verdict.summary())
    if args.json:
        print(verdict.to_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
