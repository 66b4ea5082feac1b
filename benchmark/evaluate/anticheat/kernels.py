"""Custom-kernel evidence on CUDA: the profiler must show the candidate's own kernels doing the work.

A kernel counts as a library kernel when its name matches a pattern of cuBLAS, cuBLASLt, cuDNN,
CUTLASS, CUB or torch's own ATen kernels; anything else (load_inline, Triton, pycuda kernels) is
the candidate's own. Every kernel and copy must run on the stream that was current for the call:
work on another stream escapes the timer's events (it can start under the device-side wait that
each timed call is launched behind, `benchmark.evaluate.timing`, or trail after the current stream ends)."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field

import torch

from benchmark.evaluate.boundary import KernelRecord

LIBRARY_KERNEL = re.compile(
    r"cublas|cutlass|cudnn|nvjet|xmma|\b(ampere|volta|turing|hopper|sm\d+)_[a-z]*(gemm|conv)|gemv2[NT]_kernel|"
    r"gemvx::|gemmk1_kernel|gemmSN_|splitKreduce|at::native|at::cuda|void at::|at_cuda_detail|\bcub::|"
    r"thrust::|Memset|Memcpy|cufft|cusparse|cusolver|winograd|implicit_convolve|nchwToNhwc|nhwcToNchw|magma",
    re.IGNORECASE,
)
MARKER_KERNEL = "spin_kernel"  # the kernel of torch.cuda._sleep
LIBRARY_SHARE_LIMIT = 0.5  # above this share of forward's device time, library kernels dominate


@dataclass(frozen=True)
class KernelEvidence:
    custom: dict[str, float]  # kernel name -> device microseconds
    library: dict[str, float]
    other_streams: dict[str, float] = field(default_factory=dict)  # device work on a stream not current

    @property
    def device_us(self) -> float:
        return sum(self.custom.values()) + sum(self.library.values())

    @property
    def library_share(self) -> float:
        total = sum(self.custom.values()) + sum(self.library.values())
        return sum(self.library.values()) / total if total else 0.0


class KernelProfile:
    """One profiled call, in three steps so that only the call itself needs the device lock (the
    profiler's start and stop take seconds of host work, and a shared hold that long stalls every
    lane behind a timing that waits for it). A marker launched on the current
    stream just before the call names that stream in the profiler's terms (its CUPTI stream id), so
    work elsewhere can be told apart. Runs where the call runs; the records it returns are judged
    elsewhere (`evidence`)."""

    def __init__(self) -> None:
        from torch.profiler import ProfilerActivity, profile

        self._prof = profile(activities=[ProfilerActivity.CUDA])

    def start(self) -> None:
        self._prof.start()

    def call(self, fn, *args) -> None:
        torch.cuda.synchronize()
        torch.cuda._sleep(1)
        fn(*args)
        torch.cuda.synchronize()

    def stop(self) -> tuple[list[KernelRecord], bool]:
        """Every kernel and copy of the call (name, device microseconds, whether on the marker's
        stream), and whether the marker was seen."""
        self._prof.stop()
        events = [e for e in self._prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        marker = min(
            (e for e in events if MARKER_KERNEL in e.name), key=lambda e: e.time_range.start, default=None
        )
        records = [
            KernelRecord(
                e.name,
                float(e.device_time),
                marker is None or e.device_resource_id == marker.device_resource_id,
            )
            for e in events
            if e is not marker
        ]
        return records, marker is not None


def evidence(records: list[KernelRecord] | tuple[KernelRecord, ...]) -> KernelEvidence:
    """The records sorted into the candidate's own kernels, library kernels, and work on other streams."""
    custom: dict[str, float] = {}
    library: dict[str, float] = {}
    other_streams: dict[str, float] = {}
    for r in records:
        bucket = library if LIBRARY_KERNEL.search(r.name) else custom
        bucket[r.name] = bucket.get(r.name, 0.0) + r.device_us
        if not r.on_current_stream:
            other_streams[r.name] = other_streams.get(r.name, 0.0) + r.device_us
    return KernelEvidence(custom, library, other_streams)


def profile_forward(fn, *args, device_lock=contextlib.nullcontext) -> KernelEvidence:
    """One profiled call of `fn(*args)` in this process, `device_lock()` held around the call alone."""
    profile = KernelProfile()
    profile.start()
    try:
        with device_lock():
            profile.call(fn, *args)
    finally:
        records, _ = profile.stop()
    return evidence(records)


def kernel_flags(ev: KernelEvidence) -> list[tuple[str, str]]:
    flags = []
    if ev.other_streams:
        top = max(ev.other_streams, key=ev.other_streams.get)
        flags.append(
            (
                "side_stream",
                f"{len(ev.other_streams)} kernel(s) or copies ran on a stream other than the "
                f"current one ({sum(ev.other_streams.values()):.0f} us; largest: {top[:80]})",
            )
        )
    if not ev.custom:
        names = ", ".join(sorted(ev.library)[:3]) or "none"
        flags.append(("no_custom_kernel", f"no kernel of the candidate's own ran (library kernels: {names})"))
    elif ev.library_share > LIBRARY_SHARE_LIMIT:
        top = max(ev.library, key=ev.library.get)
        flags.append(
            (
                "library_kernels_dominate",
                f"library kernels took {ev.library_share:.0%} of device time (largest: {top[:80]})",
            )
        )
    return flags
