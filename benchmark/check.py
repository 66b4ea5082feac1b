"""Evaluate one candidate file against one task file:
`python -m benchmark.check --task TASK.py --candidate CANDIDATE.py [--json]`.

Exits 0 whatever the verdict; 2 when the command itself is misused, a file is missing, the task
itself fails, or it asks for a device (`--device cuda`) this machine does not have; 3 when the task
is skipped on this device, which lacks what it requires (FP8 tensor cores on a GPU older than
compute capability 8.9), with the reason in one line. With --json the last line on stdout is always
one JSON object: the verdict, {"verdict": null, "error": "..."}, or {"verdict": null, "skipped": "..."}."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmark.evaluate.arguments import add_evaluation_arguments, eval_config
from benchmark.evaluate.device_check import DeviceUnavailable, require_device, unmet_requirement
from benchmark.evaluate.harness import TaskError, evaluate
from benchmark.host import default_device
from benchmark.task import TaskLoadError, load_task

SKIPPED = 3  # exit status of a task this device cannot run


class _Parser(argparse.ArgumentParser):
    """Usage errors also answer as a JSON line when --json was asked for."""

    json_errors = False

    def error(self, message: str):
        if self.json_errors:
            print(json.dumps({"verdict": None, "error": message}))
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m benchmark.check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--task", required=True, type=Path, help="task file (Model, get_inputs, get_init_inputs)")
    p.add_argument("--candidate", required=True, type=Path, help="candidate file defining ModelNew")
    add_evaluation_arguments(p)
    p.add_argument(
        "--json",
        action="store_true",
        help='print the verdict as one JSON line, last on stdout (on an error: {"verdict": null, "error": ...})',
    )
    return p


def _fail(message: str, as_json: bool) -> int:
    """Exit status 2 with the error on stderr and, for --json, as a JSON line on stdout."""
    print(f"error: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"verdict": None, "error": message}))
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = build_parser()
    p.json_errors = "--json" in argv
    args = p.parse_args(argv)
    device = args.device or default_device()
    try:
        require_device(device)
    except DeviceUnavailable as e:
        return _fail(str(e), args.json)
    if not args.candidate.is_file():
        return _fail(f"candidate file {args.candidate} does not exist", args.json)
    try:
        task = load_task(args.task)
    except TaskLoadError as e:
        return _fail(str(e), args.json)
    skipped = unmet_requirement(task.requires, device)
    if skipped is not None:
        print(f"skipped: {task.task_id} on {device}: {skipped}")
        if args.json:
            print(json.dumps({"verdict": None, "skipped": skipped}))
        return SKIPPED
    config = eval_config(args, device)
    try:
        verdict = evaluate(task, args.candidate.read_text(), config)
    except TaskError as e:
        return _fail(str(e), args.json)
    except Exception as e:
        if args.json:  # an unforeseen failure keeps its traceback, and the JSON line still comes
            print(json.dumps({"verdict": None, "error": f"{type(e).__name__}: {e}"}))
        raise
    print(verdict.summary())
    if args.json:
        print(verdict.to_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
