"""What the Inductor teacher records on the GPU and the translator reads anywhere: Inductor's output
code for one compilation of a task, how each input of its `call(args)` maps onto the task's forward
arguments and parameters, the launch configuration autotuning chose for each kernel, the shape of
the output, and the input signature the compilation serves. A JSON-serialisable record, so the GPU
side and the (CPU-testable) translation meet in one place.

A task compiles once per input signature its guards tell apart, as torch.compile recompiles: a
different rank, dtype or non-tensor value, or a size Inductor specialised. The dispatch rule that
picks a compilation for given inputs (`dispatch`) lives here, so the capture's check that every
input set of the task reaches the compilation that served it and the translated forward's `if`
chain apply the same rule."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field

INPUT_KINDS = ("input", "param", "size", "stride", "scalar")
ARG_KINDS = ("tensor", "value")


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
class ArgSignature:
    """What dispatch checks of one positional forward argument."""

    kind: str  # tensor | value
    dtype: str = ""  # a tensor's dtype as torch prints it ("torch.bfloat16")
    sizes: tuple[int | None, ...] = ()  # a tensor's: each one's specialised value, None if read at run time
    value: str = ""  # a non-tensor's value as a Python literal (repr)

    def __post_init__(self):
        if self.kind not in ARG_KINDS:
            raise ValueError(f"argument signature kind must be one of {ARG_KINDS}, not {self.kind!r}")

    def covers(self, concrete: ArgSignature) -> bool:
        """Whether an argument with this fully concrete signature is one this signature accepts."""
        if self.kind != concrete.kind:
            return False
        if self.kind == "value":
            return self.value == concrete.value
        return (
            self.dtype == concrete.dtype
            and len(self.sizes) == len(concrete.sizes)
            and all(s is None or s == c for s, c in zip(self.sizes, concrete.sizes, strict=True))
        )

    def describe(self) -> str:
        """`bfloat16[*, 2048]` for a tensor (* is any size), the literal for a value."""
        if self.kind == "value":
            return self.value
        dtype = self.dtype.removeprefix("torch.")
        return f"{dtype}[{', '.join('*' if s is None else str(s) for s in self.sizes)}]"


Signature = tuple[ArgSignature, ...]


def covers(signature: Signature, concrete: Signature) -> bool:
    return len(signature) == len(concrete) and all(
        s.covers(c) for s, c in zip(signature, concrete, strict=True)
    )


def dispatch_order(signatures: list[Signature]) -> list[int]:
    """The order the translated forward tries signatures in: the most specialised first (more sizes
    fixed), so a compilation for size-1 rows is not shadowed by one for any size; then capture order."""
    fixed = [sum(s is not None for a in sig for s in a.sizes) for sig in signatures]
    return sorted(range(len(signatures)), key=lambda i: (-fixed[i], i))


def dispatch(signatures: list[Signature], concrete: Signature) -> int | None:
    """The index of the signature the translated forward runs for inputs of signature `concrete`."""
    return next((i for i in dispatch_order(signatures) if covers(signatures[i], concrete)), None)


def describe(signature: Signature, names: list[str], varargs: str | None) -> str:
    """`x: bfloat16[*, *], n: 3`: one signature, as the candidate's docstrings and errors name it."""
    return ", ".join(f"{input_ref(i, names, varargs)}: {a.describe()}" for i, a in enumerate(signature))


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
    signature: Signature = ()  # the input signature this compilation serves; empty in older records

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
        d["signature"] = tuple(
            ArgSignature(**{**a, "sizes": tuple(a.get("sizes", ()))}) for a in d.get("signature", ())
        )
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
