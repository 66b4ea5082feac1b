"""The per-task work of a build, in a worker process (or in the build's own process): validate the
task with the suite validator, describe its tensors (metadata.py) and, when the build uses an
offline teacher (Inductor), let it propose candidates. Everything for one task happens in one
process, so the task is imported and its CUDA context set up once.

The result is a plain dict (it crosses process boundaries and goes into the build journal)."""

from __future__ import annotations

import gc
import logging
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from benchmark.evaluate.device_profile import DeviceProfile
from benchmark.suite.validate import TaskTimeout, ValidationConfig, deadline, validate_task, validation_timing
from benchmark.task import import_file, load_task
from datasets_builder.metadata import describe

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerOptions:
    device: str = "cpu"
    fast: bool = False
    timing_seconds: float = 0.05
    timeout_s: float = 180.0
    seed: int = 0
    teacher: str | None = None  # "inductor" or None (model teachers run in the build process)
    variants: tuple[str, ...] = ("default",)
    profile: dict | None = None  # benchmark.evaluate.device_profile record of the GPU


_state: dict = {}


def init(options: WorkerOptions, teacher=None) -> None:
    """Set up this process: the options, the teacher and the shared timer of the validator."""
    _state.clear()
    _state["options"] = options
    _state["timer_box"] = []
    _state["profile"] = DeviceProfile.from_dict(options.profile) if options.profile else None
    if teacher is None and options.teacher == "inductor":
        from datasets_builder.teachers.inductor import InductorTeacher

        teacher = InductorTeacher(options.variants, device=options.device, seed=options.seed)
    _state["teacher"] = teacher
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)


def process(task_path: str, root: str) -> dict:
    options: WorkerOptions = _state["options"]
    t0 = time.monotonic()
    task = load_task(task_path, root=Path(root))
    vcfg = ValidationConfig(
        device=options.device,
        fast=options.fast,
        seed=options.seed,
        task_timeout_s=options.timeout_s,
        timing=replace(validation_timing(), max_seconds=options.timing_seconds),
    )
    report = validate_task(task, vcfg, _state["timer_box"])
    record = {
        "task_id": task.task_id,
        "valid": report.ok,
        "report": report.to_dict(),
        "metadata": None,
        "candidates": [],
        "skips": [],
        "error": None,
    }
    if report.ok:
        name = f"solbench_build_{task.hash[:16]}"
        try:
            with deadline(options.timeout_s):
                module = import_file(task.path, name)
                meta = describe(task, options.device, _state["profile"], options.seed, module=module)
                record["metadata"] = meta.to_dict()
                teacher = _state["teacher"]
                if teacher is not None:
                    candidates, skips = teacher.propose(task, module)
                    record["candidates"] = [c.to_dict() for c in candidates]
                    record["skips"] = [s.to_dict() for s in skips]
        except TaskTimeout as e:
            record["error"] = f"timeout: {e}"
            record["skips"].append(
                {
                    "task_id": task.task_id,
                    "teacher": options.teacher or "",
                    "variant": "",
                    "reason": "timeout",
                    "detail": str(e),
                }
            )
        except Exception as e:  # noqa: BLE001 - one broken task must not stop the build
            record["error"] = f"{type(e).__name__}: {e}"[:1000]
            log.warning("%s: %s", task.task_id, record["error"])
        finally:
            sys.modules.pop(name, None)
    record["seconds"] = round(time.monotonic() - t0, 3)
    gc.collect()
    if options.device == "cuda" and torch.cuda.is_available():
        torch.cuda.empty_cache()
    return record
