"""Writing datasets as folders laid out like Hub dataset repositories: `data/<split>-<fingerprint>-00000-of-00001.parquet`
plus a README.md whose YAML `configs` names each split's files (and `dataset_info` their sizes). `datasets.load_dataset(FOLDER)` reads
such a folder locally, and `publish` uploads it unchanged, so both load the same way.

Two folders come out of a build: the training data (splits sft, rft, repair, rl_prompts in the
default configuration, and the task programs as the `tasks` configuration) and, optionally, the
benchmark suite itself (benchmark.suite_dataset, one split per level)."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

import datasets

from benchmark.suite import Suite
from benchmark.suite_dataset import FEATURES as SUITE_FEATURES
from benchmark.suite_dataset import export_suite, suite_rows
from datasets_builder.card import suite_card, train_card
from datasets_builder.schema import FEATURES, SPLITS


def _parquet(rows: list[dict], features: datasets.Features, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_list(rows, features=features).to_parquet(str(path))


def _finish(folder: Path, staged: dict[str, Path]) -> str:
    """Move staged split files into data/, named by a fingerprint of their content; return it."""
    digest = hashlib.sha256()
    for split in sorted(staged):
        digest.update(split.encode() + b"\0" + hashlib.sha256(staged[split].read_bytes()).digest())
    fp = digest.hexdigest()[:10]
    data = folder / "data"
    for old in data.glob("*.parquet") if data.is_dir() else ():
        old.unlink()
    data.mkdir(parents=True, exist_ok=True)
    for split, path in staged.items():
        shutil.move(str(path), data / f"{split}-{fp}-00000-of-00001.parquet")
    return fp


def _info(config_name: str, features: datasets.Features, counts: dict[str, int], folder: Path, fp: str) -> dict:
    splits = datasets.SplitDict()
    for split, n in counts.items():
        nbytes = (folder / "data" / f"{split}-{fp}-00000-of-00001.parquet").stat().st_size
        splits.add(datasets.SplitInfo(name=split, num_examples=n, num_bytes=nbytes))
    info = datasets.DatasetInfo(features=features, config_name=config_name)
    info.splits = splits
    return info._to_yaml_dict()


def write_train_folder(folder: Path, split_rows: dict[str, list[dict]], task_rows: list[dict], stats: dict,
                       name: str, license: str, repo: str | None) -> Path:
    folder = Path(folder)
    with tempfile.TemporaryDirectory(dir=folder.parent if folder.parent.exists() else None) as tmp:
        staged = {}
        for split in SPLITS:  # an empty split has no file (the Hub's loader refuses splits without data)
            if split_rows.get(split):
                staged[split] = Path(tmp) / f"{split}.parquet"
                _parquet(split_rows[split], FEATURES, staged[split])
        if task_rows:
            staged["tasks"] = Path(tmp) / "tasks.parquet"
            _parquet(task_rows, SUITE_FEATURES, staged["tasks"])
        folder.mkdir(parents=True, exist_ok=True)
        fp = _finish(folder, staged)
    counts = {s: len(split_rows.get(s, [])) for s in SPLITS} | {"tasks": len(task_rows)}
    present = [s for s in SPLITS if counts[s]]
    configs = [{"config_name": "default", "data_files": [{"split": s, "path": f"data/{s}-{fp}-*"} for s in present]}]
    infos = [_info("default", FEATURES, {s: counts[s] for s in present}, folder, fp)] if present else []
    if task_rows:
        configs.append({"config_name": "tasks", "data_files": [{"split": "train", "path": f"data/tasks-{fp}-*"}]})
        infos.append(_info("tasks", SUITE_FEATURES, {"tasks": len(task_rows)}, folder, fp))
        infos[-1]["splits"][0]["name"] = "train"
    (folder / "README.md").write_text(train_card(stats, counts, name, license, repo, configs, infos))
    (folder / "build_stats.json").write_text(json.dumps(stats, indent=1, sort_keys=True, default=str) + "\n")
    return folder


def write_suite_folder(folder: Path, suite: Suite, license: str) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        export_suite(suite, Path(tmp))
        staged = {p.name.split("-00000")[0]: p for p in (Path(tmp) / "data").glob("*.parquet")}
        counts = {s: datasets.Dataset.from_parquet(str(p)).num_rows for s, p in staged.items()}
        fp = _finish(folder, staged)
    levels = sorted(counts)
    configs = [{"config_name": "default", "data_files": [{"split": s, "path": f"data/{s}-{fp}-*"} for s in levels]}]
    infos = [_info("default", SUITE_FEATURES, {s: counts[s] for s in levels}, folder, fp)]
    (folder / "README.md").write_text(suite_card(len(suite.tasks), suite.version, license, configs, infos))
    return folder


def task_rows(suite: Suite, manifest) -> list[dict]:
    return suite_rows(suite, manifest)
