"""What a result depends on beyond its inputs: package versions, the interpreter, the GPU and its
driver. Every record that notes its environment (run.json, a verdict's `env`, the suite manifest,
a dataset build, the leaderboard's re-verification, the scripts' reports) captures it here."""

from __future__ import annotations

import importlib.metadata
import platform
import subprocess
import sys
from collections.abc import Iterable

# Packages whose version changes a result (level 4 builds models with transformers; Triton compiles
# candidates and the reference's torch.compile), read from their metadata without importing them.
RESULT_PACKAGES = ("torch", "triton", "transformers", "numpy")


def package_versions(names: Iterable[str] = RESULT_PACKAGES) -> dict[str, str | None]:
    """The installed version of each package (None: not installed)."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def torch_versions(extra: Iterable[str] = ()) -> dict[str, str]:
    """torch and the CUDA it was built with (the string "None" for a CPU build), then each installed
    package of `extra`: the versions the suite manifest and a dataset build record."""
    import torch

    env = {"torch": torch.__version__, "cuda": str(torch.version.cuda)}
    env.update({k: v for k, v in package_versions(extra).items() if v is not None})
    return env


def host_environment() -> dict[str, str | None]:
    """run.json's record: RESULT_PACKAGES, CUDA, Python, the host, and the GPU name and driver as
    nvidia-smi reports them (None without one), all without creating a CUDA context."""
    import torch

    env: dict[str, str | None] = {
        **package_versions(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "host": platform.node(),
        "gpu": None,
        "driver": None,
    }
    try:
        out = (
            subprocess.run(
                ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
                check=True,
            )
            .stdout.strip()
            .splitlines()
        )
        if out:
            env["gpu"], env["driver"] = (s.strip() for s in out[0].split(",", 1))
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    return env


def device_environment(device) -> dict[str, str]:
    """A verdict's `env`, taken in the execution child on the `torch.device` it evaluates on. The
    reference store hands stored results only to a child whose dict is equal, key for key."""
    import torch

    env = {"torch": torch.__version__, "python": sys.version.split()[0], "device": str(device)}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env.update(gpu=props.name, cuda=str(torch.version.cuda), sm=f"{props.major}.{props.minor}")
    return env


def gpu_name() -> str | None:
    """The name torch gives the current GPU, None without one."""
    import torch

    return torch.cuda.get_device_name() if torch.cuda.is_available() else None
