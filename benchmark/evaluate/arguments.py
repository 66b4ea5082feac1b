"""The evaluation flags of the command lines that evaluate (`benchmark.run`, `benchmark.check`),
declared once, and the EvalConfig they give."""

from __future__ import annotations

import argparse

from benchmark.evaluate.harness import EvalConfig
from benchmark.flags import add_device


def add_evaluation_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    add_device(parser)
    parser.add_argument(
        "--baseline",
        choices=("eager", "compile"),
        default="eager",
        help="'compile' also times torch.compile of the reference",
    )
    parser.add_argument(
        "--trials", type=int, default=EvalConfig.trials, help="correctness trials with fresh inputs"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=EvalConfig.timeout_s,
        help="run limit in seconds: the checks and timing of one sample",
    )
    parser.add_argument(
        "--build-timeout",
        type=float,
        default=EvalConfig.build_timeout_s,
        help="build limit in seconds: compiling the candidate's extensions (waits for other builds are free)",
    )
    parser.add_argument("--no-strict", action="store_true", help="report anti-cheat flags without failing")
    parser.add_argument("--no-timing", action="store_true", help="check correctness only")


def eval_config(args: argparse.Namespace, device: str) -> EvalConfig:
    """The EvalConfig of the flags above, on `device` (resolved by the caller: it checks it exists)."""
    return EvalConfig(
        device=device,
        trials=args.trials,
        baseline=args.baseline,
        measure=not args.no_timing,
        strict=not args.no_strict,
        timeout_s=args.timeout,
        build_timeout_s=args.build_timeout,
    )
