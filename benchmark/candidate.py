"""Loading a candidate: its source is a real file, imported as a module, and any extension it builds
with `torch.utils.cpp_extension.load_inline` lands in a build folder keyed by a hash of that
extension's sources and flags, so identical code is never compiled twice (even inside otherwise
different candidates) and different code never shares a folder (torch locks a folder while it
builds, so concurrent builds of the same code wait for each other instead of colliding)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import traceback
from pathlib import Path

import torch.utils.cpp_extension as cpp_extension

from benchmark.task import import_file

MAX_ERROR_LINES = 40
_ERROR_LINE = re.compile(r"error|Error|undefined|expected|FAILED|no matching|cannot|not declared", re.ASCII)


class CandidateLoadError(Exception):
    """The candidate did not produce a usable ModelNew (syntax, build or import failure)."""


def build_key(name: str, kwargs: dict) -> str:
    """Everything that changes the binary: sources, flags, functions and the torch version."""
    relevant = {k: v for k, v in kwargs.items() if k not in ("verbose", "build_directory", "keep_intermediates")}
    blob = json.dumps({"name": name, "torch": cpp_extension.torch.__version__, **relevant}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def route_builds(builds_root: Path) -> None:
    """Make load_inline build into builds_root/<hash of its inputs>, whatever the candidate asks for."""
    original = getattr(cpp_extension.load_inline, "__wrapped__", cpp_extension.load_inline)

    @functools.wraps(original)
    def load_inline(name, *args, **kwargs):
        names = ("cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags", "extra_ldflags",
                 "extra_include_paths")
        kwargs.update(zip(names, args, strict=False))
        folder = builds_root / build_key(name, kwargs)
        folder.mkdir(parents=True, exist_ok=True)
        kwargs["build_directory"] = str(folder)
        return original(name, **kwargs)

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
