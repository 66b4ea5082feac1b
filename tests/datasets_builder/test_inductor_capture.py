"""The CPU-testable parts of the Inductor capture: which forward argument, parameter or size each
input of a Dynamo graph is (the mapping the translated forward is built from), memory orders, and
the option filter. Compiling with Inductor itself needs the GPU (test_inductor_gpu.py)."""

from __future__ import annotations

import torch
import torch.nn as nn

from datasets_builder.teachers.inductor_capture import (
    DYNAMO_OPTIONS,
    _CloneOutputs,
    _graph_inputs,
    available_options,
    dense,
    memory_order,
)
from datasets_builder.teachers.inductor_record import Capture, GraphInput, forward_parameters


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
    opts = available_options({"compile_threads": 1, "triton.autotune_pointwise": False, "no_such_option": 3,
                              "triton.no_such_either": 1})
    assert opts == {"compile_threads": 1, "triton.autotune_pointwise": False}


def test_capture_record_round_trip_and_forward_parameters():
    c = Capture(output_code="x", inputs=(GraphInput("input", "x", order=(1, 0)), GraphInput("size", "x", dim=0)),
                outputs="tuple", n_outputs=2)
    assert Capture.from_dict(c.to_dict()) == c
    src = "class Model:\n    def forward(self, a, b, *rest):\n        pass\n"
    assert forward_parameters(src) == (["a", "b"], "rest")
