"""Whether the timing child is alone on its GPU.

Another process's kernels slow the reference or the candidate and fake a speedup. Before and after each timed
phase the worker asks NVML (nvidia-ml-py) which processes hold a compute context on its device,
and which of them ran kernels or moved memory in the last ACTIVITY_WINDOW_S (NVML's per-process
utilization samples): an idle context (a trainer holding its policy between steps, a finished
generation) slows nobody. Its own process, its parent, the evaluator (a trainer or run that
waits for this verdict; the job names it, since a forked worker's parent is the zygote) and the
other holders of the device's lock (benchmark.evaluate.gpu_lock: the verifier's other lanes and any other
evaluation on this host, which wait while this one times) are known
and excluded; any other active process is a neighbour, a sibling that uses the GPU outside the
lock too. Where the driver keeps no utilization samples, holding a context counts as activity.
Where NVML is missing, or its process ids do not match this PID namespace (the worker itself is
not in the list), the check reports itself unavailable rather than guessing."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace

import torch

ACTIVITY_WINDOW_S = 2.0


@dataclass(frozen=True)
class Census:
    available: bool
    neighbours: tuple[str, ...] = ()  # "pid name (MiB)" of each foreign process active lately
    why: str = ""  # why the check is unavailable
    waited_for: tuple[str, ...] = ()  # neighbours `wait_until_alone` waited for (gone by this census)


def _name_of(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def nvml_handle(device: torch.device):
    """NVML's handle of a torch CUDA device (matched by UUID: CUDA_VISIBLE_DEVICES renumbers devices)."""
    import pynvml

    pynvml.nvmlInit()
    uuid = str(torch.cuda.get_device_properties(device).uuid)
    return pynvml.nvmlDeviceGetHandleByUUID(uuid if uuid.startswith("GPU-") else f"GPU-{uuid}")


def max_sm_clock_mhz(device: torch.device) -> int | None:
    """The highest clock `device`'s SMs can run at, in MHz, through NVML; None where NVML cannot say."""
    try:
        import pynvml

        return int(pynvml.nvmlDeviceGetMaxClockInfo(nvml_handle(device), pynvml.NVML_CLOCK_SM)) or None
    except Exception:  # noqa: BLE001 - no NVML, no driver support: the caller probes instead
        return None


def _nvml_pids(device: torch.device) -> dict[int, tuple[int, bool]]:
    """pid -> (used bytes, active lately) of every compute process on `device`, through NVML."""
    import pynvml

    handle = nvml_handle(device)
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
    since_us = int((time.time() - ACTIVITY_WINDOW_S) * 1e6)
    try:
        samples = pynvml.nvmlDeviceGetProcessUtilization(handle, since_us)
        busy = {s.pid for s in samples if s.timeStamp >= since_us and (s.smUtil > 0 or s.memUtil > 0)}
    except pynvml.NVMLError_NotFound:  # no sample in the window: nobody ran anything
        busy = set()
    except pynvml.NVMLError:  # no utilization samples on this driver: every context counts
        busy = {p.pid for p in procs}
    return {p.pid: (int(p.usedGpuMemory or 0), p.pid in busy) for p in procs}


def _nvml_total(device: torch.device) -> int:
    import pynvml

    return int(pynvml.nvmlDeviceGetMemoryInfo(nvml_handle(device)).total)


def census(device: torch.device, known: set[int] = frozenset()) -> Census:
    if device.type != "cuda":
        return Census(False, why="not a CUDA device")
    try:
        pids = _nvml_pids(device)
    except Exception as e:  # noqa: BLE001 - no NVML, no driver support: the check is unavailable
        return Census(False, why=f"NVML unavailable: {e!r}"[:200])
    me = os.getpid()
    if me not in pids:
        return Census(False, why="NVML's process ids do not match this PID namespace")
    known = {me, os.getppid(), *known}
    foreign = [
        f"{pid} {_name_of(pid)} ({used // 2**20} MiB)"
        for pid, (used, active) in sorted(pids.items())
        if active and pid not in known
    ]
    return Census(True, tuple(foreign))


@dataclass(frozen=True)
class MemoryReading:
    """Device memory as one sample's judge saw it near its end: what its pair of processes held
    (`pair_bytes`: the judge's and the candidate's contexts, caches and arena), and what the lanes of
    this host may share (`room_bytes`: the device's total less what processes outside the lock hold)."""

    pair_bytes: int
    room_bytes: int


def memory_reading(
    device: torch.device, pair: set[int], known: set[int] = frozenset()
) -> MemoryReading | None:
    """NVML's reading of `pair`'s device memory and of the room the lock's holders share; None where
    NVML is unavailable or does not see this process (another PID namespace)."""
    if device.type != "cuda":
        return None
    try:
        pids, total = _nvml_pids(device), _nvml_total(device)
    except Exception:  # noqa: BLE001 - no NVML: no reading
        return None
    if os.getpid() not in pids:
        return None
    members = {os.getpid(), os.getppid(), *pair, *known}
    foreign = sum(used for pid, (used, _) in pids.items() if pid not in members)
    return MemoryReading(sum(pids[p][0] for p in pair if p in pids), max(0, total - foreign))


def wait_until_alone(
    device: torch.device, wait_s: float, known: set[int] = frozenset(), poll_s: float = 0.5
) -> Census:
    """Poll until no neighbour is left or `wait_s` has passed; the last census, with the neighbours
    waited for."""
    deadline = time.monotonic() + wait_s
    waited: dict[str, None] = {}
    while True:
        c = census(device, known)
        if not c.available or not c.neighbours or time.monotonic() >= deadline:
            return replace(c, waited_for=tuple(waited))
        waited.update(dict.fromkeys(c.neighbours))
        time.sleep(poll_s)
