"""Writing datasets as folders laid out like Hub dataset repositories: `data/<split>-00000-of-00001.parquet`
plus a README.md whose YAML `configs` names each split's files. `datasets.load_dataset(FOLDER)` reads
such a folder locally, and `publish` uploads it unchanged, so both load the same way.

Two folders come out of a build: the training data (splits sft, rft, repair, rl_prompts in the
default configuration, and the task programs as the `tasks` configuration) and, optionally, the
benchmark suite itself (benchmark.suite_dataset, one split per level)."""

from __future__ import annotations

import json
from pathlib import Path

import datasets

from benchmark.suite import Suite
from benchmark.suite_dataset import FEATURES as SUITE_FEATURES
from benchmark.suite_dataset import export_suite, suite_rows
from datasets_builder.card import suite_card, train_card
from datasets_builder.schema import FEATURES, SPLITS


def _parquet(rows: list[dict], features: datasets.Features, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    datasets.Dataset.from_list(rows, features=features).to_parquet(str(tmp))
    tmp.replace(path)


def write_train_folder(folder: Path, split_rows: dict[str, list[dict]], task_rows: list[dict], stats: dict,
                       name: str, license: str, repo: str | None) -> Path:
    folder = Path(folder)
    data = folder / "data"
    for old in data.glob("*.parquet") if data.is_dir() else ():
        old.unlink()
    for split in SPLITS:  # an empty split has no file (the Hub's loader refuses splits without data)
        if split_rows.get(split):
            _parquet(split_rows[split], FEATURES, data / f"{split}-00000-of-00001.parquet")
    if task_rows:
        _parquet(task_rows, SUITE_FEATURES, data / "tasks-00000-of-00001.parquet")
    counts = {s: len(split_rows.get(s, [])) for s in SPLITS} | {"tasks": len(task_rows)}
    (folder / "README.md").write_text(train_card(stats, counts, name, license, repo))
    (folder / "build_stats.json").write_text(json.dumps(stats, indent=1, sort_keys=True, default=str) + "\n")
    return folder


def write_suite_folder(folder: Path, suite: Suite, license: str) -> Path:
    folder = Path(folder)
    data = folder / "data"
    for old in data.glob("*.parquet") if data.is_dir() else ():
        old.unlink()
    export_suite(suite, folder)
    levels = sorted(p.name.split("-00000")[0] for p in data.glob("*.parquet"))
    (folder / "README.md").write_text(suite_card(len(suite.tasks), levels, suite.version, license))
    return folder


def task_rows(suite: Suite, manifest) -> list[dict]:
    return suite_rows(suite, manifest)
