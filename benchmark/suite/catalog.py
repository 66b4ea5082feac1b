"""A suite is a folder of task files: the built-in one under benchmark/tasks, any folder of
KernelBench-format files (levels taken from `levelN` folder names where metadata is absent), or a
suite dataset on the Hugging Face Hub (`hf:ORG/NAME`, materialised into a local folder).

The CLI over it: benchmark.suite.cli."""

from __future__ import annotations

import fnmatch
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

from benchmark.task import BUILTIN_SUITE, Task, TaskLoadError, level_from_path, load_task

HUB_PREFIX = "hf:"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoadFailure:
    """A task file the suite could not read, kept so a run can list it as a broken task."""

    task_id: str  # what its id would have been, e.g. "level1/softmax_rows"
    path: Path
    level: int | None  # from a `levelN` folder name: the metadata of an unreadable file is unknown
    reason: str  # the TaskLoadError message, which names the file


@dataclass(frozen=True)
class Suite:
    root: Path
    tasks: tuple[Task, ...]
    errors: tuple[str, ...] = ()  # task files that could not be read, with the reason
    failures: tuple[LoadFailure, ...] = ()  # the same files as records

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

    def select_failures(
        self,
        levels: list[int] | None = None,
        tags: list[str] | None = None,
        patterns: list[str] | None = None,
    ) -> list[LoadFailure]:
        """The unreadable files a selection would have included: level (from the folder name) and id
        or file-name patterns apply; tags cannot be read from them, so a tag filter keeps them, since
        hiding a file the user may have meant is what this list exists to prevent."""
        return [
            f
            for f in self.failures
            if (not levels or f.level in levels)
            and (
                not patterns
                or any(fnmatch.fnmatch(f.task_id, p) or fnmatch.fnmatch(f.path.stem, p) for p in patterns)
            )
        ]


def resolve_suite(spec: str | Path | None) -> Path:
    """The folder of task files a suite spec names: None is the built-in suite, `hf:ORG/NAME[@REV]` a
    Hub dataset (fetched, or taken from the local Hub cache when HF_HUB_OFFLINE=1, and materialised
    under the SOLBench cache), anything else a local folder."""
    if spec is None:
        return BUILTIN_SUITE
    text = str(spec)
    if text.startswith(HUB_PREFIX):
        from benchmark.suite.dataset import load_hub_suite

        return load_hub_suite(text[len(HUB_PREFIX) :])
    path = Path(text).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"suite folder {path} does not exist")
    return path


def load_suite(root: str | Path | None = None) -> Suite:
    root = resolve_suite(root)
    tasks, failures = [], []
    for path in sorted(root.rglob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            tasks.append(load_task(path, root=root))
        except TaskLoadError as e:
            log.warning("skipping task: %s", e)
            task_id = path.resolve().relative_to(root.resolve()).with_suffix("").as_posix()
            failures.append(LoadFailure(task_id, path.resolve(), level_from_path(path.resolve()), str(e)))
    return Suite(
        root=root.resolve(),
        tasks=tuple(tasks),
        errors=tuple(f.reason for f in failures),
        failures=tuple(failures),
    )


# ----------------------------------------------------------------------------------------------- CLI
