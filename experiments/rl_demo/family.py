"""The task family of the RL demonstration: y = act(a * x + b) over an fp32 tensor, act one of six
elementwise functions and (a, b) from small grids; the eager reference runs three kernels, a fused
kernel one. Answers use the benchmark's raw-CUDA path (benchmark.cuda_raw: pycuda compiles a kernel
in about 0.65 s, against about a minute for a cold load_inline extension); a correct answer compiles
one kernel per act and passes a and b as kernel arguments, so answers stay short and every task of an
act shares one kernel source. The held-out splits are new (act, a, b) combinations of values the SFT
corpus contains, so passing them takes reading the task, not recalling it. The kernel is a grid-stride
loop whose block count is an argument of the call (`BLOCKS`): every launch size is correct, the small
ones several times slower than eager PyTorch, so only the speed term of the verifier's reward can
teach a preference."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path

from benchmark.task import Task, load_task

# act: (CUDA expression of v, PyTorch expression of z)
ACTS = {
    "relu": ("fmaxf(v, 0.0f)", "torch.relu({z})"),
    "sigmoid": ("1.0f / (1.0f + expf(-v))", "torch.sigmoid({z})"),
    "tanh": ("tanhf(v)", "torch.tanh({z})"),
    "silu": ("v / (1.0f + expf(-v))", "torch.nn.functional.silu({z})"),
    "square": ("v * v", "torch.square({z})"),
    "abs": ("fabsf(v)", "torch.abs({z})"),
}
A_VALUES = (0.5, 1.5, 2.0, 2.5, 3.0, -1.0, -1.5, -2.0)
B_VALUES = (-1.0, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0, 1.5)
# --sft-values wide: every nonzero multiple of 0.25 within [-3, 3] for a and [-2, 2] for b (the grid's among them)
WIDE_A_VALUES = tuple(k / 4 for k in range(-12, 13) if k)
WIDE_B_VALUES = tuple(k / 4 for k in range(-8, 9) if k)
SFT_VALUES = {"grid": (A_VALUES, B_VALUES), "wide": (WIDE_A_VALUES, WIDE_B_VALUES)}
BLOCKS = (16, 64, 256, 1024, 4096)  # launch sizes of the SFT answers, drawn uniformly: the speed RL can learn


@dataclasses.dataclass(frozen=True)
class Spec:
    act: str
    a: float
    b: float

    def expression(self) -> str:
        sign = "-" if self.b < 0 else "+"
        return ACTS[self.act][1].format(z=f"{self.a} * x {sign} {abs(self.b)}")

    def task_source(self) -> str:
        return f'''"""y = {self.expression()}: one elementwise pass over an fp32 tensor."""

import torch
import torch.nn as nn

SOLBENCH = {{"level": 1, "tags": ["elementwise", "generated"], "dtype": "float32", "difficulty": 1}}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return {self.expression()}


def get_inputs():
    return [torch.randn(1024, 4096)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)]]
'''


def kernel_source(act: str) -> str:
    """The one CUDA source per act (raw CUDA through benchmark.cuda_raw, compiled by pycuda in about
    0.65 s): a, b and the launch size are arguments, so every task of an act shares it."""
    return f'''import torch

from benchmark.cuda_raw import compile_cuda

SOURCE = r"""
__global__ void k(const float* __restrict__ x, float* __restrict__ y, float a, float b, long long n) {{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{
        float v = a * x[i] + b;
        y[i] = {ACTS[act][0]};
    }}
}}
"""
k = compile_cuda(SOURCE).kernel("k", "PPffq")
'''


def solution(
    spec: Spec, blocks: int = 1024, act: str | None = None, a: float | None = None, b: float | None = None
) -> str:
    """A candidate file; the keyword overrides make the wrong answers of the repair dialogues."""
    act = act or spec.act
    a = spec.a if a is None else a
    b = spec.b if b is None else b
    return (
        kernel_source(act)
        + f"""

class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        k(x, y, {a}, {b}, x.numel(), grid=({blocks},), block=(256,))
        return y
"""
    )


def answer(spec: Spec, code: str) -> str:
    """The assistant's message for a candidate file: one fenced Python block."""
    return f"```python\n{code.rstrip()}\n```"


def family(seed: int, n_rl: int, n_test: int, sft_values: str = "grid") -> dict[str, list[Spec]]:
    """The test and RL tasks, drawn from the grid (the same for either --sft-values), and the SFT tasks:
    the rest of the grid, or every combination of the wide values not held out (`SFT_VALUES`), in a
    seeded order."""
    grid = [Spec(act, a, b) for act in ACTS for a in A_VALUES for b in B_VALUES]
    random.Random(seed).shuffle(grid)
    held_out = grid[: n_test + n_rl]
    if sft_values == "grid":
        sft = grid[n_test + n_rl :]
    else:
        a_values, b_values = SFT_VALUES[sft_values]
        sft = [Spec(act, a, b) for act in ACTS for a in a_values for b in b_values]
        sft = [spec for spec in sft if spec not in held_out]
        random.Random(seed).shuffle(sft)
    return {"test": held_out[:n_test], "rl": held_out[n_test:], "sft": sft}


def write_tasks(splits: dict[str, list[Spec]], root: Path) -> dict[str, tuple[Task, Spec]]:
    """Task files under root/<split>/; ids are opaque (ew_017), so the task text is the only clue."""
    tasks = {}
    counter = 0
    for split, specs in splits.items():
        folder = root / split
        folder.mkdir(parents=True, exist_ok=True)
        for spec in specs:
            path = folder / f"ew_{counter:03d}.py"
            counter += 1
            path.write_text(spec.task_source())
            task = load_task(path, root=root)
            tasks[task.task_id] = (task, spec)
    return tasks


def read_answer(code: str) -> tuple[str | None, float | None, float | None, int | None]:
    """(act, a, b, blocks) of an answer, read from its kernel source and ModelNew's launch; None
    where unreadable."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None, None, None, None
    act = next((k for k in ACTS if kernel_source(k).strip() in code), None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "k":
            grid = next((kw.value for kw in node.keywords if kw.arg == "grid"), None)
            try:
                a, b = (ast.literal_eval(arg) for arg in node.args[2:4])
                blocks = ast.literal_eval(grid)[0] if grid is not None else None
            except (ValueError, TypeError, IndexError):
                return act, None, None, None
            if all(isinstance(v, int | float) for v in (a, b)) and isinstance(blocks, int):
                return act, float(a), float(b), blocks
    return act, None, None, None
