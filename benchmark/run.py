"""Run a model over the suite: `python -m benchmark.run --model reference --level 1`.

Rerunning the same command resumes: samples already in OUT/results.jsonl are skipped."""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
from pathlib import Path

from benchmark.harness import EvalConfig, default_device
from benchmark.runner import RunConfig, SamplingParams, format_table, run


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmark.run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("what to run")
    g.add_argument("--model", required=True, help="reference | replay:FILE.jsonl | other registered backends")
    g.add_argument("--suite", default=None, help="folder of task files (default: the built-in suite)")
    g.add_argument("--level", type=int, action="append", default=[], help="level to run (repeatable)")
    g.add_argument("--tasks", action="append", default=[], help="glob on task id or file name (repeatable)")
    g.add_argument("--tag", action="append", default=[], help="only tasks with this tag (repeatable)")
    g = p.add_argument_group("sampling")
    g.add_argument("--samples", type=int, default=1, help="completions per task (K)")
    g.add_argument("--temperature", type=float, default=0.0)
    g.add_argument("--top-p", type=float, default=1.0)
    g.add_argument("--max-tokens", type=int, default=8192)
    g.add_argument("--seed", type=int, default=None, help="sampling seed, where the backend supports one")
    g.add_argument("--k", type=int, action="append", default=[], help="Pass@k to report (default 1)")
    g = p.add_argument_group("evaluation")
    g.add_argument("--device", choices=("cpu", "cuda"), default=None, help="default: cuda when available")
    g.add_argument("--baseline", choices=("eager", "compile"), default="eager",
                   help="'compile' also times torch.compile of the reference")
    g.add_argument("--trials", type=int, default=5, help="correctness trials with fresh inputs")
    g.add_argument("--timeout", type=float, default=300.0, help="seconds per sample, build included")
    g.add_argument("--no-strict", action="store_true", help="report anti-cheat flags without failing samples")
    g.add_argument("--no-timing", action="store_true", help="check correctness only")
    g = p.add_argument_group("output")
    g.add_argument("--out", type=Path, default=None, help="run directory (default: runs/MODEL)")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def config_from_args(args: argparse.Namespace, argv: list[str]) -> RunConfig:
    device = args.device or default_device()
    out = args.out or Path("runs") / args.model.replace(":", "_").replace("/", "_")
    return RunConfig(
        model=args.model,
        out=out,
        suite=args.suite,
        levels=tuple(args.level),
        tasks=tuple(args.tasks),
        tags=tuple(args.tag),
        sampling=SamplingParams(args.samples, args.temperature, args.top_p, args.max_tokens, args.seed),
        eval=EvalConfig(
            device=device, trials=args.trials, baseline=args.baseline, measure=not args.no_timing,
            strict=not args.no_strict, timeout_s=args.timeout,
        ),
        ks=tuple(sorted(set(args.k or [1]))),
        command=shlex.join(["python", "-m", "benchmark.run", *argv]),
        progress=not args.quiet,
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    config = config_from_args(args, argv)
    try:
        summary = run(config)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(format_table(summary))
    print(f"results: {config.out}/results.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
