"""What the Inductor teacher records on the GPU and the translator reads anywhere: Inductor's output
code for one task, how each input of its `call(args)` maps onto the task's forward arguments and
parameters, the launch configuration autotuning chose for each kernel, and the shape of the output.
A JSON-serialisable record, so the GPU side and the (CPU-testable) translation meet in one place."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field

INPUT_KINDS = ("input", "param", "size", "stride", "scalar")


@dataclass(frozen=True)
class GraphInput:
    """One positional input of Inductor's `call(args)`."""

    kind: str  # input (a forward tensor argument), param (a parameter or buffer), size, stride or scalar (SymInts)
    ref: str  # forward argument expression ("x", "args[0]") or attribute path ("linear.weight")
    dim: int | None = None  # for size and stride
    order: tuple[int, ...] | None = None  # memory order of a tensor input's dims, outermost first

    def __post_init__(self):
        if self.kind not in INPUT_KINDS:
            raise ValueError(f"graph input kind must be one of {INPUT_KINDS}, not {self.kind!r}")


@dataclass(frozen=True)
class LaunchConfig:
    kwargs: dict[str, int]  # XBLOCK, R0_BLOCK, ... as autotuning chose them
    num_warps: int = 4
    num_stages: int = 1


@dataclass(frozen=True)
class Capture:
    output_code: str  # the module Inductor wrote (kernels as async_compile.triton strings, and `call`)
    inputs: tuple[GraphInput, ...]
    outputs: str = "tensor"  # how forward returns: tensor | tuple | list
    n_outputs: int = 1
    configs: dict[str, LaunchConfig] = field(default_factory=dict)  # kernel name -> chosen config
    variant: str = "default"
    torch_version: str = ""
    triton_version: str = ""
    device: str = ""

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Capture:
        d = dict(d)
        d["inputs"] = tuple(
            GraphInput(**{**g, "order": tuple(g["order"]) if g.get("order") is not None else None})
            for g in d.get("inputs", ())
        )
        d["configs"] = {k: LaunchConfig(**v) for k, v in d.get("configs", {}).items()}
        return cls(**d)


def forward_parameters(task_source: str) -> tuple[list[str], str | None]:
    """Positional parameter names of the task's Model.forward (self excluded), and its *varargs name."""
    tree = ast.parse(task_source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    args = [a.arg for a in [*item.args.posonlyargs, *item.args.args]][1:]
                    return args, item.args.vararg.arg if item.args.vararg else None
    raise ValueError("the task defines no Model.forward")


def input_ref(position: int, names: list[str], varargs: str | None) -> str:
    """The expression naming forward's `position`-th argument inside the candidate's forward."""
    if position < len(names):
        return names[position]
    if varargs is None:
        raise ValueError(f"forward takes {len(names)} arguments; there is no argument {position}")
    return f"{varargs}[{position - len(names)}]"
