"""Import of external task folders: any folder of KernelBench-format files (levels from `levelN`
folder names where the files carry no SOLBENCH metadata) joins the build's task pool unchanged.

Files are read with benchmark.suite.load_suite, so anything the benchmark accepts is accepted
here; unreadable files are reported, not fatal. Imported tasks go through the same screening as
synthesized ones (dedup, decontamination against the benchmark suite, validation)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from benchmark.suite import load_suite
from benchmark.task import Task

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ImportedTask:
    name: str  # file stem, made unique within the build
    level: int | None
    source: str
    origin: str  # the folder and relative path it came from
    tags: tuple[str, ...]


@dataclass(frozen=True)
class ImportResult:
    tasks: list[ImportedTask]
    errors: list[str]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "task"


def import_folder(folder: str | Path, prefix: str | None = None) -> ImportResult:
    """Every task file under `folder`; names get `prefix` (default: the folder's name)."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"task folder {folder} does not exist")
    suite = load_suite(folder)
    prefix = _safe(prefix if prefix is not None else folder.name)
    tasks = [_imported(t, prefix, folder) for t in suite.tasks]
    for e in suite.errors:
        log.warning("not imported: %s", e)
    return ImportResult(tasks, list(suite.errors))


def _imported(task: Task, prefix: str, folder: Path) -> ImportedTask:
    return ImportedTask(
        name=f"{prefix}_{_safe(task.task_id.replace('/', '_'))}",
        level=task.level,
        source=task.source,
        origin=f"{folder}/{task.task_id}.py",
        tags=task.tags,
    )
