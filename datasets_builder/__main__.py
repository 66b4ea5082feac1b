"""Command line of the dataset builder: build the datasets, then publish them to the Hugging Face Hub.

    python -m datasets_builder build --config configs/datasets/h200_500.yaml --out OUT
    python -m datasets_builder publish OUT/dataset --repo solbench/kernels [--private] [--dry-run]

A build writes OUT/dataset (the training data and the task programs, one configuration each, as
docs/datasets.md describes), OUT/suite (the benchmark suite, when configured), OUT/build_stats.json,
OUT/stats.md and OUT/build.log; rerun the same command with the same OUT to continue a build that
was killed or stopped by its time budget."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path

from benchmark.flags import add_api_key_env, add_device, add_out, add_quiet


def _setup_logging(out: Path | None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(out / "build.log"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )


def cmd_build(args) -> int:
    from datasets_builder.build import build
    from datasets_builder.config import load_config

    config = load_config(args.config)
    if args.device:
        config = replace(config, device=args.device)
    if args.workers is not None:
        config = replace(config, validation=replace(config.validation, workers=args.workers))
    if args.budget_minutes is not None:
        config = replace(config, budget=replace(config.budget, minutes=args.budget_minutes))
    if args.target_tasks is not None:
        config = replace(config, budget=replace(config.budget, target_tasks=args.target_tasks))
    if args.teacher_model is not None:
        config = replace(config, teacher=replace(config.teacher, model=args.teacher_model))
    out = args.out or Path("runs") / "datasets" / Path(args.config).stem
    _setup_logging(out)
    result = build(config, out, cache=args.cache, progress=not args.quiet)
    splits = result.stats["splits"]
    sol = result.stats["solutions"]
    print(f"dataset: {result.dataset}")
    if result.suite:
        print(f"suite:   {result.suite}")
    print("splits:  " + ", ".join(f"{k} {v}" for k, v in splits.items()))
    print(
        f"tasks with a kept solution: {sol['tasks_with_solution']} of {sol['tasks_valid']} valid; "
        f"kept solutions {sol['kept_after_decontamination']}; "
        f"contaminated tasks removed {result.stats['decontamination_tasks'].get('removed', 0)}; "
        f"time {result.stats['time']['total_s']:.0f} s"
    )
    return 0


def cmd_publish(args) -> int:
    from datasets_builder.publish import PublishError, publish

    token = os.environ.get(args.api_key_env) if args.api_key_env else None
    try:
        result = publish(args.path, args.repo, private=args.private, dry_run=args.dry_run, token=token)
    except PublishError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(result.summary())
    return 0


def cmd_card(args) -> int:
    from datasets_builder.recard import recard

    recard(args.path)
    print(f"wrote {args.path / 'README.md'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m datasets_builder",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="synthesize, verify and write the datasets (resumable)")
    b.add_argument("--config", required=True, type=Path, help="build config YAML (configs/datasets/*.yaml)")
    add_out(b, "output folder (default: runs/datasets/CONFIG-NAME)")
    b.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="verifier builds, Triton cache and model completions (default OUT/cache)",
    )
    add_device(b, default_text="the config's device")
    b.add_argument(
        "--workers", type=int, default=None, help="override the config's validation.workers (0: in-process)"
    )
    b.add_argument(
        "--budget-minutes",
        type=float,
        default=None,
        help="override the config's budget.minutes (0: no limit)",
    )
    b.add_argument(
        "--target-tasks", type=int, default=None, help="override the config's budget.target_tasks (0: all)"
    )
    b.add_argument(
        "--teacher-model",
        default=None,
        help="override the config's teacher.model (openai:NAME, hf:PATH): the model a rejection "
        "fine-tuning build samples from, say",
    )
    add_quiet(b, old=("--no-progress",))
    b.set_defaults(func=cmd_build)
    u = sub.add_parser("publish", help="upload a dataset folder to the Hugging Face Hub")
    u.add_argument("path", type=Path, help="a dataset folder written by build (OUT/dataset or OUT/suite)")
    u.add_argument("--repo", required=True, help="ORG/NAME of the dataset repository")
    u.add_argument("--private", action="store_true", help="create the repository private")
    u.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be uploaded (repository, files and sizes, configurations, card); upload nothing",
    )
    add_api_key_env(u, default="HF_TOKEN", secret="the Hub token", old=("--token-env",))
    u.set_defaults(func=cmd_publish)
    c = sub.add_parser("card", help="write a training folder's card again from its rows and build statistics")
    c.add_argument("path", type=Path, help="a training folder written by build (OUT/dataset)")
    c.set_defaults(func=cmd_card)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "publish":
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
