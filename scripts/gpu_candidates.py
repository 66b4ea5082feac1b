"""Generated GPU candidates for the verifier's throughput benchmark and fault soak: honest, wrong,
failing and faulty kernels in every supported style (raw CUDA through pycuda, Triton, load_inline),
each a distinct source. Every candidate targets the level-1 task gelu_tanh_fp32 and carries the
verdict it must get."""

from __future__ import annotations

from dataclasses import dataclass

TASK = "level1/gelu_tanh_fp32.py"
GELU_C = "0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + {c}f * v * v * v)))"


@dataclass(frozen=True)
class Candidate:
    name: str
    style: str  # raw | triton | inline
    code: str
    expected: str  # the verdict it must get


def raw(name: str, body: str, block: int, grid_cap: int, expected: str, extra_args: str = "") -> Candidate:
    code = f'''import torch

from benchmark.cuda_raw import compile_cuda

SOURCE = r"""
__global__ void k(const float* __restrict__ x, float* __restrict__ y, long long n) {{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{
        float v = x[i];
        {body}
    }}
}}
"""
kernel = compile_cuda(SOURCE).kernel("k", "PPq")


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x){extra_args}
        n = x.numel()
        kernel(x, y, n, grid=(min((n + {block - 1}) // {block}, {grid_cap}),), block=({block},))
        return y
'''
    return Candidate(name, "raw", code, expected)


def triton(name: str, block: int, warps: int, c: str, expected: str) -> Candidate:
    code = f'''import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    inner = 0.7978845608028654 * (x + {c} * x * x * x)
    t = 1.0 - 2.0 / (tl.exp(2.0 * inner) + 1.0)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, {block}),)](x, y, n, BLOCK={block}, num_warps={warps})
        return y
'''
    return Candidate(name, "triton", code, expected)


def inline(name: str, block: int, body: str, expected: str) -> Candidate:
    code = f'''import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {{
    int64_t i = blockIdx.x * (int64_t){block} + threadIdx.x;
    if (i < n) {{
        float v = x[i];
        {body}
    }}
}}
torch::Tensor gelu(torch::Tensor x) {{
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    gelu_kernel<<<(n + {block - 1}) / {block}, {block}, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}}
"""
ext = load_inline(name="bench_{name}", cpp_sources="torch::Tensor gelu(torch::Tensor x);", cuda_sources=CUDA,
                  functions=["gelu"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.gelu(x)
'''
    return Candidate(name, "inline", code, expected)


def throughput_set() -> list[Candidate]:
    """60 distinct candidates: 45 honest, 8 wrong, 4 build failures, 3 runtime failures."""
    good, wrong = GELU_C.format(c="0.044715"), GELU_C.format(c="0.05")
    out = []
    for block in (64, 128, 256, 512, 1024):
        for cap in (528, 1056, 2112, 4224):
            out.append(raw(f"raw_b{block}_g{cap}", f"y[i] = {good};", block, cap, "pass"))
    for block in (256, 512, 1024, 2048, 4096):
        for warps in (2, 4, 8):
            out.append(triton(f"triton_b{block}_w{warps}", block, warps, "0.044715", "pass"))
    for block in (128, 256, 512, 1024):
        out.append(inline(f"inline_b{block}", block, f"y[i] = {good};", "pass"))
    for block in (128, 256, 512):
        out.append(raw(f"raw_wrong_b{block}", f"y[i] = {wrong};", block, 1056, "incorrect"))
    for block in (512, 1024):
        out.append(triton(f"triton_wrong_b{block}", block, 4, "0.05", "incorrect"))
    for block in (256, 512):
        out.append(inline(f"inline_wrong_b{block}", block, f"y[i] = {wrong};", "incorrect"))
    out.append(raw("raw_wrong_half", f"if (i % 2 == 0) y[i] = {good};", 256, 1056, "incorrect"))
    out.append(raw("raw_build_error_a", "y[i] = undefined_name(v);", 256, 1056, "compile_error"))
    out.append(raw("raw_build_error_b", "y[i] = v +;", 256, 1056, "compile_error"))
    out.append(inline("inline_build_error", 256, "y[i] = no_such_function(v);", "compile_error"))
    out.append(Candidate("syntax_error", "raw", "import torch\nclass ModelNew(torch.nn.Module)\n    pass\n", "compile_error"))
    for i in range(3):
        out.append(Candidate(f"raises_{i}", "raw", "import torch\n\n\nclass ModelNew(torch.nn.Module):\n"
                             f"    def forward(self, x):\n        raise RuntimeError('launch failed {i}')\n",
                             "runtime_error"))
    return out


def fault_set(n: int = 200) -> list[Candidate]:
    """n candidates: honest kernels interleaved with illegal accesses, traps, device OOM, hangs and
    host crashes, so every fault is followed by honest samples that must still pass."""
    good = GELU_C.format(c="0.044715")
    faults = [
        raw("fault_illegal_access", f"y[i * 1000003LL + (1LL << 40)] = {good};", 256, 1056, "runtime_error"),
        raw("fault_trap", "if (i == 12345) __trap(); y[i] = v;", 256, 1056, "runtime_error"),
        raw("fault_hang", "volatile float w = v; while (w == w) { w = w * 1.0000001f; } y[i] = w;", 256, 1056,
            "timeout"),
        Candidate("fault_device_oom", "raw", "import torch\n\n\nclass ModelNew(torch.nn.Module):\n"
                  "    def forward(self, x):\n        return torch.empty(2**45, device=x.device)\n", "runtime_error"),
        inline("fault_host_segfault", 256, f"y[i] = {good};", "runtime_error"),
    ]
    faults[-1] = Candidate(faults[-1].name, "inline", faults[-1].code.replace(
        "    auto xc = x.contiguous();", "    volatile int* null_ptr = nullptr; *null_ptr = 1;\n    auto xc = x.contiguous();"),
        "runtime_error")
    honest = [c for c in throughput_set() if c.expected == "pass" and c.style != "inline"]
    out, f = [], 0
    for i in range(n):
        if i % 5 == 4:
            out.append(faults[f % len(faults)])
            f += 1
        else:
            out.append(honest[i % len(honest)])
    return out
