"""A suite is a folder of task files: the built-in one under benchmark/tasks, or any folder of
KernelBench-format files (levels taken from `levelN` folder names where metadata is absent)."""

from __future__ import annotations

import fnmatch
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

from benchmark.task import Task, TaskLoadError, load_task

BUILTIN_SUITE = Path(__file__).parent / "tasks"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Suite:
    root: Path
    tasks: tuple[Task, ...]
    errors: tuple[str, ...] = ()  # task files that could not be read, with the reason

    @property
    def version(self) -> str:
        """Content hash of every task file: two runs with the same version saw the same suite."""
        h = hashlib.sha256()
        for task in sorted(self.tasks, key=lambda t: t.task_id):
            h.update(task.task_id.encode() + b"\0" + task.hash.encode() + b"\0")
        return h.hexdigest()[:16]

    def select(
        self,
        levels: list[int] | None = None,
        tags: list[str] | None = None,
        patterns: list[str] | None = None,
    ) -> list[Task]:
        chosen = []
        for task in self.tasks:
            if levels and task.level not in levels:
                continue
            if tags and not set(tags) & set(task.tags):
                continue
            if patterns and not any(
                fnmatch.fnmatch(task.task_id, p) or fnmatch.fnmatch(task.name, p) for p in patterns
            ):
                continue
            chosen.append(task)
        return chosen


def load_suite(root: str | Path | None = None) -> Suite:
    root = Path(root) if root is not None else BUILTIN_SUITE
    if not root.is_dir():
        raise FileNotFoundError(f"suite folder {root} does not exist")
    tasks, errors = [], []
    for path in sorted(root.rglob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            tasks.append(load_task(path, root=root))
        except TaskLoadError as e:
            log.warning("skipping task: %s", e)
            errors.append(str(e))
    return Suite(root=root.resolve(), tasks=tuple(tasks), errors=tuple(errors))
