"""Helion candidates (`--backend helion`): the static rules allow Helion's kernel language and its
public API and nothing past it; the op census does not count what Helion's compiler traces on the
first call; Helion's generated Triton kernels count as the candidate's own. Only the last tests
need helion installed (they trace a kernel on the CPU, which needs no GPU and no Triton); the GPU
test runs an honest Helion candidate through the harness."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from benchmark.evaluate.anticheat.census import census
from benchmark.evaluate.anticheat.kernels import evidence, kernel_flags
from benchmark.evaluate.anticheat.static import analyze
from benchmark.evaluate.boundary import KernelRecord
from benchmark.prompts.render import TEMPLATE_DIR

HONEST = Path(__file__).parents[2] / "honest" / "helion_softmax_rows.py"
EXAMPLE = TEMPLATE_DIR / "example_helion.j2"

HEAD = """\
import helion
import helion.language as hl
import torch
import torch.nn as nn
import torch.nn.functional as F
"""
MODEL = """

class ModelNew(nn.Module):
    def forward(self, x):
        return kernel(x)
"""


def example_code() -> str:
    return EXAMPLE.read_text().split("```python\n", 1)[1].rsplit("```", 1)[0]


def flags(body: str) -> list[str]:
    return [f.flag for f in analyze(HEAD + textwrap.dedent(body) + MODEL)]


def test_the_example_and_the_honest_candidate_are_clean():
    assert analyze(example_code()) == []
    assert analyze(HONEST.read_text()) == []


def test_torch_operators_are_the_kernel_language_inside_device_loops():
    assert (
        flags("""
        @helion.kernel(config=helion.Config(block_sizes=[1]), dot_precision="ieee")
        def kernel(x):
            out = torch.empty_like(x)
            for tile in hl.tile(x.size(0)):
                v = x[tile, :]
                e = torch.exp(v - torch.amax(v, dim=1, keepdim=True))
                out[tile, :] = F.softmax(v, dim=1) + e / torch.sum(e, dim=1, keepdim=True)
                for k in hl.tile(x.size(1)):
                    out[tile, k] = torch.sigmoid(x[tile, k])
            return out
        """)
        == []
    )


@pytest.mark.parametrize(
    "body",
    [
        # host code of a Helion kernel is plain PyTorch
        """
        @helion.kernel(config=helion.Config(block_sizes=[1]))
        def kernel(x):
            out = torch.softmax(x, dim=1)
            for tile in hl.tile(x.size(0)):
                out[tile, :] = out[tile, :]
            return out
        """,
        # an hl.tile loop in a function that is not a Helion kernel
        """
        def kernel(x):
            for tile in hl.tile(x.size(0)):
                x = torch.softmax(x, dim=1)
            return x
        """,
        # a loop over something else inside a Helion kernel
        """
        @helion.kernel(config=helion.Config(block_sizes=[1]))
        def kernel(x):
            for i in range(2):
                x = torch.exp(x)
            return x
        """,
        # a helper called from the device loop is judged like forward
        """
        def helper(v):
            return torch.exp(v)

        @helion.kernel(config=helion.Config(block_sizes=[1]))
        def kernel(x):
            out = torch.empty_like(x)
            for tile in hl.tile(x.size(0)):
                out[tile] = helper(x[tile])
            return out
        """,
        # torch.nn.functional in host code
        """
        @helion.kernel(config=helion.Config(block_sizes=[1]))
        def kernel(x):
            return F.relu(x)
        """,
    ],
)
def test_torch_compute_outside_device_loops_is_flagged(body):
    assert "torch_compute_op" in flags(body)


def test_device_loops_do_not_excuse_compile_or_precision_changes():
    found = flags("""
        @helion.kernel(config=helion.Config(block_sizes=[1]))
        def kernel(x):
            out = torch.empty_like(x)
            for tile in hl.tile(x.size(0)):
                torch.backends.cuda.matmul.allow_tf32 = True
                out[tile] = torch.compile(torch.exp)(x[tile])
            return out
        """)
    assert "torch_compile" in found and "precision_change" in found


@pytest.mark.parametrize(
    "code",
    [
        "import helion.runtime",
        "import helion.runtime.kernel as rk",
        "from helion import _compiler",
        "from helion.runtime.kernel import PyCodeCache",
        "from helion.language import loops",
        "from helion.autotuner import local_cache",
        "x = helion.runtime.kernel.sys",
        "x = hl.loops.torch",
        "x = hl.breakpoint",
        "x = helion._utils",
        "def f(t):\n    return hl.memory_ops.torch.matmul(t, t)\nf(1)",
    ],
)
def test_helion_internals_are_refused(code):
    assert "forbidden_import" in [f.flag for f in analyze(HEAD + code + "\n")]


@pytest.mark.parametrize(
    "code",
    [
        "from helion.language import tile, zeros",
        "from helion import Config, kernel",
        "x = helion.cdiv(7, 2) + helion.next_power_of_2(7)",
        "x = hl.tile, hl.grid, hl.dot, hl.zeros, hl.full, hl.load, hl.store, hl.specialize",
    ],
)
def test_helion_public_api_is_allowed(code):
    assert analyze(HEAD + code + "\n") == []


# The op census on a compiler's first call


def test_census_skips_fake_and_meta_ops_but_counts_real_ones():
    from torch._subclasses.fake_tensor import FakeTensorMode

    def traced(x):
        with FakeTensorMode() as mode:
            f = mode.from_tensor(x)
            torch.sigmoid(f) * f
        torch.empty(3, device="meta").tanh()
        return x.clone()

    assert census(traced, torch.randn(4))[1] == []
    assert census(lambda x: torch.sigmoid(x.clone()), torch.randn(4))[1] == ["sigmoid"]


def test_census_counts_a_subclass_that_claims_to_be_meta():
    class Claims(torch.Tensor):
        @property
        def is_meta(self):
            return True

    x = torch.randn(4).as_subclass(Claims)
    assert "exp" in census(lambda: torch.exp(x))[1]


def test_helion_kernel_names_count_as_the_candidates_own():
    ev = evidence([KernelRecord("_helion_softmax_rows", 12.0, True)])
    assert ev.custom == {"_helion_softmax_rows": 12.0} and kernel_flags(ev) == []


# With helion installed: trace the honest candidate on the CPU


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_helion_traces_the_honest_candidate_with_no_compute_op_counted():
    pytest.importorskip("helion")
    module = load(HONEST, "helion_softmax_rows_candidate")
    x = torch.randn(5, 777, dtype=torch.bfloat16)
    bound, compute_ops = census(lambda: module.softmax_rows.bind((x,)))
    assert compute_ops == []
    code = bound.to_triton_code(module.softmax_rows.configs[0])
    assert "def _helion_softmax_rows(" in code  # the name the profiler will see
    assert kernel_flags(evidence([KernelRecord("_helion_softmax_rows", 1.0, True)])) == []


@pytest.mark.gpu
def test_honest_helion_candidate_passes_strict_with_compile_outside_the_timing(tmp_path):
    """The candidate's first call compiles (Helion traces, generates Triton, Triton compiles): that
    falls in the correctness phase, before the timing's warm-up, so the timed median is the kernel's
    time alone. The first call's wall time here, in a fresh process, bounds the compile."""
    pytest.importorskip("helion")
    from benchmark.evaluate.harness import EvalConfig, evaluate
    from benchmark.suite import BUILTIN_SUITE
    from benchmark.task import load_task
    from benchmark.verdict import Status

    task = load_task(BUILTIN_SUITE / "level1/softmax_rows_bf16.py", root=BUILTIN_SUITE)
    verdict = evaluate(task, HONEST.read_text(), EvalConfig(device="cuda", cache_dir=tmp_path / "cache"))
    assert verdict.status is Status.PASS, verdict.error
    assert verdict.flags == ()

    module = load(HONEST, "helion_softmax_rows_first_call")
    x = torch.randn(1024, 4096, dtype=torch.bfloat16, device="cuda") * 4
    torch.cuda.synchronize()
    start = time.perf_counter()
    module.ModelNew()(x)
    torch.cuda.synchronize()
    first_call_ms = (time.perf_counter() - start) * 1e3
    median_ms = verdict.candidate_time.median_ms
    assert first_call_ms > 50 * median_ms, (first_call_ms, median_ms)
    assert verdict.phases.correctness_s * 1e3 > first_call_ms / 4  # the compile happened there
    print(
        f"first call {first_call_ms:.0f} ms, timed median {median_ms:.3f} ms, speedup {verdict.speedup:.2f}x"
    )
