"""Random compositions of 2-6 operators with shape inference (level-2 fusion tasks).

Each composition starts from one input tensor of shape [N, D] or [B, N, D] (sometimes created
transposed in memory), then applies operators drawn from the catalogue: activations and
elementwise maps, binary operators whose second operand is a new input, a row vector input or
parameter, or an earlier value of the same shape (a residual), normalizations and softmax over the
last dim, scans (fp32), an occasional linear layer, a transpose, and at most one reduction. Every
step is checked by chain.ChainBuilder's shape inference; the row count is then solved so that the
eager program takes about the configured time. Everything is drawn from one seeded RNG per task,
so a build is reproducible."""

from __future__ import annotations

import random
from dataclasses import dataclass

from datasets_builder import ops
from datasets_builder.chain import ROWS, ChainBuilder
from datasets_builder.sizing import SizeConfig, solve_rows
from datasets_builder.task_source import DTYPE_SUFFIX, TaskSpec, spec_hash

# Operators whose outputs are squeezed into a narrow range: another squeezing operator right after
# them would make the output nearly constant, which the validator rejects as degenerate.
SQUEEZING = {
    "softmax",
    "sigmoid",
    "gaussian",
    "erf",
    "tanh",
    "softsign",
    "l2_normalize",
    "clamp",
    "sin",
    "inv_sqrt_norm",
}
FAMILY_WEIGHTS = {
    "activation": 3.0,
    "elementwise": 2.0,
    "binary": 3.0,
    "normalization": 1.5,
    "softmax": 1.0,
    "scan": 0.4,
    "reduction": 1.0,
    "linear": 0.6,
    "layout": 0.3,
}


@dataclass(frozen=True)
class ComposeConfig:
    count: int = 100
    min_ops: int = 2
    max_ops: int = 6
    dtypes: tuple[str, ...] = ("float32", "bfloat16", "float16")
    dtype_weights: tuple[float, ...] = (0.4, 0.45, 0.15)
    linear: bool = True  # allow linear layers (their matmuls need Inductor's Triton templates)
    transposed_input: float = 0.2  # chance the input is created transposed in memory
    two_outputs: float = 0.1  # chance forward also returns an earlier value
    seed: int = 0

    def __post_init__(self):
        if not 1 <= self.min_ops <= self.max_ops:
            raise ValueError(f"need 1 <= min_ops <= max_ops, got {self.min_ops} and {self.max_ops}")
        if len(self.dtypes) != len(self.dtype_weights):
            raise ValueError("dtypes and dtype_weights must have the same length")


def _choose_family(
    rng: random.Random, b: ChainBuilder, reduced: bool, used_linear: bool, cfg: ComposeConfig, last: bool
) -> str:
    weights = dict(FAMILY_WEIGHTS)
    dims = b.value_dims(b.current)
    if reduced or len(dims) < 2 or not last:
        weights["reduction"] = 0.0 if reduced or len(dims) < 2 else weights["reduction"] * 0.3
    if b.dtype != "float32":
        weights["scan"] = 0.0
    if not cfg.linear or used_linear or reduced or dims[-1] == ROWS:
        weights["linear"] = 0.0
    if len(dims) < 2:
        weights["layout"] = 0.0
    if b.ops and b.ops[-1] in SQUEEZING:
        for family in ("activation", "elementwise", "softmax", "normalization", "layout"):
            weights[family] = 0.0
    names = list(weights)
    return rng.choices(names, [weights[n] for n in names])[0]


def _apply(rng: random.Random, b: ChainBuilder, family: str) -> None:
    on_rows = b.value_dims(b.current)[-1] == ROWS  # parameters cannot depend on the row count
    op = rng.choice([o for o in ops.ops_of(family) if b.dtype in o.dtypes and not (on_rows and o.param)])
    if op.kind == "unary":
        b.unary(op)
    elif op.kind == "binary":
        dims = b.value_dims(b.current)
        residuals = [v for v, d in b.values.items() if d == dims and v != b.current and not v.startswith("x")]
        kinds = ["input", "row"] + ([] if on_rows else ["param"]) + (["residual"] * 2 if residuals else [])
        kind = rng.choice(kinds)
        b.binary(op, rng.choice(residuals) if kind == "residual" else kind)
    elif op.kind == "reduce":
        b.reduce(op, axis=rng.choice([-1, -1, 0 if len(b.value_dims(b.current)) == 2 else 1]), keepdim=False)
    elif op.kind == "norm":
        b.norm(op)
    elif op.kind == "linear":
        b.linear(op, "H")
    elif op.kind == "transpose":
        b.transpose(op)
        b.unary(rng.choice(ops.ops_of("activation")))


def compose_one(index: int, cfg: ComposeConfig, size: SizeConfig) -> TaskSpec:
    rng = random.Random(f"compose:{cfg.seed}:{index}")
    dtype = rng.choices(cfg.dtypes, cfg.dtype_weights)[0]
    rank = rng.choice([2, 3])
    sizes = {"D": rng.choice(size.widths), "H": rng.choice(size.widths)}
    if rank == 3:
        sizes["B"] = rng.choice(size.batches)
    dims = ("B", ROWS, "D") if rank == 3 else (ROWS, "D")
    b = ChainBuilder(dtype, sizes, rng)
    order = None
    if rng.random() < cfg.transposed_input:
        order = (*range(rank - 2), rank - 1, rank - 2)
    b.add_input(dims, order=order, scale=rng.choice([1.0, 1.0, 2.0]))
    n_ops = rng.randint(cfg.min_ops, cfg.max_ops)
    reduced = used_linear = False
    while len(b.ops) < n_ops:
        family = _choose_family(rng, b, reduced, used_linear, cfg, last=len(b.ops) >= n_ops - 2)
        _apply(rng, b, family)
        reduced |= family == "reduction"
        used_linear |= family == "linear"
    outputs = [b.current]
    earlier = [v for v in b.values if v.startswith("t") and v != b.current]
    if earlier and rng.random() < cfg.two_outputs:
        outputs.append(rng.choice(earlier))
    sizes[ROWS] = solve_rows(b.cost(size), size)
    used = {d for i in b.inputs for d in i.dims} | {d for v in b.values.values() for d in v} | b.fixed_dims
    full = {d: sizes[d] for d in ("B", ROWS, "D", "H") if d in used}
    free = tuple(d for d in ("B", ROWS, "D") if d in full and d not in b.fixed_dims)
    alt = []
    for j, rows in enumerate(size.alt_rows):
        a = {ROWS: rows}
        if "B" in free:
            a["B"] = size.alt_batches[j]
        if "D" in free:
            a["D"] = size.alt_widths[j % len(size.alt_widths)]
        alt.append({k: a[k] for k in free})
    ret = b.current if len(outputs) == 1 else "(" + ", ".join(outputs) + ")"
    names = b.ops
    digest = spec_hash([cfg.seed, index, names, full, dtype])
    label = "_".join(names[:3]) + ("_more" if len(names) > 3 else "")
    shape = "[" + ", ".join(dims) + "]"
    return TaskSpec(
        name=f"compose_{label}_{DTYPE_SUFFIX[dtype]}_{digest}",
        family="compose",
        level=2,
        dtype=dtype,
        description=f"Synthesized fusion of {len(names)} operators on a {dtype} {shape} input: {' -> '.join(names)}.",
        dims=full,
        free=free,
        alt=tuple(alt),
        inputs=tuple(b.inputs),
        forward=(*b.lines, f"return {ret}"),
        init=tuple(b.init),
        init_dims=tuple(d for d in ("D", "H") if d in b.fixed_dims),
        tags=("synthetic", "compose", *sorted({ops.op(n).family for n in names})),
        difficulty=1 if len(names) <= 3 else 2 if len(names) <= 5 and not used_linear else 3,
        ops=tuple(names),
        uses_functional=b.uses_functional,
        generator={"generator": "compose", "seed": cfg.seed, "index": index},
    )


def generate(cfg: ComposeConfig, size: SizeConfig) -> list[TaskSpec]:
    return [compose_one(i, cfg, size) for i in range(cfg.count)]
