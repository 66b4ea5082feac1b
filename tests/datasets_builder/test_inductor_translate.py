"""The Inductor translator on recorded Inductor output (see data/inductor/README.md), and its refusals."""

from __future__ import annotations

import ast
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from benchmark.evaluate.anticheat import static
from datasets_builder.teachers.inductor_helpers import HelperError, helper_source
from datasets_builder.teachers.inductor_record import Capture, LaunchConfig
from datasets_builder.teachers.inductor_translate import InductorSkip, parse_kernel, translate

DATA = Path(__file__).parent / "data" / "inductor"


def load(name: str) -> tuple[str, Capture]:
    stem = name.removesuffix("_cuda")
    return (DATA / f"{stem}.py").read_text(), Capture.from_dict(
        json.loads((DATA / f"{name}.capture.json").read_text())
    )


def forward_of(code: str) -> str:
    return code[code.index("    def forward(") :]


@pytest.mark.parametrize("name", ["softmax", "softmax_cuda", "ln", "bf16", "linear", "linear_cuda"])
def test_translation_is_a_legal_standalone_candidate(name):
    source, capture = load(name)
    result = translate(source, capture, f"level2/{name}")
    ast.parse(result.code)
    assert static.analyze(result.code) == []
    assert "class ModelNew(nn.Module)" in result.code
    for banned in (
        "torch._inductor",
        "triton_heuristics",
        "async_compile",
        "empty_strided_cuda",
        "get_raw_stream",
        "assert_size_stride",
        "reinterpret_tensor(",
        "triton_helpers.",
    ):
        assert banned not in result.code, banned
    assert result.launches >= 1 and len(result.kernels) >= 1


def test_softmax_inputs_parameters_and_grid():
    source, capture = load("softmax_cuda")
    fwd = forward_of(translate(source, capture).code)
    assert "arg1_1 = x.contiguous()" in fwd  # the tensor input, in the layout the kernel indexes
    assert "arg2_1 = self.w" in fwd  # the parameter
    assert "arg0_1 = x.shape[0]" in fwd  # the symbolic size, read from the input at run time
    assert "torch.empty_strided((s33, 1), (1, s33), dtype=torch.float32, device=_device)" in fwd
    assert "buf2.as_strided((s33,), (1,))" in fwd
    # persistent reduction without an x dimension: one program per row
    assert "triton_per_fused__softmax_mul_relu_sum_0[(s33,)](buf3, arg1_1, arg2_1, s33, 300, XBLOCK=1" in fwd
    assert fwd.rstrip().endswith("return buf3")


def test_recorded_launch_config_is_used():
    source, capture = load("softmax")
    capture = replace(
        capture, configs={"triton_per_fused__softmax_mul_relu_sum_0": LaunchConfig({"XBLOCK": 8}, 2, 1)}
    )
    fwd = forward_of(translate(source, capture).code)
    assert "[(triton.cdiv(s33, 8),)]" in fwd and "XBLOCK=8, num_warps=2, num_stages=1" in fwd


def test_transposed_input_two_outputs_and_yz_grid():
    source, capture = load("ln")
    code = translate(source, capture).code
    fwd = forward_of(code)
    assert "= _layout(x, (0, 2, 1))" in fwd and "def _layout(t, order):" in code
    assert "= self.norm.weight" in fwd and "= self.norm.bias" in fwd
    assert "D = 24" in code  # the constant the copied constructor reads
    assert "z_grid_0 = triton.cdiv(y_grid_0, 65535)" in fwd
    assert fwd.rstrip().splitlines()[-1].strip().startswith("return (") and fwd.count("return") == 1


def test_helpers_and_local_jit_functions_are_copied_and_renamed():
    source, capture = load("bf16")
    code = translate(source, capture).code
    assert "def _ih_maximum(" in code or "def _ih_welford" in code
    # the scan's combine function is defined inside the kernel source; it is renamed per kernel
    assert "__triton_helper_fn_add0(" in code
    assert "tl_math = tl.math" in code and "from triton.language.extra import libdevice" in code


def test_template_kernel_uses_its_fixed_grid():
    source, capture = load("linear_cuda")
    code = translate(source, capture).code
    fwd = forward_of(code)
    assert "tl.dot(" in code and "allow_tf32=ALLOW_TF32" in code
    launch = next(line for line in fwd.splitlines() if "triton_tem_" in line)
    assert "((15 + s33) // 16)" in launch and "num_warps=" in launch and "BLOCK" not in launch.split("](")[1]


def _with_call(code: str, old: str, new: str) -> str:
    assert old in code
    return code.replace(old, new)


def test_extern_kernel_is_refused():
    source, capture = load("softmax_cuda")
    code = _with_call(
        capture.output_code,
        "buf3 = reinterpret_tensor(buf2, (s33, ), (1, ), 0)",
        "extern_kernels.mm(arg1_1, arg1_1, out=buf2)\n            buf3 = reinterpret_tensor(buf2, (s33, ), (1, ), 0)",
    )
    with pytest.raises(InductorSkip) as e:
        translate(source, replace(capture, output_code=code))
    assert e.value.reason == "extern_kernel" and "extern_kernels.mm" in e.value.detail


def test_fallback_op_is_refused():
    source, capture = load("softmax_cuda")
    code = _with_call(
        capture.output_code,
        "buf3 = reinterpret_tensor(buf2, (s33, ), (1, ), 0)",
        "buf9 = torch.ops.aten.sort.stable(arg1_1)\n            buf3 = reinterpret_tensor(buf2, (s33, ), (1, ), 0)",
    )
    with pytest.raises(InductorSkip, match="fallback_op"):
        translate(source, replace(capture, output_code=code))


def test_unknown_heuristic_and_output_count_are_refused():
    source, capture = load("softmax_cuda")
    code = capture.output_code.replace(
        "@triton_heuristics.persistent_reduction(", "@triton_heuristics.foreach("
    )
    with pytest.raises(InductorSkip, match="unsupported_kernel"):
        translate(source, replace(capture, output_code=code))
    with pytest.raises(InductorSkip, match="outputs"):
        translate(source, replace(capture, n_outputs=2, outputs="tuple"))


def test_no_kernel_and_mismatched_inputs_are_refused():
    source, capture = load("softmax_cuda")
    with pytest.raises(InductorSkip, match="inputs"):
        translate(source, replace(capture, inputs=capture.inputs[:2]))
    with pytest.raises(InductorSkip, match="no_triton_kernel"):
        translate(source, replace(capture, output_code="def call(args):\n    return ()\n"))


def test_parse_kernel_reads_the_decorator():
    _, capture = load("softmax_cuda")
    tree = ast.parse(capture.output_code)
    name, src = next(
        (n.targets[0].id, n.value.args[1].value)
        for n in tree.body
        if isinstance(n, ast.Assign)
        and isinstance(n.value, ast.Call)
        and ast.unparse(n.value.func) == "async_compile.triton"
    )
    k = parse_kernel(name, src)
    assert k.heuristic == "persistent_reduction" and k.grid_type == "Grid1D"
    assert k.params[:3] == ["in_out_ptr0", "in_ptr0", "in_ptr1"] and k.constexprs == ["XBLOCK"]
    assert k.body_constants["R0_BLOCK"] == 512 and "maximum" in k.helpers


def test_helper_source_closure_and_refusal():
    text = helper_source({"max2"})
    tree = ast.parse(text)
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert names[-1] == "_ih_max2" and "_ih_maximum" in names and "_ih_promote_to_tensor" in names
    assert "triton_helpers" not in text
    with pytest.raises(HelperError, match="not a @triton.jit"):
        helper_source({"constexpr_next_power_of_2"})
    with pytest.raises(HelperError, match="does not exist"):
        helper_source({"no_such_helper"})


INTERPRETER_LIBDEVICE = """
import triton
import triton.language as tl


@triton.jit
def exp(x):
    return tl.exp(x)


@triton.jit
def erf(x):
    return tl.erf(x)


@triton.jit
def rsqrt(x):
    return tl.rsqrt(x)


@triton.jit
def tanh(x):
    return 2 * tl.sigmoid(2 * x) - 1
"""


@pytest.mark.parametrize("name", ["softmax", "ln", "linear"])
def test_translated_candidate_runs_in_the_triton_interpreter(name, tmp_path, monkeypatch):
    """Only where Triton is installed (not in the CPU CI): run the candidate with TRITON_INTERPRET=1
    on CPU tensors and compare it with the task on its full and alternate shapes."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("set TRITON_INTERPRET=1 (with Triton installed) to run candidates in the interpreter")
    pytest.importorskip("triton")
    import torch

    from benchmark.evaluate.correctness import compare_outputs
    from benchmark.evaluate.program import TaskProgram
    from benchmark.task import import_file, load_task

    source, capture = load(name)
    path = tmp_path / f"cand_{name}.py"
    path.write_text(translate(source, capture).code)
    cand = import_file(path, f"cand_{name}")
    # the interpreter cannot call libdevice; these stand-ins compute the same functions in tl
    (tmp_path / "interp_libdevice.py").write_text(INTERPRETER_LIBDEVICE)
    monkeypatch.setattr(cand, "libdevice", import_file(tmp_path / "interp_libdevice.py", "interp_libdevice"))
    task = load_task(DATA / f"{name}.py")
    module = task.load_module()
    program = TaskProgram(module, torch.device("cpu"))
    for alt in [None, *range(program.n_alt())]:
        ref, new = program.build(module.Model, 0), program.build(cand.ModelNew, 0)
        inputs = program.inputs(1000, alt)
        with torch.no_grad():
            assert compare_outputs(ref(*inputs), new(*[t.clone() for t in inputs])).ok
