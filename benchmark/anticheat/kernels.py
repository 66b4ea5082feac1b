"""Custom-kernel evidence on CUDA: the profiler must show the candidate's own kernels doing the work.

A kernel counts as a library kernel when its name matches a pattern of cuBLAS, cuBLASLt, cuDNN,
CUTLASS, CUB or torch's own ATen kernels; anything else (load_inline, Triton, pycuda kernels) is
the candidate's own."""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

LIBRARY_KERNEL = re.compile(
    r"cublas|cutlass|cudnn|nvjet|xmma|\b(ampere|volta|turing|hopper|sm\d+)_[a-z]*(gemm|conv)|gemv2[NT]_kernel|"
    r"gemvx::|gemmk1_kernel|gemmSN_|splitKreduce|at::native|at::cuda|void at::|at_cuda_detail|\bcub::|"
    r"thrust::|Memset|Memcpy|cufft|cusparse|cusolver|winograd|implicit_convolve|nchwToNhwc|nhwcToNchw|magma",
    re.IGNORECASE,
)
LIBRARY_SHARE_LIMIT = 0.5  # above this share of forward's device time, library kernels dominate


@dataclass(frozen=True)
class KernelEvidence:
    custom: dict[str, float]  # kernel name -> device microseconds
    library: dict[str, float]

    @property
    def library_share(self) -> float:
        total = sum(self.custom.values()) + sum(self.library.values())
        return sum(self.library.values()) / total if total else 0.0


def profile_forward(fn, *args) -> KernelEvidence:
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    custom: dict[str, float] = {}
    library: dict[str, float] = {}
    for evt in prof.events():
        if evt.device_type != torch.autograd.DeviceType.CUDA:
            continue
        bucket = library if LIBRARY_KERNEL.search(evt.name) else custom
        bucket[evt.name] = bucket.get(evt.name, 0.0) + evt.device_time
    return KernelEvidence(custom, library)


def kernel_flags(ev: KernelEvidence) -> list[tuple[str, str]]:
    flags = []
    if not ev.custom:
        names = ", ".join(sorted(ev.library)[:3]) or "none"
        flags.append(("no_custom_kernel", f"no kernel of the candidate's own ran (library kernels: {names})"))
    elif ev.library_share > LIBRARY_SHARE_LIMIT:
        top = max(ev.library, key=ev.library.get)
        flags.append(
            ("library_kernels_dominate", f"library kernels took {ev.library_share:.0%} of device time (largest: {top[:80]})")
        )
    return flags
