"""Loading a candidate: its source is a real file, imported as a module, and any extension it builds
with `torch.utils.cpp_extension.load_inline` lands in a build folder keyed by a hash of that
extension's sources and flags, so identical code is never compiled twice (even inside otherwise
different candidates) and different code never shares a folder, whatever names the extensions
have.

Builds of one folder are serialised by a flock(2) lock held by the building process: the kernel
drops it when that process dies, so a builder killed at its limit never blocks the next one (torch's
own lock file, which a killed builder leaves behind, is removed under it, and a folder without a
completed build is cleared before building again). The parent is told, over `report_clocks`, when
this process waits for that lock and when it compiles, so waiting is charged to no limit and a
compile to the build limit (benchmark.sandbox)."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import inspect
import json
import os
import re
import shutil
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import torch.utils.cpp_extension as cpp_extension

from benchmark.task import import_file

MAX_ERROR_LINES = 40
_ERROR_LINE = re.compile(r"error|Error|undefined|expected|FAILED|no matching|cannot|not declared", re.ASCII)
BUILD_CLOCK = "build"  # time compiling counts against the build limit
WAIT_CLOCK = "wait"  # time waiting for another process's build of the same folder counts against none
LOCK_FILE = "solbench.lock"  # flock(2)ed by the process building or loading the folder
BUILT_MARK = "solbench.built"  # written once a build in the folder completed and imported
TORCH_BATON = "lock"  # torch's FileBaton, which a builder killed mid-build leaves behind


class CandidateLoadError(Exception):
    """The candidate did not produce a usable ModelNew (syntax, build or import failure)."""


def build_key(name: str, kwargs: dict) -> str:
    """Everything that changes the binary: sources, flags, functions and the torch version."""
    relevant = {k: v for k, v in kwargs.items() if k not in ("verbose", "build_directory", "keep_intermediates")}
    blob = json.dumps({"name": name, "torch": cpp_extension.torch.__version__, **relevant}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


class _Clock:
    """Which limit this process's time counts against, and where to say so (nowhere by default)."""

    report: Callable[[str], None] | None = None
    current: str = "run"


def report_clocks(report: Callable[[str], None], initial: str) -> None:
    """Send every change of clock to `report` (the worker's channel to its parent); the process's
    time counts against `initial` until the first change."""
    _Clock.report, _Clock.current = report, initial


@contextlib.contextmanager
def _counting_as(name: str) -> Iterator[None]:
    previous = _Clock.current
    report = _Clock.report
    if report is None or name == previous:
        yield
        return
    report(name)
    _Clock.current = name
    try:
        yield
    finally:
        report(previous)
        _Clock.current = previous


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Exclusive use of one build folder; a wait for another process is reported as such."""
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            with _counting_as(WAIT_CLOCK):
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _clear(folder: Path) -> None:
    """Remove what an unfinished or failed build left, so the next one starts clean."""
    for entry in folder.iterdir():
        if entry.name == LOCK_FILE:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink(missing_ok=True)


def route_builds(builds_root: Path) -> None:
    """Make load_inline build into builds_root/<hash of its inputs>, whatever the candidate asks for,
    one process per folder at a time, a completed build loaded and an unfinished one redone."""
    original = getattr(cpp_extension.load_inline, "__wrapped__", cpp_extension.load_inline)
    signature = inspect.signature(original)

    @functools.wraps(original)
    def load_inline(name, *args, **kwargs):
        call = dict(signature.bind(name, *args, **kwargs).arguments)  # positional ones as torch names them
        del call["name"]
        folder = builds_root / build_key(name, call)
        folder.mkdir(parents=True, exist_ok=True)
        call["build_directory"] = str(folder)
        with _folder_lock(folder):
            (folder / TORCH_BATON).unlink(missing_ok=True)  # under our lock nobody else builds here
            if (folder / BUILT_MARK).exists():
                return original(name, **call)
            _clear(folder)
            with _counting_as(BUILD_CLOCK):
                module = original(name, **call)
            (folder / BUILT_MARK).touch()
            return module

    cpp_extension.load_inline = load_inline


def trim_build_log(text: str) -> str:
    """Keep the lines a person needs: compiler errors with one line of context, at most 40."""
    lines = text.splitlines()
    keep: list[int] = []
    for i, line in enumerate(lines):
        if _ERROR_LINE.search(line):
            keep.extend(j for j in (i - 1, i, i + 1) if 0 <= j < len(lines))
    if not keep:
        return "\n".join(lines[-MAX_ERROR_LINES:])
    seen: list[int] = sorted(set(keep))
    return "\n".join(lines[j] for j in seen[:MAX_ERROR_LINES])


def load_candidate(path: str | Path, builds_root: str | Path):
    """Import the candidate file and return its ModelNew class."""
    builds_root = Path(builds_root)
    builds_root.mkdir(parents=True, exist_ok=True)
    os.environ["TORCH_EXTENSIONS_DIR"] = str(builds_root)
    route_builds(builds_root)
    try:
        module = import_file(Path(path), "solbench_candidate")
    except SyntaxError as e:
        raise CandidateLoadError(f"SyntaxError: {e.msg} (candidate line {e.lineno})") from e
    except BaseException as e:  # noqa: BLE001 - a build failure may surface as any exception
        text = str(e)
        if "Error building extension" in text or type(e).__name__ in ("CalledProcessError", "RawCudaError", "CompileError"):
            raise CandidateLoadError("build failed:\n" + trim_build_log(text)) from e
        tb = traceback.extract_tb(e.__traceback__)
        where = [f.lineno for f in tb if f.filename == str(path)]
        suffix = f" (candidate line {where[-1]})" if where else ""
        raise CandidateLoadError(f"import failed: {type(e).__name__}: {text[:2000]}{suffix}") from e
    model_cls = getattr(module, "ModelNew", None)
    if model_cls is None:
        raise CandidateLoadError("the candidate defines no ModelNew")
    if not isinstance(model_cls, type):
        raise CandidateLoadError(f"ModelNew is a {type(model_cls).__name__}, not a class")
    return model_cls
