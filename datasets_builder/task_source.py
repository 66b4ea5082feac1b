"""A synthesized task as a typed spec, and the task file it becomes.

Every generator (variants, compositions, blocks) fills a TaskSpec; `render` writes it in the
suite's format: a one-line docstring, the SOLBENCH dict, the sizes as module constants,
`class Model` whose constructor takes the sizes its parameters depend on, and `get_inputs`,
`get_init_inputs` and `get_alt_inputs` built on one `_inputs(...)` helper whose arguments are the
free sizes (the ones the alternate input sets change). Inputs may be created in a permuted memory
layout (a transposed view), so kernels cannot assume contiguity."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

DTYPES = {"float32": "torch.float32", "bfloat16": "torch.bfloat16", "float16": "torch.float16"}
DTYPE_SUFFIX = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}
ELEMENT_SIZE = {"float32": 4, "bfloat16": 2, "float16": 2}


@dataclass(frozen=True)
class InputSpec:
    name: str
    dims: tuple[str, ...]  # size names, e.g. ("B", "N", "D")
    init: str = "randn"  # randn (normal) or rand (uniform on [0, 1))
    scale: float = 1.0
    offset: float = 0.0
    order: tuple[int, ...] | None = None  # memory order of the dims, outermost first (None: contiguous)
    dtype: str | None = None  # None: the task's dtype

    def __post_init__(self):
        if self.init not in ("randn", "rand"):
            raise ValueError(f"input init must be randn or rand, not {self.init!r}")
        if self.order is not None and sorted(self.order) != list(range(len(self.dims))):
            raise ValueError(f"input order {self.order} is not a permutation of {len(self.dims)} dims")


@dataclass(frozen=True)
class TaskSpec:
    name: str  # file stem
    family: str  # e.g. "variant/activation", "compose", "block/mlp"
    level: int
    dtype: str
    description: str
    dims: dict[str, int]  # full sizes, in declaration order
    free: tuple[str, ...]  # sizes the alternate input sets change
    alt: tuple[dict[str, int], ...]  # one dict of free sizes per alternate input set
    inputs: tuple[InputSpec, ...]
    forward: tuple[str, ...]  # body lines of forward (the last one returns)
    init: tuple[str, ...] = ()  # body lines of __init__ after super().__init__()
    init_dims: tuple[str, ...] = ()  # sizes the constructor takes (lower-case parameters)
    tags: tuple[str, ...] = ()
    difficulty: int = 1
    ops: tuple[str, ...] = ()  # operator names, for statistics and names
    atol: float | None = None
    rtol: float | None = None
    uses_functional: bool = False  # the code calls F.*
    generator: dict = field(default_factory=dict)  # how the generator made it (seed, choices)

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"task dtype must be one of {sorted(DTYPES)}, not {self.dtype!r}")
        unknown = set(self.free) - set(self.dims)
        if unknown:
            raise ValueError(f"free sizes {sorted(unknown)} are not among the task's sizes {list(self.dims)}")
        for a in self.alt:
            if set(a) != set(self.free):
                raise ValueError(f"an alternate set must give every free size {self.free}, got {sorted(a)}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> TaskSpec:
        d = dict(d)
        d["inputs"] = tuple(
            InputSpec(
                **{**i, "dims": tuple(i["dims"]), "order": tuple(i["order"]) if i.get("order") else None}
            )
            for i in d["inputs"]
        )
        for key in ("free", "forward", "init", "init_dims", "tags", "ops"):
            d[key] = tuple(d.get(key, ()))
        d["alt"] = tuple(dict(a) for a in d.get("alt", ()))
        return cls(**d)


def spec_hash(parts: object) -> str:
    """Six hex digits that tell two specs of the same shape apart in their file names."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:6]


def _number(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() else f"{float(x):.1f}"


def _tensor_expr(spec: TaskSpec, inp: InputSpec, sizes: dict[str, str]) -> str:
    dtype = DTYPES[inp.dtype or spec.dtype]
    order = inp.order or tuple(range(len(inp.dims)))
    shape = ", ".join(sizes[inp.dims[d]] for d in order)
    expr = f"torch.{inp.init}({shape}, dtype={dtype})"
    if order != tuple(range(len(order))):
        inverse = [order.index(d) for d in range(len(order))]
        if len(order) >= 2 and list(order) == [*range(len(order) - 2), len(order) - 1, len(order) - 2]:
            expr += ".transpose(-1, -2)"
        else:
            expr += f".permute({', '.join(map(str, inverse))})"
    if inp.scale != 1.0:
        expr += f" * {_number(inp.scale)}"
    if inp.offset:
        expr += f" {'+' if inp.offset > 0 else '-'} {_number(abs(inp.offset))}"
    return expr


def render(spec: TaskSpec) -> str:
    """The task file's source text."""
    meta = {"level": spec.level, "tags": list(spec.tags), "dtype": spec.dtype, "difficulty": spec.difficulty}
    if spec.atol is not None:
        meta["atol"] = spec.atol
    if spec.rtol is not None:
        meta["rtol"] = spec.rtol
    names = list(spec.dims)
    lines = [f'"""{spec.description}"""', "", "import torch", "import torch.nn as nn"]
    if spec.uses_functional:
        lines.append("import torch.nn.functional as F")
    lines += ["", f"SOLBENCH = {json.dumps(meta)}", ""]
    if len(names) == 1:
        lines.append(f"{names[0]} = {spec.dims[names[0]]}")
    else:
        lines.append(f"{', '.join(names)} = {', '.join(str(spec.dims[n]) for n in names)}")
    ctor = "".join(f", {d.lower()}: int" for d in spec.init_dims)
    lines += [
        "",
        "",
        "class Model(nn.Module):",
        f"    def __init__(self{ctor}):",
        "        super().__init__()",
    ]
    lines += [f"        {line}" for line in spec.init]
    args = ", ".join(f"{i.name}: torch.Tensor" for i in spec.inputs)
    lines += ["", f"    def forward(self, {args}):"]
    lines += [f"        {line}" for line in spec.forward]
    free = [n.lower() for n in spec.free]
    sizes = {n: (n.lower() if n in spec.free else n) for n in names}
    lines += ["", "", f"def _inputs({', '.join(free)}):", "    return ["]
    lines += [f"        {_tensor_expr(spec, i, sizes)}," for i in spec.inputs]
    lines += ["    ]", "", "", "def get_inputs():", f"    return _inputs({', '.join(spec.free)})", ""]
    lines += ["", "def get_init_inputs():", f"    return [{', '.join(spec.init_dims)}]", ""]
    if spec.alt:
        calls = ", ".join(f"_inputs({', '.join(str(a[f]) for f in spec.free)})" for a in spec.alt)
        lines += ["", "def get_alt_inputs():", f"    return [{calls}]"]
    return "\n".join(lines).rstrip() + "\n"
