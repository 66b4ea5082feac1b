"""Speed of light: the physical floor of a task on a device.

A task must at least read each of its inputs and parameters once and write each of its outputs
once, and it must do its matrix work (torch's FLOP counter: matmuls, convolutions, attention).
The floor time is the larger of moving those bytes at peak bandwidth and doing that work at peak
matrix rate for the task's dtype. Nothing real runs faster, so a candidate timed below the floor
is measuring something other than the task."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmark.evaluate.device_profile import DeviceProfile


@dataclass(frozen=True)
class SolCounts:
    flops: int  # matrix FLOPs of one forward, as torch's FLOP counter counts them
    bytes: int  # least bytes moved: inputs, parameters and buffers read once, outputs written once


def tensor_leaves(value: object) -> list[torch.Tensor]:
    """Every tensor inside nested lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [t for item in value for t in tensor_leaves(item)]
    return []


def _unique_nbytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of distinct tensors: the same tensor (or a tied weight) passed twice is read once."""
    seen: set[tuple] = set()
    total = 0
    for t in tensors:
        key = (t.device, t.data_ptr(), t.dtype, tuple(t.shape), tuple(t.stride()))
        if key in seen:
            continue
        seen.add(key)
        total += t.numel() * t.element_size()
    return total


def least_bytes(inputs: object, model: object, output: object) -> int:
    state = []
    if isinstance(model, torch.nn.Module):
        state = [*model.parameters(), *model.buffers()]
    return _unique_nbytes([*tensor_leaves(inputs), *state]) + _unique_nbytes(tensor_leaves(output))


def count(model, inputs: list) -> tuple[SolCounts, object]:
    """Run one forward under the FLOP counter; returns the counts and the output. Where the counter
    itself fails (torch's attention formula asserts on grouped-query shapes), the forward runs
    again without it and counts no matrix work: the memory floor alone is still a true floor."""
    counter = FlopCounterMode(display=False)
    try:
        with counter, torch.no_grad():
            output = model(*inputs)
        flops = int(counter.get_total_flops())
    except AssertionError as e:
        if "flop" not in str(e).lower():
            raise
        with torch.no_grad():
            output = model(*inputs)
        flops = 0
    return SolCounts(flops=flops, bytes=least_bytes(inputs, model, output)), output


def floor_ms(counts: SolCounts, profile: DeviceProfile, dtype: str) -> float:
    """max(bytes / peak bandwidth, matrix FLOPs / peak matrix rate for the dtype), in milliseconds."""
    memory_s = counts.bytes / profile.bandwidth
    compute_s = counts.flops / profile.matmul_rate(dtype)
    return max(memory_s, compute_s) * 1e3
