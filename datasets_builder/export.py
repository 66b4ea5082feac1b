"""Writing datasets as folders laid out like Hub dataset repositories, with a README.md (card.py)
whose YAML `configs` names each configuration's files and `dataset_info` their sizes.
`datasets.load_dataset(FOLDER, CONFIG, split=...)` reads such a folder locally, and `publish`
uploads it unchanged, so both load the same way.

Two folders come out of a build:
- the training data, in the repository scheme of schema.py: one configuration per kind of row
  (sft, rft, repair, rl_prompts) and the task programs as configuration `tasks`, each with the one
  split `train`, in `data/<config>/train-<fingerprint>-00000-of-00001.parquet`;
- optionally, the benchmark suite itself (benchmark.suite.dataset): one configuration, one split
  per level, in `data/<level>-<fingerprint>-00000-of-00001.parquet`."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import datasets
from huggingface_hub import DatasetCard

from benchmark.suite import Suite
from benchmark.suite import docs as suite_docs
from benchmark.suite.dataset import FEATURES as SUITE_FEATURES
from benchmark.suite.dataset import export_suite, suite_rows, write_parquet
from benchmark.suite.manifest import load_manifest, manifest_path_for
from datasets_builder.card import suite_card, train_card
from datasets_builder.schema import CONFIGS, DEFAULT_CONFIG, FEATURES, SPLIT, TASKS_CONFIG

# The data files of a folder are named by a fingerprint of their content, and the card's configs
# name them by it: datasets caches a local folder under a key made from its card, so two builds
# written to folders of the same name must not share one.
SHARD = "-00000-of-00001.parquet"


def _parquet(rows: list[dict], features: datasets.Features, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_parquet(datasets.Dataset.from_list(rows, features=features), path)


def _finish(folder: Path, staged: dict[str, Path]) -> dict[str, Path]:
    """Move staged files into data/ as `data/<key>-<fingerprint><SHARD>` (the fingerprint hashes them
    all), replacing the data files of an earlier build; return each key's file."""
    digest = hashlib.sha256()
    for key in sorted(staged):
        digest.update(key.encode() + b"\0" + hashlib.sha256(staged[key].read_bytes()).digest())
    fp = digest.hexdigest()[:10]
    data = folder / "data"
    for old in data.rglob("*.parquet") if data.is_dir() else ():
        old.unlink()
    files = {}
    for key, path in staged.items():
        files[key] = data / f"{key}-{fp}{SHARD}"
        files[key].parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(path), files[key])
    return files


def _pattern(folder: Path, file: Path) -> str:
    return file.relative_to(folder).as_posix().removesuffix(SHARD) + "*"


def _info(
    config: str, features: datasets.Features, splits: dict[str, tuple[int, Path]]
) -> datasets.DatasetInfo:
    """A configuration's DatasetInfo: its features and, per split, the rows and bytes of its file."""
    info = datasets.DatasetInfo(features=features, config_name=config)
    info.splits = datasets.SplitDict()
    for split, (n, path) in splits.items():
        info.splits.add(datasets.SplitInfo(name=split, num_examples=n, num_bytes=path.stat().st_size))
    return info


def write_train_folder(
    folder: Path,
    rows: dict[str, list[dict]],
    task_rows: list[dict],
    stats: dict,
    name: str,
    license: str,
    repo: str,
    task_statistics: Sequence[str] = (),
    license_files: Sequence[Path] = (),
) -> Path:
    """The training data: `rows` maps each configuration of schema.CONFIGS to its rows; the card shows
    `task_statistics` (the suite page's tables of the tasks), and `license_files` (of imported sources)
    are published under licenses/."""
    folder = Path(folder)
    tables = {c: rows.get(c, []) for c in CONFIGS} | {TASKS_CONFIG: task_rows}
    with tempfile.TemporaryDirectory(dir=folder.parent if folder.parent.exists() else None) as tmp:
        staged = {}
        for config, config_rows in tables.items():
            if (
                config_rows
            ):  # an empty configuration has no file (the Hub's loader refuses splits without data)
                staged[f"{config}/{SPLIT}"] = Path(tmp) / f"{config}.parquet"
                _parquet(config_rows, _features(config), staged[f"{config}/{SPLIT}"])
        folder.mkdir(parents=True, exist_ok=True)
        _finish(folder, staged)
    shutil.rmtree(folder / "licenses", ignore_errors=True)
    for file in license_files:
        (folder / "licenses").mkdir(exist_ok=True)
        shutil.copyfile(file, folder / "licenses" / Path(file).name)
    counts = {config: len(config_rows) for config, config_rows in tables.items()}
    write_train_card(folder, counts, stats, name, license, repo, task_statistics)
    (folder / "build_stats.json").write_text(json.dumps(stats, indent=1, sort_keys=True, default=str) + "\n")
    return folder


def _features(config: str) -> datasets.Features:
    return SUITE_FEATURES if config == TASKS_CONFIG else FEATURES


def train_files(folder: Path) -> dict[str, Path]:
    """The data file of each configuration a training folder has (one split, one file each)."""
    files = {}
    for config in (*CONFIGS, TASKS_CONFIG):
        found = sorted((Path(folder) / "data" / config).glob(f"{SPLIT}-*{SHARD}"))
        if len(found) > 1:
            raise ValueError(f"{folder} has {len(found)} data files for {config!r}; one was expected")
        if found:
            files[config] = found[0]
    return files


def shown_path(folder: Path) -> str:
    """How the card's loading example names its folder: relative to the working directory when
    inside it (a repository's copy, a build's OUT), else as given."""
    folder = Path(folder)
    try:
        return Path(folder).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return folder.as_posix()


def write_train_card(
    folder: Path,
    counts: dict[str, int],
    stats: dict,
    name: str,
    license: str,
    repo: str,
    task_statistics: Sequence[str] = (),
) -> DatasetCard:
    """The README.md of a training folder whose data files are written: the card's configurations and
    their sizes are read from those files, `counts` gives every configuration's rows (empty ones too)."""
    folder = Path(folder)
    configs, infos = {}, {}
    for config, file in train_files(folder).items():
        configs[config] = {"data_files": [{"split": SPLIT, "path": _pattern(folder, file)}]}
        if config == DEFAULT_CONFIG:
            configs[config]["default"] = True
        infos[config] = _info(config, _features(config), {SPLIT: (counts[config], file)})
    card = train_card(
        stats, counts, name, license, repo, configs, infos, task_statistics, folder=shown_path(folder)
    )
    card.save(folder / "README.md")
    return card


def write_suite_folder(folder: Path, suite: Suite, license: str) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        export_suite(suite, Path(tmp))
        staged = {p.name.split("-00000")[0]: p for p in (Path(tmp) / "data").glob("*.parquet")}
        counts = {s: datasets.Dataset.from_parquet(str(p)).num_rows for s, p in staged.items()}
        files = _finish(folder, staged)
    levels = sorted(counts)
    configs = {"default": {"data_files": [{"split": s, "path": _pattern(folder, files[s])} for s in levels]}}
    infos = {"default": _info("default", SUITE_FEATURES, {s: (counts[s], files[s]) for s in levels})}
    tables = suite_docs.statistics(list(suite.tasks), load_manifest(manifest_path_for(suite.root)))
    card = suite_card(len(suite.tasks), suite.version, license, configs, infos, task_statistics=tables)
    card.save(folder / "README.md")
    return folder


def task_rows(suite: Suite, manifest) -> list[dict]:
    return suite_rows(suite, manifest)
