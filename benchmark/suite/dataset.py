"""The suite as a Hugging Face dataset, and back.

`suite_to_dataset` turns a suite into rows with KernelBench's columns (code, level, name,
problem_id) plus ours (task_id, tags, dtype, difficulty, tolerances, hash, FLOPs, bytes, and the
reference and speed-of-light times per GPU from the manifest); the dataset builder publishes it.
`load_hub_suite("ORG/NAME")` goes the other way: it fetches a dataset (ours, or KernelBench's own)
from the Hub or the local Hub cache, and writes its programs as task files into a folder that
`benchmark.suite.load_suite` reads like any other, with a manifest rebuilt from its columns."""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import datasets

from benchmark.host import slugify
from benchmark.suite.manifest import GpuRecord, Manifest, TaskEntry, load_manifest, manifest_path_for
from benchmark.task import sha256_text

log = logging.getLogger(__name__)
_PER_GPU = datasets.List({"gpu": datasets.Value("string"), "ms": datasets.Value("float64")})
FEATURES = datasets.Features(
    {
        # KernelBench-compatible columns
        "code": datasets.Value("string"),
        "level": datasets.Value("int64"),
        "name": datasets.Value("string"),
        "problem_id": datasets.Value("int64"),  # 1-based within its level, in task-id order
        # SOLBench columns
        "task_id": datasets.Value("string"),  # relative path without .py, e.g. "level1/softmax_rows_bf16"
        "tags": datasets.List(datasets.Value("string")),
        "dtype": datasets.Value("string"),
        "difficulty": datasets.Value("int64"),
        "description": datasets.Value("string"),
        "atol": datasets.Value("float64"),
        "rtol": datasets.Value("float64"),
        "hash": datasets.Value("string"),  # sha256 of code
        "flops": datasets.Value("int64"),
        "bytes": datasets.Value("int64"),
        "sol_ms": _PER_GPU,  # floor per GPU slug (valid measurements only)
        "reference_ms": _PER_GPU,  # eager reference median per GPU slug
    }
)
_SAFE_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")

if TYPE_CHECKING:
    from benchmark.suite.catalog import Suite


def suite_rows(suite: Suite, manifest: Manifest | None = None) -> list[dict]:
    manifest = manifest if manifest is not None else load_manifest(manifest_path_for(suite.root))
    rows, next_id = [], {}
    for task in sorted(suite.tasks, key=lambda t: t.task_id):
        entry = manifest.entry(task)
        valid = {slug: g for slug, g in (entry.gpus.items() if entry else ()) if g.valid}
        next_id[task.level] = next_id.get(task.level, 0) + 1
        rows.append(
            {
                "code": task.source,
                "level": task.level,
                "name": task.name,
                "problem_id": next_id[task.level],
                "task_id": task.task_id,
                "tags": list(task.tags),
                "dtype": task.dtype,
                "difficulty": task.difficulty,
                "description": task.meta.get("description"),
                "atol": task.atol,
                "rtol": task.rtol,
                "hash": task.hash,
                "flops": entry.flops if entry else None,
                "bytes": entry.bytes if entry else None,
                "sol_ms": [
                    {"gpu": s, "ms": g.sol_ms} for s, g in sorted(valid.items()) if g.sol_ms is not None
                ],
                "reference_ms": [
                    {"gpu": s, "ms": g.reference_ms}
                    for s, g in sorted(valid.items())
                    if g.reference_ms is not None
                ],
            }
        )
    return rows


def suite_to_dataset(suite: Suite, manifest: Manifest | None = None) -> datasets.Dataset:
    """All tasks in one dataset (manifest: the suite's own manifest.json by default)."""
    return datasets.Dataset.from_list(suite_rows(suite, manifest), features=FEATURES)


def suite_to_dataset_dict(suite: Suite, manifest: Manifest | None = None) -> datasets.DatasetDict:
    """One split per level, named like KernelBench's ("level_1", ...)."""
    rows = suite_rows(suite, manifest)
    levels = sorted({r["level"] for r in rows}, key=lambda lv: (lv is None, lv))
    return datasets.DatasetDict(
        {
            f"level_{lv}" if lv is not None else "unleveled": datasets.Dataset.from_list(
                [r for r in rows if r["level"] == lv], features=FEATURES
            )
            for lv in levels
        }
    )


def write_parquet(ds: datasets.Dataset, path: Path | str) -> None:
    """Every parquet file the project publishes, written by pyarrow with zstd, the dataset's features
    kept in the schema's metadata as datasets writes them: about 4x smaller than datasets' own
    snappy files (a 540-row sft file: 2.2 MB -> 0.52 MB), which matters where data travels in git and
    to the GPU machine."""
    import pyarrow.parquet as pq

    pq.write_table(ds.flatten_indices().data.table, str(path), compression="zstd", compression_level=9)


def export_suite(suite: Suite, out_dir: Path, manifest: Manifest | None = None) -> Path:
    """Write the suite as parquet files laid out as a Hub dataset repository (data/<split>-*.parquet)."""
    data = Path(out_dir) / "data"
    data.mkdir(parents=True, exist_ok=True)
    for split, ds in suite_to_dataset_dict(suite, manifest).items():
        write_parquet(ds, data / f"{split}-00000-of-00001.parquet")
    return Path(out_dir)


def _relative_path(row: dict) -> Path:
    """Where a row's program goes inside the materialised suite; refuses anything that could escape it."""
    task_id = row.get("task_id")
    if task_id:
        parts = task_id.split("/")
        if not all(_SAFE_PART.fullmatch(p) and p not in (".", "..") for p in parts):
            raise ValueError(f"unsafe task_id {task_id!r} in dataset row")
        return Path(*parts).with_suffix(".py")
    name = str(row.get("name") or f"problem_{row.get('problem_id')}").removesuffix(".py")
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".") or f"problem_{row.get('problem_id')}"
    level = row.get("level")
    return (Path(f"level{level}") if level is not None else Path()) / f"{name}.py"


def _rows(dataset: datasets.Dataset | datasets.DatasetDict) -> list[dict]:
    if isinstance(dataset, datasets.DatasetDict):
        return [row for split in dataset.values() for row in split]
    return list(dataset)


def materialize(dataset: datasets.Dataset | datasets.DatasetDict, dest: Path) -> Path:
    """Write each row's `code` as a task file under `dest`, plus a manifest from the per-GPU columns."""
    dest = Path(dest)
    rows = _rows(dataset)
    if not rows:
        raise ValueError("the dataset has no rows")
    if "code" not in rows[0]:
        raise ValueError(f"a suite dataset needs a 'code' column; this one has {sorted(rows[0])}")
    tasks: dict[str, TaskEntry] = {}
    seen: set[Path] = set()
    for row in rows:
        rel = _relative_path(row)
        if rel in seen:
            raise ValueError(f"two dataset rows map to the same task file {rel}")
        seen.add(rel)
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(row["code"])
        refs = {g["gpu"]: g["ms"] for g in row.get("reference_ms") or ()}
        sols = {g["gpu"]: g["ms"] for g in row.get("sol_ms") or ()}
        if row.get("flops") is not None or sols:
            gpus = {
                slugify(s): GpuRecord(
                    reference_ms=refs.get(s),
                    reference_rel_err=None,
                    peak_memory_bytes=None,
                    sol_ms=sols.get(s),
                    valid=True,
                )
                for s in sorted(set(refs) | set(sols))
            }
            tasks[rel.with_suffix("").as_posix()] = TaskEntry(
                hash=sha256_text(row["code"]),
                level=row.get("level"),
                dtype=row.get("dtype") or "float32",
                flops=row.get("flops"),
                bytes=row.get("bytes"),
                gpus=gpus,
            )
    if tasks:
        Manifest(tasks=tasks).save(manifest_path_for(dest))
    return dest


def parse_hub_spec(spec: str) -> tuple[str, str | None]:
    """'ORG/NAME' or 'ORG/NAME@REVISION' -> (repo id, revision)."""
    repo_id, _, revision = spec.partition("@")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo_id):
        raise ValueError(f"expected hf:ORG/NAME[@REVISION], got hf:{spec}")
    return repo_id, revision or None


def hub_offline() -> bool:
    """Whether the Hub is off limits: HF_HUB_OFFLINE as set now, or as huggingface_hub read it at
    import (it reads the variable once, and honours that value whatever the environment says later)."""
    from huggingface_hub import constants

    return constants.HF_HUB_OFFLINE or os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {
        "1",
        "ON",
        "YES",
        "TRUE",
    }


def _load_snapshot(folder: Path, cache_dir: Path) -> datasets.Dataset | datasets.DatasetDict:
    if (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file():
        return datasets.load_from_disk(str(folder))
    return datasets.load_dataset(str(folder), cache_dir=str(cache_dir))


def load_hub_suite(spec: str, cache_dir: Path | None = None) -> Path:
    """Fetch a suite dataset ('ORG/NAME[@REVISION]') from the Hub, or from the local Hub cache when
    offline (HF_HUB_OFFLINE=1), and return a folder of task files materialised from it. The folder is
    keyed by the dataset's commit, so a second call reuses it."""
    from huggingface_hub import snapshot_download

    from benchmark.host import default_cache_dir

    repo_id, revision = parse_hub_spec(spec)
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    snapshot = Path(
        snapshot_download(repo_id, repo_type="dataset", revision=revision, local_files_only=hub_offline())
    )
    dest = cache_dir / "suites" / repo_id.replace("/", "--") / snapshot.name
    if (dest / ".complete").is_file():
        return dest
    log.info("materialising suite %s (%s) into %s", repo_id, snapshot.name, dest)
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    materialize(_load_snapshot(snapshot, cache_dir / "hf-datasets"), tmp)
    (tmp / ".complete").write_text(f"{repo_id}@{snapshot.name}\n")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.replace(dest)
    return dest
