"""This host's places and names, shared by every package: the cache folder, a candidate's source in
it, the lock of a GPU, the default device, and names made file names."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path


def default_cache_dir() -> Path:
    """Builds, staged sources and stored references: $SOLBENCH_CACHE, else ~/.cache/solbench."""
    return Path(os.environ.get("SOLBENCH_CACHE", Path.home() / ".cache" / "solbench"))


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def source_path(code_hash: str, cache_dir: Path) -> Path:
    """Where the cache keeps the candidate whose source hashes to `code_hash` (a verdict's), once
    evaluated: so a run's code can be found again after the run (leaderboard.submit)."""
    return cache_dir / "sources" / f"candidate_{code_hash[:24]}.py"


def host_device_lock(gpu: int | None = None) -> str:
    """The one lock of a GPU on this host (benchmark.evaluate.gpu_lock), whoever evaluates on it: the
    verifier's lanes, parallel test workers and separate runs share it, so timing never runs beside
    another evaluation's work, and the neighbour check knows them all."""
    visible = [d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    device = str(gpu) if gpu is not None else (visible[0].strip() if visible else "0")
    return str(Path(tempfile.gettempdir()) / "solbench-locks" / f"device-{device}")


def slugify(name: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200': a name as a file name, lower-case letters and digits joined
    by dashes. The file name and manifest key of a GPU model; a leaderboard submission's file name."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not slug:
        raise ValueError(f"name {name!r} has no letters or digits to make a file name from")
    return slug
