"""What a device can run: refuse `--device cuda` on a machine without a visible CUDA device before
anything runs, so a missing GPU is one clear line rather than a traceback, or a candidate's
`runtime_error`, minutes in; and say whether a device meets what a task requires (its SOLBENCH
`requires`), so that a run, a check or a validation skips the task there with the reason instead of
scoring a kernel that cannot be written on it.

Requirements are about CUDA devices. The CPU meets every one: a task's reference runs there (FP8
tasks dequantize to fp32), so the CPU validator and CPU runs still check the task and its
candidates, which on the CPU are C++ and emulate what they lack."""

from __future__ import annotations

import os
from collections.abc import Iterable

# requirement -> (least compute capability, what it stands for)
CAPABILITIES: dict[str, tuple[tuple[int, int], str]] = {
    "fp8": ((8, 9), "FP8 tensor cores"),
}


class DeviceUnavailable(ValueError):
    """The device asked for is not on this machine; the message says why, as far as torch can tell."""


def cuda_missing_reason() -> str | None:
    """Why torch sees no CUDA device (build, visibility, driver), or None when one is visible."""
    import torch

    if torch.cuda.is_available():
        return None
    if torch.version.cuda is None:
        return f"torch {torch.__version__}, built without CUDA"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and not visible.strip():
        return f"torch {torch.__version__}, CUDA {torch.version.cuda}; CUDA_VISIBLE_DEVICES is empty"
    return f"torch {torch.__version__}, CUDA {torch.version.cuda}; no driver or no device found"


def require_device(device: str) -> None:
    """Raise DeviceUnavailable when `device` ("cuda", "cuda:N") names CUDA and none is visible."""
    if not device.startswith("cuda"):
        return
    reason = cuda_missing_reason()
    if reason is not None:
        raise DeviceUnavailable(f"--device {device} but no CUDA device is visible ({reason})")


def cuda_capability(device: str) -> tuple[tuple[int, int], str]:
    """(compute capability, name) of a CUDA device ("cuda", "cuda:N")."""
    import torch

    dev = torch.device(device)
    index = dev.index if dev.index is not None else torch.cuda.current_device()
    return tuple(torch.cuda.get_device_capability(index)), torch.cuda.get_device_name(index)


def unmet_requirement(requires: Iterable[str], device: str) -> str | None:
    """Why `device` cannot run a task that requires `requires` (benchmark.task.REQUIREMENTS), in one
    line, or None when it can. Only CUDA devices can lack one; the CPU meets them all."""
    needed = [r for r in requires if r in CAPABILITIES]
    if not needed or not device.startswith("cuda"):
        return None
    capability, name = cuda_capability(device)
    for r in needed:
        least, what = CAPABILITIES[r]
        if capability < least:
            return (
                f"requires {what} (compute capability {least[0]}.{least[1]} or newer); "
                f"{name} is {capability[0]}.{capability[1]}"
            )
    return None
