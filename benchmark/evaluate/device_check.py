"""Refuse `--device cuda` on a machine without a visible CUDA device before anything runs, so a
missing GPU is one clear line rather than a traceback, or a candidate's `runtime_error`, minutes in."""

from __future__ import annotations

import os


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
