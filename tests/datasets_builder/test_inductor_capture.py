"""The CPU-testable parts of the Inductor capture: which forward argument, parameter or size each
input of a Dynamo graph is (the mapping the translated forward is built from), memory orders, the
option filter, and the signatures of the compilations one per input signature (real Dynamo and
Inductor code generation on the CPU, the compile step cut off). Compiling Triton kernels needs the
GPU (test_inductor_gpu.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn as nn

from benchmark.task import import_file, load_task
from datasets_builder.teachers.inductor_capture import (
    DYNAMO_OPTIONS,
    _CloneOutputs,
    _graph_inputs,
    available_options,
    capture,
    check_dispatch,
    concrete_signature,
    dense,
    memory_order,
)
from datasets_builder.teachers.inductor_record import (
    ArgSignature,
    Capture,
    GraphInput,
    describe,
    forward_parameters,
)
from datasets_builder.teachers.inductor_translate import InductorSkip

DATA = Path(__file__).parent / "data" / "inductor"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(6))
        self.register_buffer("shift", torch.randn(6))
        self.eps = 1e-3

    def forward(self, x, y):
        return (x * self.scale + self.shift + self.eps).sum(dim=-1) * y.mean(), x.amax(dim=1)


def test_graph_inputs_map_to_arguments_parameters_and_sizes():
    torch._dynamo.reset()
    model = Net()
    x = torch.randn(3, 6, 5).transpose(1, 2)  # [3, 5, 6], laid out as [3, 6, 5]
    y = torch.randn(4)
    state = {id(t): n for n, t in [*model.named_parameters(), *model.named_buffers()]}
    seen = {}

    def backend(gm, example_inputs):
        seen["inputs"] = _graph_inputs(gm, example_inputs, [x, y], state, ["x", "y"], None)
        return gm.forward

    with torch._dynamo.config.patch(DYNAMO_OPTIONS):
        compiled = torch.compile(_CloneOutputs(model), backend=backend, dynamic=True, fullgraph=True)
        out = compiled(x, y)
    torch._dynamo.reset()
    assert isinstance(out, tuple) and len(out) == 2
    inputs = seen["inputs"]
    kinds = {(g.kind, g.ref) for g in inputs}
    assert ("param", "scale") in kinds and ("param", "shift") in kinds  # eps stays a constant
    tensor_x = next(g for g in inputs if g.kind == "input" and g.ref == "x")
    assert tensor_x.order == (0, 2, 1)
    assert next(g for g in inputs if g.kind == "input" and g.ref == "y").order == (0,)
    sizes = {(g.ref, g.dim) for g in inputs if g.kind in ("size", "stride")}
    assert sizes and all(ref in ("x", "y") for ref, _ in sizes)


def test_memory_order_and_dense():
    t = torch.randn(2, 3, 4)
    assert memory_order(t) == (0, 1, 2) and memory_order(t.transpose(1, 2)) == (0, 2, 1)
    assert dense(t.transpose(1, 2)).data_ptr() == t.data_ptr()  # a permuted dense tensor is kept
    sliced = torch.randn(4, 8)[:, ::2]
    assert dense(sliced).is_contiguous() and dense(sliced).data_ptr() != sliced.data_ptr()


def test_available_options_drop_what_this_torch_lacks():
    opts = available_options(
        {
            "compile_threads": 1,
            "triton.autotune_pointwise": False,
            "no_such_option": 3,
            "triton.no_such_either": 1,
        }
    )
    assert opts == {"compile_threads": 1, "triton.autotune_pointwise": False}


def test_capture_record_round_trip_and_forward_parameters():
    c = Capture(
        output_code="x",
        inputs=(GraphInput("input", "x", order=(1, 0)), GraphInput("size", "x", dim=0)),
        outputs="tuple",
        n_outputs=2,
    )
    assert Capture.from_dict(c.to_dict()) == c
    src = "class Model:\n    def forward(self, a, b, *rest):\n        pass\n"
    assert forward_parameters(src) == (["a", "b"], "rest")


def test_concrete_signature_of_tensors_and_values():
    sig = concrete_signature([torch.zeros(2, 3, dtype=torch.bfloat16), 4, None, (1, 2)])
    assert sig == (
        ArgSignature("tensor", "torch.bfloat16", (2, 3)),
        ArgSignature("value", value="4"),
        ArgSignature("value", value="None"),
        ArgSignature("value", value="(1, 2)"),
    )
    with pytest.raises(InductorSkip, match="argument 0 is a object, which dispatch cannot compare"):
        concrete_signature([object()])
    with pytest.raises(InductorSkip, match="signature"):
        concrete_signature([float("nan")])


def tensor(*sizes) -> tuple[ArgSignature, ...]:
    return (ArgSignature("tensor", "torch.float32", sizes),)


def test_check_dispatch_fixes_shared_sizes_where_guards_tell_compilations_apart():
    # two compilations of one rank whose sizes stayed symbolic (a guard on x.shape[0] // 4, say)
    concretes = [tensor(16, 24), tensor(8, 24), tensor(16, 5)]
    assert check_dispatch([tensor(16, None), tensor(8, None)], concretes, [0, 1, 0], ["x"], None) == [
        tensor(16, None),
        tensor(8, None),
    ]  # already apart: unchanged
    narrowed = check_dispatch([tensor(None, None), tensor(None, None)], concretes, [0, 1, 0], ["x"], None)
    assert narrowed == [tensor(16, None), tensor(8, 24)]
    with pytest.raises(
        InductorSkip,
        match=r"input set x: float32\[16, 24\] would run the compilation for "
        r"x: float32\[16, 24\], not the one torch.compile chose",
    ):
        check_dispatch(
            [tensor(None, None), tensor(None, None)], [tensor(16, 24), tensor(16, 24)], [0, 1], ["x"], None
        )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("gelu_ranks", ["x: float32[*, *]", "x: float32[*]", "x: float32[1, *]"]),
        ("softmax_ranks", ["x: float32[*, 40]", "x: float32[40]"]),
        ("chunk_sums", ["x: float32[16, *]", "x: float32[8, 24]"]),
    ],
)
def test_capture_compiles_once_per_input_signature(name, expected):
    """Dynamo and Inductor for real, Inductor's C++ code generator, no compile: the main inputs and
    each alternate set run the compilation torch.compile picks, and each compilation records the
    signature it serves (an input set of a seen signature, (3, 100) for the GELU, compiles nothing)."""
    record = import_file(DATA / "record_captures.py", "record_captures")
    task = load_task(DATA / f"{name}.py")
    with record.codegen_only(triton=False):
        captures = capture(task.load_module(), task.source, "cpu")
    names, varargs = forward_parameters(task.source)
    assert [describe(c.signature, names, varargs) for c in captures] == expected
    assert all("def call(" in c.output_code and c.outputs == "tensor" for c in captures)
    assert len({c.output_code for c in captures}) == len(captures)
    ranks = [next(g for g in c.inputs if g.kind == "input").order for c in captures]
    assert [len(r) for r in ranks] == [len(s[0].sizes) for s in (c.signature for c in captures)]
