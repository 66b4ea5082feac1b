"""Render a written training folder's card (README.md) again, from the folder alone: its rows and
its build_stats.json, through the same code a build writes the card with (export.write_train_card).
For a change of the card's code or templates after a build, without the GPU or the build's journals;
the data files are left as they are.

    python -m datasets_builder.recard data/solbench-kernels

The task tables (benchmark.suite.docs.statistics) need the tasks and their measurements: the tasks
come from the `tasks` configuration, their eager times and floors from its per-GPU columns, the
device record of those measurements from build_stats.json (`manifest_devices`), and each task's
family from the `rl_prompts` rows (one per valid task)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import datasets
import pyarrow.parquet as pq
from huggingface_hub import DatasetCard

from benchmark.suite import docs as suite_docs
from benchmark.suite import load_suite
from benchmark.suite.dataset import materialize
from benchmark.suite.manifest import DeviceRun, load_manifest, manifest_path_for
from datasets_builder.export import train_files, write_train_card
from datasets_builder.schema import CONFIGS, TASKS_CONFIG


def _rows(file: Path) -> datasets.Dataset:
    return datasets.Dataset(pq.read_table(file))  # read in memory: nothing written to the datasets cache


def task_tables(files: dict[str, Path], stats: dict) -> list[str]:
    """The card's task tables, from the `tasks` rows, the families of the `rl_prompts` rows and the
    device record in the build's statistics."""
    if TASKS_CONFIG not in files:
        return []
    families = {}
    for config in ("rl_prompts", "rft", "sft"):
        if config in files:
            for r in _rows(files[config]).select_columns(["task_id", "family"]):
                families.setdefault(r["task_id"], r["family"])
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(_rows(files[TASKS_CONFIG]), Path(tmp) / "tasks")
        suite = load_suite(root)
        manifest = load_manifest(manifest_path_for(root))
        devices = {slug: DeviceRun(**run) for slug, run in (stats.get("manifest_devices") or {}).items()}
        manifest = replace(manifest, devices=devices)
        return suite_docs.statistics(list(suite.tasks), manifest, families=families)


def recard(folder: str | Path) -> DatasetCard:
    """Write the folder's README.md again from its rows and build_stats.json; return the card."""
    folder = Path(folder)
    stats_file = folder / "build_stats.json"
    if not stats_file.is_file():
        raise FileNotFoundError(f"{stats_file} is missing: is {folder} a training folder written by a build?")
    stats = json.loads(stats_file.read_text())
    files = train_files(folder)
    counts = {
        config: (_rows(files[config]).num_rows if config in files else 0)
        for config in (*CONFIGS, TASKS_CONFIG)
    }
    output = stats.get("config", {}).get("output", {})
    return write_train_card(
        folder,
        counts,
        stats,
        output.get("name", folder.name),
        output.get("license", "apache-2.0"),
        output.get("repo", "ORG/NAME"),
        task_tables(files, stats),
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m datasets_builder.recard", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("folder", type=Path, help="a training folder written by a build (OUT/dataset)")
    args = p.parse_args(argv)
    try:
        recard(args.folder)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.folder / 'README.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
