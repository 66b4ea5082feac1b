"""Generated GPU candidates for the verifier's benchmarks and fault soak: honest, wrong, failing and
faulty kernels in every supported style (raw CUDA through pycuda, Triton, load_inline), each a
distinct source, each carrying the verdict it must get. Most target the level-1 task gelu_tanh_fp32;
the KernelBench-like mix adds row sums and a bf16 softmax from the honest kernels in tests/honest.

A `variant` string is written into every kernel's source (a comment in the CUDA or the Triton
kernel), so a fresh variant makes every build cold: the load_inline build cache, pycuda's and
Triton's caches are all keyed by the kernel's source."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TASK = "level1/gelu_tanh_fp32.py"
ROW_SUM = "level1/sum_rows_fp32.py"
SOFTMAX = "level1/softmax_rows_bf16.py"
GELU_C = "0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + {c}f * v * v * v)))"
HONEST = Path(__file__).resolve().parent.parent / "tests" / "honest"


@dataclass(frozen=True)
class Candidate:
    name: str
    style: str  # raw | triton | inline | python
    code: str
    expected: str  # the verdict it must get
    task: str = TASK  # path inside the built-in suite


def mark(variant: str, lang: str = "c") -> str:
    """The line that makes a kernel's source, and so its build, unique to the variant."""
    if not variant:
        return ""
    return f"\n// variant {variant}" if lang == "c" else f"\n    # variant {variant}"


def raw(
    name: str, body: str, block: int, grid_cap: int, expected: str, extra_args: str = "", variant: str = ""
) -> Candidate:
    code = f'''import torch

from benchmark.cuda_raw import compile_cuda

SOURCE = r"""{mark(variant)}
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


def triton(name: str, block: int, warps: int, c: str, expected: str, variant: str = "") -> Candidate:
    code = f"""import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):{mark(variant, "py")}
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
"""
    return Candidate(name, "triton", code, expected)


def inline(name: str, block: int, body: str, expected: str, variant: str = "") -> Candidate:
    code = f'''import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""{mark(variant)}
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


def throughput_set(variant: str = "") -> list[Candidate]:
    """54 distinct candidates: 39 honest, 8 wrong, 4 build failures, 3 runtime failures."""
    good, wrong = GELU_C.format(c="0.044715"), GELU_C.format(c="0.05")
    v = variant
    out = []
    for block in (64, 128, 256, 512, 1024):
        for cap in (528, 1056, 2112, 4224):
            out.append(
                raw(
                    f"raw_b{block}_g{cap}", f"y[i] = {good};", block, cap, "pass", variant=v and f"{v}-g{cap}"
                )
            )
    for block in (256, 512, 1024, 2048, 4096):
        for warps in (2, 4, 8):
            out.append(
                triton(
                    f"triton_b{block}_w{warps}",
                    block,
                    warps,
                    "0.044715",
                    "pass",
                    variant=v and f"{v}-w{warps}",
                )
            )
    for block in (128, 256, 512, 1024):
        out.append(inline(f"inline_b{block}", block, f"y[i] = {good};", "pass", variant=v))
    for block in (128, 256, 512):
        out.append(raw(f"raw_wrong_b{block}", f"y[i] = {wrong};", block, 1056, "incorrect", variant=v))
    for block in (512, 1024):
        out.append(triton(f"triton_wrong_b{block}", block, 4, "0.05", "incorrect", variant=v))
    for block in (256, 512):
        out.append(inline(f"inline_wrong_b{block}", block, f"y[i] = {wrong};", "incorrect", variant=v))
    # Half its output is never written: that half holds the harness's poison (uninitialized_output).
    out.append(raw("raw_wrong_half", f"if (i % 2 == 0) y[i] = {good};", 256, 1056, "cheat", variant=v))
    out.append(raw("raw_build_error_a", "y[i] = undefined_name(v);", 256, 1056, "compile_error", variant=v))
    out.append(raw("raw_build_error_b", "y[i] = v +;", 256, 1056, "compile_error", variant=v))
    out.append(inline("inline_build_error", 256, "y[i] = no_such_function(v);", "compile_error", variant=v))
    out.append(
        python(
            "syntax_error", "import torch\nclass ModelNew(torch.nn.Module)\n    pass\n", "compile_error", v
        )
    )
    for i in range(3):
        out.append(
            python(
                f"raises_{i}",
                "import torch\n\n\nclass ModelNew(torch.nn.Module):\n"
                f"    def forward(self, x):\n        raise RuntimeError('launch failed {i}')\n",
                "runtime_error",
                v,
            )
        )
    return out


def python(name: str, code: str, expected: str, variant: str = "", task: str = TASK) -> Candidate:
    """A candidate with no kernel (a failure before any build), unique to the variant all the same."""
    return Candidate(name, "python", code + (f"# variant {variant}\n" if variant else ""), expected, task)


def honest_file(name: str, task: str, variant: str) -> Candidate:
    """One of the GPU-verified honest kernels in tests/honest, its kernel source marked with the variant."""
    code = (HONEST / f"{name}.py").read_text()
    if "@triton.jit" in code:
        lines = code.splitlines(keepends=True)
        start = next(i for i, line in enumerate(lines) if line.startswith("@triton.jit"))
        body = next(i for i in range(start + 1, len(lines)) if lines[i].rstrip().endswith(":")) + 1
        lines.insert(body, mark(variant, "py").lstrip("\n") + "\n")
        return Candidate(name, "triton", "".join(lines), "pass", task)
    return Candidate(name, "inline", code.replace('r"""', 'r"""' + mark(variant), 1), "pass", task)


def triton_raw_set(variant: str) -> list[Candidate]:
    """Mix (a): the Triton and raw-CUDA candidates of the throughput set (35 honest, 6 wrong, 3 build
    failures, 3 raising), every kernel unique to the variant."""
    return [c for c in throughput_set(variant) if c.style != "inline"]


def cold_inline_set(variant: str, n: int = 32) -> list[Candidate]:
    """Mix (b): n load_inline extensions, each a distinct source (its index and the variant are in the
    CUDA code), so each one is a cold build: 1 in 16 a compiler error, 1 in 8 of the rest wrong."""
    good, wrong = GELU_C.format(c="0.044715"), GELU_C.format(c="0.05")
    out = []
    for i in range(n):
        block = (128, 256, 512, 1024)[i % 4]
        if i % 16 == 15:
            out.append(
                inline(
                    f"cold{i}_build_error",
                    block,
                    "y[i] = no_such_function(v);",
                    "compile_error",
                    f"{variant}-{i}",
                )
            )
        elif i % 8 == 7:
            out.append(inline(f"cold{i}_wrong", block, f"y[i] = {wrong};", "incorrect", f"{variant}-{i}"))
        else:
            out.append(inline(f"cold{i}", block, f"y[i] = {good};", "pass", f"{variant}-{i}"))
    return out


def kernelbench_like_set(variant: str) -> list[Candidate]:
    """Mix (c), what a model answering KernelBench prompts hands in: 16 load_inline CUDA C++ (10
    honest over three tasks, 2 wrong, 2 compiler errors, 2 raising at call time), 6 Triton (4 honest,
    1 wrong, 1 launch error) and 2 Python failures; every source distinct, so every build is cold."""
    good, wrong = GELU_C.format(c="0.044715"), GELU_C.format(c="0.05")
    v = variant
    out = [inline(f"kb_inline_b{b}", b, f"y[i] = {good};", "pass", v) for b in (64, 128, 256, 384, 512, 1024)]
    out += [honest_file(n, ROW_SUM, v) for n in ("cuda_rowsum_tree", "cuda_rowsum_double")]
    out += [honest_file(n, SOFTMAX, v) for n in ("cuda_softmax_shared", "cuda_softmax_two_kernels")]
    out += [inline(f"kb_inline_wrong_b{b}", b, f"y[i] = {wrong};", "incorrect", v) for b in (256, 512)]
    out.append(inline("kb_inline_build_error_a", 256, "y[i] = no_such_function(v);", "compile_error", v))
    out.append(inline("kb_inline_build_error_b", 256, "y[i] = v +;", "compile_error", v))
    for b in (256, 512):
        c = inline(f"kb_inline_throws_b{b}", b, f"y[i] = {good};", "runtime_error", v)
        out.append(
            Candidate(
                c.name,
                c.style,
                c.code.replace(
                    "    auto xc = x.contiguous();",
                    '    TORCH_CHECK(x.dim() == 5, "expects a 5-d tensor");\n    auto xc = x.contiguous();',
                ),
                c.expected,
            )
        )
    out += [triton(f"kb_triton_b{b}_w{w}", b, w, "0.044715", "pass", v) for b, w in ((1024, 4), (2048, 8))]
    out += [honest_file("triton_rowsum", ROW_SUM, v), honest_file("triton_softmax_rows", SOFTMAX, v)]
    out.append(triton("kb_triton_wrong", 1024, 4, "0.05", "incorrect", v))
    c = triton("kb_triton_launch_error", 1024, 4, "0.044715", "runtime_error", v)
    out.append(Candidate(c.name, c.style, c.code.replace("(x, y, n, BLOCK=", "(x, y, BLOCK="), c.expected))
    out.append(
        python(
            "kb_syntax_error", "import torch\nclass ModelNew(torch.nn.Module)\n    pass\n", "compile_error", v
        )
    )
    out.append(
        python(
            "kb_no_modelnew",
            "import torch\n\n\nclass Model2(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
            "compile_error",
            v,
        )
    )
    return out


def fault_set(n: int = 200) -> list[Candidate]:
    """n candidates: honest kernels interleaved with illegal accesses, traps, device OOM, hangs and
    host crashes, so every fault is followed by honest samples that must still pass."""
    good = GELU_C.format(c="0.044715")
    faults = [
        raw("fault_illegal_access", f"y[i * 1000003LL + (1LL << 40)] = {good};", 256, 1056, "runtime_error"),
        raw("fault_trap", "if (i == 12345) __trap(); y[i] = v;", 256, 1056, "runtime_error"),
        raw(
            "fault_hang",
            "volatile float w = v; while (w == w) { w = w * 1.0000001f; } y[i] = w;",
            256,
            1056,
            "timeout",
        ),
        Candidate(
            "fault_device_oom",
            "raw",
            "import torch\n\n\nclass ModelNew(torch.nn.Module):\n"
            "    def forward(self, x):\n        return torch.empty(2**45, device=x.device)\n",
            "runtime_error",
        ),
        inline("fault_host_segfault", 256, f"y[i] = {good};", "runtime_error"),
    ]
    faults[-1] = Candidate(
        faults[-1].name,
        "inline",
        faults[-1].code.replace(
            "    auto xc = x.contiguous();",
            "    volatile int* null_ptr = nullptr; *null_ptr = 1;\n    auto xc = x.contiguous();",
        ),
        "runtime_error",
    )
    honest = [c for c in throughput_set() if c.expected == "pass" and c.style != "inline"]
    out, f = [], 0
    for i in range(n):
        if i % 5 == 4:
            out.append(faults[f % len(faults)])
            f += 1
        else:
            out.append(honest[i % len(honest)])
    return out
