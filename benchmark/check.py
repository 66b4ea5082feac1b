"""Evaluate one candidate file against one task file:
`python -m benchmark.check --task TASK.py --candidate CANDIDATE.py [--json]`.

Exits 0 whatever the verdict; 2 when the command itself is misused or asks for a device (`--device
cuda`) this machine does not have."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmark.evaluate.arguments import add_evaluation_arguments, eval_config
from benchmark.evaluate.device_check import DeviceUnavailable, require_device
from benchmark.evaluate.harness import TaskError, evaluate
from benchmark.host import default_device
from benchmark.task import TaskLoadError, load_task


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmark.check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--task", required=True, type=Path, help="task file (Model, get_inputs, get_init_inputs)")
    p.add_argument("--candidate", required=True, type=Path, help="candidate file defining ModelNew")
    add_evaluation_arguments(p)
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
    config = eval_config(args, device)
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
