"""One candidate for a task Inductor compiles once per input signature (data/inductor/*.captures.json,
real Inductor output for tasks whose alternate inputs have another rank, a size-1 dim or another
loop trip count): forward dispatches each input set to its own launch sequence and refuses others.

The launches are checked on the CPU with a stand-in for Triton that records each kernel launch; where
Triton is installed, TRITON_INTERPRET=1 also runs the candidates and compares them with the task."""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import types
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from benchmark.evaluate.anticheat import static
from benchmark.evaluate.program import TaskProgram
from benchmark.task import import_file, load_task
from datasets_builder.teachers.inductor_capture import concrete_signature
from datasets_builder.teachers.inductor_record import (
    ArgSignature,
    Capture,
    describe,
    dispatch,
    dispatch_order,
)
from datasets_builder.teachers.inductor_translate import (
    InductorSkip,
    _condition,
    translate,
    translate_signatures,
)

DATA = Path(__file__).parent / "data" / "inductor"
# fixture -> the compilation torch.compile ran each input set with (main inputs, then each alternate set)
SERVED = {"gelu_ranks": [0, 1, 0, 2], "softmax_ranks": [0, 1, 0], "chunk_sums": [0, 1, 0]}


def load_captures(name: str) -> tuple[str, list[Capture]]:
    records = json.loads((DATA / f"{name}.captures.json").read_text())
    return (DATA / f"{name}.py").read_text(), [Capture.from_dict(r) for r in records]


def input_sets(name: str) -> tuple[object, list[list]]:
    module = load_task(DATA / f"{name}.py").load_module()
    program = TaskProgram(module, torch.device("cpu"))
    return module, [program.inputs(1000, alt) for alt in [None, *range(program.n_alt())]]


class _RecordedKernel:
    """What `@triton.jit` makes in the stand-in: `kernel[grid](*args, **meta)` records the launch."""

    def __init__(self, fn, launches: list):
        self.name, self.launches = fn.__name__, launches

    def __getitem__(self, grid):
        def launch(*args, **meta):
            shown = [("tensor", tuple(a.shape)) if isinstance(a, torch.Tensor) else a for a in args]
            self.launches.append((re.sub(r"_sig\d+$", "", self.name), tuple(grid), tuple(shown), meta))

        return launch


class _Language(types.ModuleType):
    def __getattr__(self, name):  # tl.constexpr, tl.math, ...: only named at import, never run
        return object()


@pytest.fixture
def recorded_triton(monkeypatch):
    """A Triton stand-in in sys.modules; returns the list every launch is appended to."""
    launches: list = []
    triton = types.ModuleType("triton")
    triton.jit = lambda fn: _RecordedKernel(fn, launches)
    triton.cdiv = lambda a, b: -(-a // b)
    language, extra = _Language("triton.language"), types.ModuleType("triton.language.extra")
    extra.libdevice = object()
    triton.language, language.extra = language, extra
    for name, module in (("triton", triton), ("triton.language", language), ("triton.language.extra", extra)):
        monkeypatch.setitem(sys.modules, name, module)
    return launches


def candidate(code: str, tmp_path: Path, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    return import_file(path, name)


@pytest.mark.parametrize("name", SERVED)
def test_dispatch_candidate_is_legal_and_defines_each_kernel_once(name):
    source, captures = load_captures(name)
    result = translate_signatures(source, captures, f"level2/{name}")
    compile(result.code, name, "exec")
    assert static.analyze(result.code) == []
    tree = ast.parse(result.code)
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew")
    methods = [f.name for f in model.body if isinstance(f, ast.FunctionDef)]
    assert methods == ["__init__", "forward", *(f"_forward_{k}" for k in range(len(captures)))]
    defined = [f.name for f in tree.body if isinstance(f, ast.FunctionDef)]
    assert all(defined.count(k) == 1 for k in result.kernels) and result.signatures == len(captures)
    bodies = [
        ast.unparse(f).split("\n", 2)[2]
        for f in tree.body
        if isinstance(f, ast.FunctionDef) and f.name in result.kernels
    ]
    assert len(set(bodies)) == len(bodies)  # no kernel defined twice under two names
    for banned in ("empty_strided_cpu", "get_raw_stream", "reinterpret_tensor(", "triton_helpers."):
        assert banned not in result.code, banned


def test_shared_kernels_are_defined_once_and_clashing_names_renamed():
    gelu = translate_signatures(*load_captures("gelu_ranks"))
    assert gelu.kernels == ("triton_poi_fused_add_mul_pow_tanh_0",) and gelu.signatures == 3
    softmax = translate_signatures(*load_captures("softmax_ranks"))
    # both compilations name their kernel ..._0; the rank-1 one is different code
    assert softmax.kernels == (
        "triton_per_fused__softmax_amax_mul_0",
        "triton_per_fused__softmax_amax_mul_0_sig1",
    )
    fwd1 = softmax.code[softmax.code.index("    def _forward_1(") :]
    assert "triton_per_fused__softmax_amax_mul_0_sig1[(1,)](" in fwd1
    chunks = translate_signatures(*load_captures("chunk_sums"))
    assert len(chunks.kernels) == 4 and chunks.launches == 4  # the 8-row compilation reuses two of them


@pytest.mark.parametrize("name", SERVED)
def test_each_input_set_runs_the_launch_sequence_compiled_for_it(name, recorded_triton, tmp_path):
    source, captures = load_captures(name)
    both = candidate(translate_signatures(source, captures).code, tmp_path, f"{name}_dispatch")
    alone = [candidate(translate(source, c).code, tmp_path, f"{name}_{k}") for k, c in enumerate(captures)]
    module, sets = input_sets(name)
    signatures = [c.signature for c in captures]
    for inputs, served in zip(sets, SERVED[name], strict=True):
        assert dispatch(signatures, concrete_signature(inputs)) == served
        recorded_triton.clear()
        out = both.ModelNew(*module.get_init_inputs())(*inputs)
        got = list(recorded_triton)
        recorded_triton.clear()
        alone[served].ModelNew(*module.get_init_inputs())(*inputs)
        assert got and got == recorded_triton, (name, [tuple(t.shape) for t in inputs])
        with torch.no_grad():
            assert out.shape == module.Model(*module.get_init_inputs())(*inputs).shape


def test_unknown_signatures_are_refused_without_a_launch(recorded_triton, tmp_path):
    source, captures = load_captures("gelu_ranks")
    gelu = candidate(translate_signatures(source, captures).code, tmp_path, "gelu_dispatch").ModelNew()
    with pytest.raises(
        ValueError, match=re.escape("no Triton launch sequence for x: torch.float32 (2, 3, 4)")
    ):
        gelu(torch.randn(2, 3, 4))
    with pytest.raises(ValueError, match=re.escape("x: float32[*, *]; x: float32[*]; x: float32[1, *]")):
        gelu(torch.randn(4, 4, dtype=torch.float64))
    source, captures = load_captures("chunk_sums")
    chunks = candidate(translate_signatures(source, captures).code, tmp_path, "chunks_dispatch").ModelNew()
    with pytest.raises(ValueError, match=re.escape("x: float32[16, *]; x: float32[8, 24]")):
        chunks(torch.randn(12, 24))  # three chunks: a loop no compilation unrolled
    with pytest.raises(ValueError):
        chunks(torch.randn(8, 5))  # the 8-row compilation was only seen with 24 columns
    assert recorded_triton == []


def test_specialised_signatures_are_tried_first():
    source, captures = load_captures("chunk_sums")
    fwd = translate_signatures(source, captures).code.split("    def forward(", 1)[1]
    assert fwd.index("x.shape[0] == 8 and x.shape[1] == 24") < fwd.index("x.shape[0] == 16:")
    source, captures = load_captures("gelu_ranks")
    fwd = translate_signatures(source, captures).code.split("    def forward(", 1)[1]
    assert fwd.index("x.shape[0] == 1:\n            return self._forward_2(x)") < fwd.index(
        "return self._forward_0(x)"
    )


@pytest.mark.parametrize("name", ["softmax", "softmax_cuda", "ln", "bf16", "linear", "linear_cuda"])
def test_a_single_compilation_translates_as_before(name):
    source = (DATA / f"{name.removesuffix('_cuda')}.py").read_text()
    capture = Capture.from_dict(json.loads((DATA / f"{name}.capture.json").read_text()))
    assert translate_signatures(source, [capture], name) == translate(source, capture, name)
    signed = replace(capture, signature=(ArgSignature("tensor", "torch.float32", (None, 300)),))
    assert translate_signatures(source, [signed], name).code == translate(source, capture, name).code


def test_refusals_name_the_signature():
    source, captures = load_captures("gelu_ranks")
    with pytest.raises(InductorSkip, match="signature: two compilations serve the same input signature"):
        translate_signatures(source, [captures[0], replace(captures[1], signature=captures[0].signature)])
    with pytest.raises(ValueError, match="must each record the input signature"):
        translate_signatures(source, [captures[0], replace(captures[1], signature=())])
    extra = (*captures[1].signature, ArgSignature("value", value="3"))
    with pytest.raises(InductorSkip, match="different numbers of arguments"):
        translate_signatures(source, [captures[0], replace(captures[1], signature=extra)])
    code = captures[1].output_code.replace(
        "        del arg1_1\n", "        buf9 = torch.ops.aten.sort.stable(arg1_1)\n        del arg1_1\n"
    )
    with pytest.raises(InductorSkip) as e:
        translate_signatures(source, [captures[0], replace(captures[1], output_code=code)])
    assert (
        e.value.reason == "fallback_op"
        and e.value.detail == "signature x: float32[*]: torch.ops.aten.sort.stable"
    )


def test_signature_records_rules_and_conditions():
    any2 = (ArgSignature("tensor", "torch.bfloat16", (None, None)),)
    row = (ArgSignature("tensor", "torch.bfloat16", (1, None)),)
    one = (ArgSignature("tensor", "torch.bfloat16", (None,)),)
    concrete = (ArgSignature("tensor", "torch.bfloat16", (1, 7)),)
    assert dispatch_order([any2, row, one]) == [1, 0, 2]
    assert dispatch([any2, row, one], concrete) == 1 and dispatch([any2, one], concrete) == 0
    assert dispatch([row, one], (ArgSignature("tensor", "torch.float32", (1, 7)),)) is None
    assert dispatch([one], (ArgSignature("tensor", "torch.bfloat16", (3, 7)),)) is None
    c = Capture(output_code="", inputs=(), signature=(*row, ArgSignature("value", value="3")))
    assert Capture.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert describe(c.signature, ["x", "n"], None) == "x: bfloat16[1, *], n: 3"
    signature = (*row, ArgSignature("value", value="3"), ArgSignature("value", value="None"))
    assert _condition(signature, ["x", "n", "mask"], None, set()) == [
        "x.dim() == 2 and x.dtype == torch.bfloat16 and x.shape[0] == 1",
        "n == 3",
        "mask is None",
    ]
    assert _condition((*one, *one), ["x"], "rest", {1}) == [
        "len(rest) == 1",
        "x.dim() == 1 and x.dtype == torch.bfloat16",
        "isinstance(rest[0], torch.Tensor) and rest[0].dim() == 1 and rest[0].dtype == torch.bfloat16",
    ]
    with pytest.raises(ValueError, match="kind"):
        ArgSignature("array")


INTERPRETER_LIBDEVICE = """
import triton
import triton.language as tl


@triton.jit
def exp(x):
    return tl.exp(x)


@triton.jit
def tanh(x):
    return 2 * tl.sigmoid(2 * x) - 1
"""


@pytest.mark.parametrize("name", SERVED)
def test_dispatch_candidate_runs_in_the_triton_interpreter(name, tmp_path, monkeypatch):
    """Only where Triton is installed (not in the CPU CI): run the candidate with TRITON_INTERPRET=1 on
    CPU tensors and compare it with the task on its main and every alternate input set."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("set TRITON_INTERPRET=1 (with Triton installed) to run candidates in the interpreter")
    pytest.importorskip("triton")
    from benchmark.evaluate.correctness import compare_outputs

    source, captures = load_captures(name)
    cand = candidate(translate_signatures(source, captures).code, tmp_path, f"{name}_interp")
    (tmp_path / "interp_libdevice.py").write_text(INTERPRETER_LIBDEVICE)
    monkeypatch.setattr(cand, "libdevice", import_file(tmp_path / "interp_libdevice.py", "interp_libdevice"))
    module, sets = input_sets(name)
    for inputs in sets:
        ref, new = module.Model(*module.get_init_inputs()), cand.ModelNew(*module.get_init_inputs())
        new.load_state_dict(ref.state_dict())
        with torch.no_grad():
            assert compare_outputs(ref(*inputs), new(*[t.clone() for t in inputs])).ok, [
                tuple(t.shape) for t in inputs
            ]
