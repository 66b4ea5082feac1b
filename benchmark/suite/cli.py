"""The suite's tooling: list, check, measure, document and export a suite of tasks.

python -m benchmark.suite list      [--suite S] [--level N] [--tasks GLOB]  # one line per task, with a header
python -m benchmark.suite validate  [--suite S] [--device cpu|cuda] [--fast] [--json-out F] [--out DIR]
python -m benchmark.suite profile   [--out DIR]                 # on a GPU: peak bandwidth and matrix rates
python -m benchmark.suite manifest  [--suite S] [--out DIR]     # on a GPU: validate, time, SOL -> manifest.json
python -m benchmark.suite recount   [--suite S] [--dry-run]     # on the CPU: least bytes and floors again
python -m benchmark.suite docs      [--suite S] [--out FILE]    # docs/suite.md from the suite and manifest
python -m benchmark.suite export    --out DIR                   # the suite as a Hub-layout parquet dataset

S is a folder of task files or hf:ORG/NAME[@REV]; without --suite, the built-in suite. validate and
manifest skip, with the reason, a task whose `requires` the device lacks (FP8 tensor cores on a GPU
older than compute capability 8.9): it is neither passed nor failed, and the manifest keeps no
measurement of it for that GPU."""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from benchmark.environment import torch_versions
from benchmark.flags import SUITE_HELP, add_device, add_out, add_quiet
from benchmark.suite.catalog import Suite, load_suite
from benchmark.task import Task

log = logging.getLogger(__name__)


def _setup_logging(out: Path | None, command: str) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(out / f"{command}.log", mode="w"))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _gpu_name(device: str) -> str:
    import torch

    dev = torch.device(device)
    return torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"


def _select(args) -> tuple[Suite, list[Task]]:
    suite = load_suite(args.suite)
    tasks = suite.select(args.level or None, args.tags or None, args.tasks or None)
    if not tasks and not suite.errors:
        raise SystemExit(f"error: no task in {suite.root} matches the selection")
    return suite, tasks


def _emit(text: str, out: Path | None, name: str) -> None:
    """Print a result table and keep a copy beside the logs."""
    print(text)
    if out is not None:
        (out / name).write_text(text + "\n")


def _write_json(data, path: Path | None) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1) + "\n")
        log.info("wrote %s", path)


LIST_COLUMNS = (("task", 56), ("level", 6), ("dtype", 9), ("difficulty", 11), ("tags", 0))
LIST_HEADER = "".join(f"{name:<{width}}" for name, width in LIST_COLUMNS).rstrip()
LIST_LEGEND = "difficulty 1 (easy) to 3 (hard), '-' where the task does not say; level '?' likewise"


def list_row(task: Task) -> str:
    """One task under LIST_HEADER's columns."""
    values = (
        task.task_id,
        task.level if task.level is not None else "?",
        task.dtype,
        task.difficulty if task.difficulty is not None else "-",
        ",".join(task.tags),
    )
    return "".join(
        f"{v!s:<{width}}" if width else str(v) for v, (_, width) in zip(values, LIST_COLUMNS, strict=True)
    ).rstrip()


def cmd_list(args) -> int:
    suite, tasks = _select(args)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "task_id": t.task_id,
                        "level": t.level,
                        "dtype": t.dtype,
                        "tags": list(t.tags),
                        "difficulty": t.difficulty,
                    }
                    for t in tasks
                ],
                indent=1,
            )
        )
        return 0
    print(LIST_HEADER)
    for t in tasks:
        print(list_row(t))
    print(f"{len(tasks)} tasks in {suite.root} (version {suite.version}); {LIST_LEGEND}")
    for e in suite.errors:
        print(f"unreadable: {e}")
    return 1 if suite.errors else 0


def _validation_config(args, measure: bool, baselines: bool = False):
    from benchmark.suite.validate import ValidationConfig, validation_timing

    timing = replace(validation_timing(), max_seconds=args.timing_seconds)
    return ValidationConfig(
        device=args.device or _default_device(),
        fast=getattr(args, "fast", False),
        seed=args.seed,
        measure=measure,
        task_timeout_s=args.timeout,
        timing=timing,
        baselines=baselines,
    )


def cmd_validate(args) -> int:
    from benchmark.suite.validate import format_table, load_error_report, validate_tasks

    suite, tasks = _select(args)
    config = _validation_config(args, measure=not args.fast)
    log.info(
        "validating %d tasks of %s on %s%s",
        len(tasks),
        suite.root,
        config.device,
        " (fast)" if config.fast else "",
    )
    reports = validate_tasks(tasks, config, progress=not args.quiet)
    reports += [load_error_report(e) for e in suite.errors]
    _emit(format_table(reports), args.out, "validate.txt")
    json_out = args.json_out or (args.out / "validate.json" if args.out else None)
    _write_json(
        {
            "suite": str(suite.root),
            "suite_version": suite.version,
            "device": config.device,
            "fast": config.fast,
            "reports": [r.to_dict() for r in reports],
        },
        json_out,
    )
    return 1 if any(r.failed for r in reports) else 0


def cmd_profile(args) -> int:
    import torch

    from benchmark.evaluate.device_profile import DEVICES_DIR, measure_profile, save_profile

    if not torch.cuda.is_available():
        raise SystemExit("error: profile measures a GPU, and no CUDA device is available")
    profile = measure_profile("cuda")
    path = save_profile(profile, args.devices_dir or DEVICES_DIR)
    log.info(
        "%s: copy %.2f TB/s; matmul TFLOP/s %s",
        profile.gpu,
        profile.bandwidth / 1e12,
        {k: round(v / 1e12, 1) for k, v in profile.matmul.items()},
    )
    log.info("wrote %s", path)
    if args.out:
        shutil.copy(path, args.out / path.name)
    print(json.dumps(profile.to_dict(), indent=2))
    return 0


def cmd_manifest(args) -> int:
    from benchmark.evaluate.device_profile import (
        DEVICES_DIR,
        load_profile,
        measure_profile,
        save_profile,
    )
    from benchmark.host import slugify
    from benchmark.suite.manifest import load_manifest, manifest_path_for, merge
    from benchmark.suite.validate import format_table, validate_tasks

    suite, tasks = _select(args)
    config = _validation_config(args, measure=True, baselines=not args.no_baselines)
    gpu = _gpu_name(config.device)
    devices_dir = args.devices_dir or DEVICES_DIR
    profile = load_profile(gpu, devices_dir)
    if profile is None and config.cuda:
        log.info("no stored profile for %s: measuring it first", gpu)
        profile = measure_profile(config.device)
        path = save_profile(profile, devices_dir)
        if args.out:
            shutil.copy(path, args.out / path.name)
    if profile is None:
        log.warning("no device profile for %s: SOL times are left empty", gpu)
    manifest_path = args.manifest or manifest_path_for(suite.root)
    state = {"manifest": load_manifest(manifest_path), "pending": []}
    if args.resume:
        slug = slugify(gpu)
        done = {t.task_id for t in tasks if _measured_valid(state["manifest"].entry(t), slug)}
        tasks = [t for t in tasks if t.task_id not in done]
        log.info("resuming: %d tasks already measured valid on %s are skipped", len(done), gpu)
    log.info("measuring %d tasks of %s on %s into %s", len(tasks), suite.root, gpu, manifest_path)

    def checkpoint(prune: bool = False) -> None:
        """Merge and save what is measured so far, so a run cut short keeps its results."""
        state["manifest"] = merge(
            state["manifest"], suite, state["pending"], gpu, profile, torch_versions(), prune=prune
        )
        state["pending"] = []
        state["manifest"].save(manifest_path)
        if args.out:
            shutil.copy(manifest_path, args.out / "manifest.json")

    def on_report(report) -> None:
        state["pending"].append(report)
        if len(state["pending"]) >= args.checkpoint_every:
            checkpoint()

    reports = validate_tasks(tasks, config, progress=not args.quiet, on_report=on_report)
    # A run over part of the suite keeps the other entries; a full run drops entries of removed tasks.
    checkpoint(prune=len(tasks) == len(suite.tasks))
    log.info("wrote %s", manifest_path)
    _emit(format_table(reports), args.out, "manifest.txt")
    json_out = args.json_out or (args.out / "validate.json" if args.out else None)
    _write_json(
        {
            "suite": str(suite.root),
            "suite_version": suite.version,
            "device": config.device,
            "gpu": gpu,
            "fast": False,
            "reports": [r.to_dict() for r in reports],
        },
        json_out,
    )
    return 1 if any(r.failed for r in reports) or suite.errors else 0


def _measured_valid(entry, gpu_slug: str) -> bool:
    """Whether a manifest entry holds a valid measurement on this GPU (what `--resume` may skip)."""
    rec = entry.gpus.get(gpu_slug) if entry is not None else None
    return rec is not None and rec.valid


def cmd_recount(args) -> int:
    from benchmark.evaluate.device_profile import DEVICES_DIR, load_profiles
    from benchmark.suite.manifest import load_manifest, manifest_path_for, recount

    suite = load_suite(args.suite)
    tasks = suite.select(args.level or None, args.tags or None, args.tasks or None)
    path = args.manifest or manifest_path_for(suite.root)
    manifest, changed = recount(load_manifest(path), tasks, load_profiles(args.devices_dir or DEVICES_DIR))
    for task_id, (before, after) in sorted(changed.items()):
        print(
            f"{task_id}: {before} -> {after} bytes ({after / before:.4f})"
            if before
            else f"{task_id}: {after} bytes"
        )
    print(f"{len(changed)} of {len(tasks)} tasks counted anew")
    if changed and not args.dry_run:
        manifest.save(path)
        log.info("wrote %s", path)
    return 0


def cmd_docs(args) -> int:
    from benchmark.suite.docs import render
    from benchmark.suite.manifest import load_manifest, manifest_path_for

    suite = load_suite(args.suite)
    manifest = load_manifest(args.manifest or manifest_path_for(suite.root))
    text = render(suite, manifest, gpu=args.gpu)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    log.info("wrote %s", args.out)
    return 0


def cmd_export(args) -> int:
    from benchmark.suite.dataset import export_suite
    from benchmark.suite.manifest import load_manifest, manifest_path_for

    suite = load_suite(args.suite)
    manifest = load_manifest(args.manifest or manifest_path_for(suite.root))
    path = export_suite(suite, args.out, manifest)
    log.info("wrote the suite (%d tasks) as a dataset under %s", len(suite.tasks), path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmark.suite",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)

    def suite_args(sp, select: bool = True):
        sp.add_argument("--suite", default=None, help=SUITE_HELP)
        if select:
            sp.add_argument(
                "--level", type=int, action="append", default=[], help="only this level (repeatable)"
            )
            sp.add_argument(
                "--tasks", action="append", default=[], help="glob on task id or file name (repeatable)"
            )
            sp.add_argument(
                "--tag",
                "--tags",
                dest="tags",
                action="append",
                default=[],
                help="only tasks with this tag (repeatable)",
            )

    def run_args(sp):
        add_device(sp)
        sp.add_argument("--seed", type=int, default=0, help="model seed; inputs use seed + 1000 and up")
        sp.add_argument("--timeout", type=float, default=300.0, help="seconds per task")
        sp.add_argument("--timing-seconds", type=float, default=0.3, help="timing budget per task reference")
        sp.add_argument("--json-out", type=Path, default=None, help="write every task's report as JSON")
        add_out(sp, "folder for the log, table and JSON report")
        add_quiet(sp, old=("--no-progress",))

    devices_help = "folder of device profiles (default: the profiles shipped with the benchmark)"
    manifest_help = "the suite's measurements file (default: manifest.json in the suite folder)"

    sp = sub.add_parser(
        "list",
        help="list the tasks of a suite",
        description="One line per task: its id, level, dtype, difficulty (1 easy to 3 hard) and tags.",
    )
    suite_args(sp)
    sp.add_argument("--json", action="store_true", help="the list as JSON instead of a table")
    sp.set_defaults(func=cmd_list, out=None)

    sp = sub.add_parser("validate", help="check that every task is sound (exit 1 if any is not)")
    suite_args(sp)
    run_args(sp)
    sp.add_argument(
        "--fast", action="store_true", help="alternate (small) shapes where declared; no time bounds"
    )
    sp.set_defaults(func=cmd_validate)

    sp = sub.add_parser("profile", help="measure this GPU's peak bandwidth and matrix rates")
    sp.add_argument("--devices-dir", type=Path, default=None, help=devices_help)
    add_out(sp, "folder for the log and a copy of the profile")
    sp.set_defaults(func=cmd_profile)

    sp = sub.add_parser("manifest", help="validate, time and count every task; merge into manifest.json")
    suite_args(sp)
    run_args(sp)
    sp.add_argument("--manifest", type=Path, default=None, help=manifest_help)
    sp.add_argument("--devices-dir", type=Path, default=None, help=devices_help)
    sp.add_argument(
        "--checkpoint-every", type=int, default=20, help="save the manifest after this many tasks"
    )
    sp.add_argument(
        "--no-baselines",
        action="store_true",
        help="do not time the production baselines (torch.compile max-autotune, SDPA backends, Liger); "
        "the ones already in the manifest for this GPU are kept",
    )
    sp.add_argument(
        "--resume",
        action="store_true",
        help="skip tasks already measured valid on this GPU (same file hash); invalid ones are "
        "measured again, as a harness fix may change them",
    )
    sp.set_defaults(func=cmd_manifest)

    sp = sub.add_parser(
        "recount",
        help="count each task's least bytes again on the CPU and refresh each GPU's floor (after the "
        "byte counting changed; FLOPs, times and validity stay as measured)",
    )
    suite_args(sp)
    sp.add_argument("--manifest", type=Path, default=None, help=manifest_help)
    sp.add_argument("--devices-dir", type=Path, default=None, help=devices_help)
    sp.add_argument("--dry-run", action="store_true", help="print what would change, write nothing")
    sp.set_defaults(func=cmd_recount, out=None)

    sp = sub.add_parser("docs", help="write the suite's tables (docs/suite.md)")
    suite_args(sp, select=False)
    sp.add_argument("--manifest", type=Path, default=None, help=manifest_help)
    sp.add_argument(
        "--gpu",
        default=None,
        help="GPU to report, as named in the manifest (default: the one with most tasks)",
    )
    add_out(
        sp, "the page to write (default: docs/suite.md)", default=Path("docs/suite.md"), old=("--output",)
    )
    sp.set_defaults(func=cmd_docs)

    sp = sub.add_parser("export", help="write the suite as a Hub-layout parquet dataset folder")
    suite_args(sp, select=False)
    sp.add_argument("--manifest", type=Path, default=None, help=manifest_help)
    add_out(sp, "folder to write the dataset into", required=True)
    sp.set_defaults(func=cmd_export)
    return p


LOGGED_BESIDE_OUT = ("validate", "profile", "manifest")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # The log goes beside the output of the commands whose --out is a folder for their reports.
    _setup_logging(args.out if args.command in LOGGED_BESIDE_OUT else None, args.command)
    try:
        return args.func(args)
    except FileNotFoundError as e:
        log.error("%s", e)
        return 2


if __name__ == "__main__":
    sys.exit(main())
