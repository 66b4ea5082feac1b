"""Task files: KernelBench-compatible PyTorch programs, plus optional SOLBench metadata.

A task file defines `class Model(nn.Module)`, `get_inputs()` and `get_init_inputs()`. It may also
define a literal dict `SOLBENCH = {...}` (level, tags, dtype, difficulty, atol, rtol, requires) and
`get_alt_inputs()`, returning extra input lists of other shapes for the correctness check.
Metadata is read from the AST, so listing a suite never executes task code.

`requires` names what a CUDA device must have for the task to mean anything there, from
REQUIREMENTS: `["fp8"]`, FP8 tensor cores (compute capability 8.9 or newer). A run, a check or a
validation on a CUDA device without it skips the task with the reason
(benchmark.evaluate.device_check.unmet_requirement); the CPU meets every requirement."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from benchmark.records import atomic_write_text

BUILTIN_SUITE = Path(__file__).parent / "tasks"  # the built-in suite's task files (benchmark.suite)
REQUIRED_NAMES = ("Model", "get_inputs", "get_init_inputs")
KNOWN_META_KEYS = {"level", "tags", "dtype", "difficulty", "atol", "rtol", "description", "requires"}
REQUIREMENTS = ("fp8",)  # what `requires` may name; benchmark.evaluate.device_check says who meets each


class TaskLoadError(Exception):
    """A task file that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Task:
    task_id: str  # e.g. "level1/softmax_rows"
    path: Path
    source: str
    level: int | None = None
    tags: tuple[str, ...] = ()
    dtype: str = "float32"
    difficulty: int | None = None
    atol: float | None = None
    rtol: float | None = None
    requires: tuple[str, ...] = ()  # device features the task needs (REQUIREMENTS)
    meta: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def hash(self) -> str:
        return sha256_text(self.source)

    def load_module(self) -> ModuleType:
        return import_file(self.path, f"solbench_task_{self.hash[:12]}")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def import_file(path: Path, module_name: str) -> ModuleType:
    """Import a Python file as a fresh module (Triton needs kernels to live in real files)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _read_metadata(tree: ast.Module, path: Path) -> dict:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "SOLBENCH" for t in node.targets
        ):
            try:
                meta = ast.literal_eval(node.value)
            except ValueError as e:
                raise TaskLoadError(f"{path}: SOLBENCH must be a literal dict ({e})") from e
            if not isinstance(meta, dict):
                raise TaskLoadError(f"{path}: SOLBENCH must be a dict")
            unknown = set(meta) - KNOWN_META_KEYS
            if unknown:
                raise TaskLoadError(f"{path}: unknown SOLBENCH keys {sorted(unknown)}")
            _check_requires(meta.get("requires", []), path)
            return meta
    return {}


def _check_requires(requires: object, path: Path) -> None:
    if not isinstance(requires, list | tuple) or not all(isinstance(r, str) for r in requires):
        raise TaskLoadError(f"{path}: SOLBENCH requires must be a list of names, e.g. ['fp8']")
    unknown = sorted(set(requires) - set(REQUIREMENTS))
    if unknown:
        raise TaskLoadError(f"{path}: unknown SOLBENCH requirements {unknown}; known: {list(REQUIREMENTS)}")


def level_from_path(path: Path) -> int | None:
    """The level a task's folders name (`level1/`, `level_2/`), None where none does."""
    for part in reversed(path.parts[:-1]):
        m = re.fullmatch(r"level[_-]?(\d+)", part.lower())
        if m:
            return int(m.group(1))
    return None


def load_task(path: str | Path, root: Path | None = None) -> Task:
    """Read a task file from anywhere; `root` (a suite folder) makes the id relative to it."""
    path = Path(path).resolve()
    if not path.is_file():
        raise TaskLoadError(f"{path}: no such task file")
    source = path.read_text()
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as e:
        raise TaskLoadError(f"{path}: syntax error at line {e.lineno}: {e.msg}") from e
    defined = {n.name if isinstance(n, ast.ClassDef | ast.FunctionDef) else None for n in tree.body} | {
        t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
    }
    missing = [name for name in REQUIRED_NAMES if name not in defined]
    if missing:
        raise TaskLoadError(f"{path}: task file does not define {', '.join(missing)}")
    meta = _read_metadata(tree, path)
    if root is not None and path.is_relative_to(root.resolve()):
        task_id = path.relative_to(root.resolve()).with_suffix("").as_posix()
    else:
        task_id = path.stem
    return Task(
        task_id=task_id,
        path=path,
        source=source,
        level=meta.get("level", level_from_path(path)),
        tags=tuple(meta.get("tags", ())),
        dtype=meta.get("dtype", "float32"),
        difficulty=meta.get("difficulty"),
        atol=meta.get("atol"),
        rtol=meta.get("rtol"),
        requires=tuple(meta.get("requires", ())),
        meta=meta,
    )


def stage_task(task: Task, directory: Path) -> Task:
    """The task with its source written under `directory`, for a machine that cannot read the
    task's own path (a Ray node): same id, level and metadata, the file under the same name (a
    folder per source hash, so two sources of one name never meet)."""
    path = Path(directory) / task.hash[:24] / f"{task.name}.py"
    if not path.is_file():
        atomic_write_text(path, task.source)
    return dataclasses.replace(task, path=path)
