"""Production baselines: the best available implementation of each task, so that "3x" says over what.

Beside eager PyTorch (the reference) and plain `torch.compile` (the harness's `baseline='compile'`),
the manifest pass times, per task, what a practitioner would reach for instead of writing a kernel:
`torch.compile(mode="max-autotune")` for every task on the GPU, and where one exists a task-specific
library path: `F.scaled_dot_product_attention` under one chosen backend (flash, cuDNN,
memory-efficient) for attention, Liger's Triton kernels (`liger-kernel`, not a dependency) for
RMSNorm, SwiGLU, layer norm and cross-entropy, `torch._scaled_mm` (cuBLASLt) for FP8 GEMMs.

How a task gets its baselines. A baseline is a name and a builder: `build(model)` receives the
reference `Model` instance (built from the task's seeds) and returns a callable taking the task's
inputs and computing the same outputs. Builders come from three places, merged in this order:
  1. `GENERIC`: for every task (`torch.compile` with max-autotune; on CUDA only).
  2. `REGISTRY`, keyed by task name (the file's stem), in benchmark/suite/production.py: the
     baselines of the built-in tasks. Kept here, not in the task files, because a task's file hash
     pins its manifest row and the suite version: declaring a baseline must not invalidate a task's
     measurements, and a task file stays a plain KernelBench file with nothing SOLBench-only in it.
  3. An optional module-level `get_baselines()` in the task file, returning {name: builder}: for new
     tasks that ship with their baseline (FP8 GEMM tasks declaring `torch._scaled_mm`). Other tools
     ignore the function, as they ignore `get_alt_inputs`; it should import optional libraries inside
     the builder, never at module level, so the file loads where they are missing.

What happens to each (`measure_baselines`): a builder that raises ImportError is skipped with the
reason (the library is not installed); one that raises otherwise, or whose outputs the harness's own
comparison (benchmark.evaluate.correctness with the exact reference, the rule every candidate is held
to) rejects on any check input set, is dropped with the reason; the rest are timed interleaved with
the eager reference under the timing protocol (`Timer.interleaved`, two arms, rotating through the
timing input sets), and recorded as median ms, speedup over eager (the paired per-round ratio, the
same sense as a verdict's speedup) and its spread. The numbers mean something on the GPU only; the
CPU path exists so that it can be tested."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

from benchmark.evaluate.correctness import compare_outputs
from benchmark.evaluate.exact import ExactReference
from benchmark.evaluate.program import TaskProgram, clone_args, detach_outputs, paired_arms, timing_seeds
from benchmark.evaluate.timing import Timer, TimingConfig
from benchmark.suite.manifest import BaselineTiming

log = logging.getLogger(__name__)

Builder = Callable[[torch.nn.Module], Callable[..., object]]  # model -> forward(*inputs)
CHECK_SEEDS = 2  # input sets each baseline is checked on before it is timed


@dataclass(frozen=True)
class BaselineReport:
    """The baselines of one task after a manifest pass: those timed, and those left out with why."""

    timed: dict[str, BaselineTiming]
    dropped: dict[str, str]  # name -> reason (library missing, raised, disagreed with the reference)

    @property
    def best(self) -> str | None:
        """The fastest timed baseline's name (highest speedup over eager)."""
        return max(self.timed, key=lambda n: self.timed[n].speedup) if self.timed else None


def _compile_max_autotune(model: torch.nn.Module) -> Callable[..., object]:
    return torch.compile(model, mode="max-autotune")


@dataclass(frozen=True)
class Generic:
    build: Builder
    devices: tuple[str, ...]  # device types it applies on


GENERIC: dict[str, Generic] = {
    # On the CPU inductor's autotuning has nothing to tune and a C++ build per task: GPU only.
    "compile_max_autotune": Generic(_compile_max_autotune, ("cuda",)),
}


def registry() -> Mapping[str, Mapping[str, Builder]]:
    """The built-in tasks' baselines by task name (imported on first use)."""
    from benchmark.suite.production import REGISTRY

    return REGISTRY


def discover(
    task_name: str,
    module: object,
    device: torch.device,
    extra: Mapping[str, Mapping[str, Builder]] | None = None,
) -> dict[str, Builder]:
    """Every baseline declared for a task: the generic ones that apply on `device`, the registry's
    (or `extra`, which replaces it) under the task's name, and the task file's own `get_baselines()`."""
    found: dict[str, Builder] = {n: g.build for n, g in GENERIC.items() if device.type in g.devices}
    found.update((extra if extra is not None else registry()).get(task_name, {}))
    declared = getattr(module, "get_baselines", None)
    if callable(declared):
        found.update(declared())
    return found


def _check(
    build: Builder, program: TaskProgram, model, seed: int, atol, rtol, exact: ExactReference
) -> tuple[Callable[..., object] | None, str | None]:
    """(the baseline's forward, None) when it matches the reference on CHECK_SEEDS input sets, else
    (None, why)."""
    try:
        forward = build(model)
    except ImportError as e:
        return None, f"skipped: {e}"[:300]
    for k in range(CHECK_SEEDS):
        inputs = program.inputs(seed + 1000 + k)
        try:
            with torch.no_grad():
                ref = detach_outputs(model(*clone_args(inputs)))
                got = detach_outputs(forward(*clone_args(inputs)))
        except ImportError as e:
            return None, f"skipped: {e}"[:300]
        except Exception as e:  # noqa: BLE001 - a baseline that cannot run here is dropped, not raised
            return None, f"raised {type(e).__name__}: {e}"[:300]
        cmp = compare_outputs(ref, got, atol, rtol, exact=exact(clone_args(inputs)))
        if not cmp.ok:
            return None, f"disagrees with the reference: {cmp.detail}"[:300]
    return forward, None


def measure_baselines(
    task_name: str,
    program: TaskProgram,
    model,
    seed: int,
    atol: float | None,
    rtol: float | None,
    timer: Timer,
    config: TimingConfig | None = None,
    extra: Mapping[str, Mapping[str, Builder]] | None = None,
    into: BaselineReport | None = None,
) -> BaselineReport:
    """Check, then time, each of the task's baselines interleaved with the eager `model`; each result
    lands in `into` (a fresh report by default) as soon as it is known, so a caller whose deadline
    interrupts the pass keeps what was measured."""
    report = into if into is not None else BaselineReport({}, {})
    timed, dropped = report.timed, report.dropped
    builders = discover(task_name, program.module, program.device, extra)
    if not builders:
        return report
    exact = ExactReference(model, program.inputs(seed + 1000))
    sets = [program.inputs(s) for s in timing_seeds(seed)]
    for name, build in builders.items():
        forward, why = _check(build, program, model, seed, atol, rtol, exact)
        if forward is None:
            dropped[name] = why or "unknown"
            log.info("%s: baseline %s left out: %s", task_name, name, why)
            continue
        try:
            with torch.no_grad():
                result = timer.interleaved(paired_arms(model, forward, sets), config)
        except Exception as e:  # noqa: BLE001
            dropped[name] = f"raised while timed {type(e).__name__}: {e}"[:300]
            continue
        timed[name] = BaselineTiming(
            ms=result.stats[1].median_ms, speedup=result.ratio or 0.0, spread=result.ratio_spread
        )
    return report
