"""Operator variants (level-1 tasks): operator families x shapes x dtypes x layouts.

The grid is every operator of the chosen families, crossed with a shape class (2-d [N, D], 3-d
[B, N, D]), the dtypes, and a layout (contiguous, or the input created transposed in memory);
binary operators also vary their second operand (a full input, a row vector input, a parameter),
reductions their axis and keepdim. Each cell is drawn at `shapes` sizes (widths and batches: the
same operator at another shape is a task of its own, dedup.py), `count` variants are drawn from
the result without replacement by a seeded RNG, and each is sized like the compositions (sizing.py)."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from datasets_builder import ops
from datasets_builder.chain import ROWS, ChainBuilder
from datasets_builder.sizing import SizeConfig, solve_rows
from datasets_builder.task_source import DTYPE_SUFFIX, TaskSpec, spec_hash

DEFAULT_FAMILIES = (
    "activation",
    "elementwise",
    "binary",
    "reduction",
    "normalization",
    "softmax",
    "scan",
    "linear",
)


@dataclass(frozen=True)
class VariantConfig:
    count: int = 100
    families: tuple[str, ...] = DEFAULT_FAMILIES
    dtypes: tuple[str, ...] = ("float32", "bfloat16", "float16")
    layouts: tuple[str, ...] = ("contiguous", "transposed")
    ranks: tuple[int, ...] = (2, 3)
    shapes: int = 1  # size draws per grid cell (draws of equal sizes are one program, removed by dedup)
    seed: int = 0

    def __post_init__(self):
        for f in self.families:
            ops.ops_of(f)
        bad = set(self.layouts) - {"contiguous", "transposed"}
        if bad:
            raise ValueError(f"unknown layouts {sorted(bad)}; use contiguous and transposed")
        if self.shapes < 1:
            raise ValueError(f"shapes must be at least 1, not {self.shapes}")


def _options(op: ops.Op) -> list[dict]:
    """The per-operator axis of the grid."""
    if op.kind == "binary":
        return [{"operand": k} for k in ("input", "row", "param")]
    if op.kind == "reduce":
        return [{"axis": a, "keepdim": k} for a in ("last", "rows") for k in (False, True)]
    return [{}]


def grid(cfg: VariantConfig) -> list[tuple[str, int, str, str, dict]]:
    cells = []
    for family in cfg.families:
        for op in ops.ops_of(family):
            if op.kind == "transpose":
                continue
            for rank, dtype, layout, opt in itertools.product(
                cfg.ranks, cfg.dtypes, cfg.layouts, _options(op)
            ):
                if dtype in op.dtypes:
                    cells.append((op.name, rank, dtype, layout, opt))
    return cells


def variant_one(
    cell: tuple[str, int, str, str, dict], cfg: VariantConfig, size: SizeConfig, draw: int = 0
) -> TaskSpec:
    """The variant of one grid cell at its size draw `draw` (draw 0 is seeded by the cell alone)."""
    name, rank, dtype, layout, opt = cell
    op = ops.op(name)
    rng = random.Random(f"variant:{cfg.seed}:{cell}" + (f":{draw}" if draw else ""))
    sizes = {"D": rng.choice(size.widths), "H": rng.choice(size.widths)}
    if rank == 3:
        sizes["B"] = rng.choice(size.batches)
    dims = ("B", ROWS, "D") if rank == 3 else (ROWS, "D")
    order = (*range(rank - 2), rank - 1, rank - 2) if layout == "transposed" else None
    b = ChainBuilder(dtype, sizes, rng)
    b.add_input(dims, order=order, scale=2.0 if op.family in ("softmax", "activation") else 1.0)
    if op.kind == "unary":
        b.unary(op)
    elif op.kind == "binary":
        b.binary(op, opt["operand"])
    elif op.kind == "reduce":
        b.reduce(op, axis=-1 if opt["axis"] == "last" else rank - 2, keepdim=opt["keepdim"])
    elif op.kind == "norm":
        b.norm(op)
    elif op.kind == "linear":
        b.linear(op, "H")
    sizes[ROWS] = solve_rows(b.cost(size), size)
    used = {d for i in b.inputs for d in i.dims} | b.fixed_dims
    full = {d: sizes[d] for d in ("B", ROWS, "D", "H") if d in used}
    free = tuple(d for d in ("B", ROWS, "D") if d in full and d not in b.fixed_dims)
    alt = []
    for j, rows in enumerate(size.alt_rows):
        a = {ROWS: rows, "B": size.alt_batches[j], "D": size.alt_widths[j % len(size.alt_widths)]}
        alt.append({k: a[k] for k in free})
    detail = "_".join(str(v) if not isinstance(v, bool) else ("keepdim" if v else "") for v in opt.values())
    detail = "_".join(p for p in detail.split("_") if p)
    digest = spec_hash([cfg.seed, cell, full, *([draw] if draw else [])])
    shape = "[" + ", ".join(dims) + "]"
    where = f", {detail.replace('_', ' ')}" if detail else ""
    return TaskSpec(
        name=f"{name}{'_' + detail if detail else ''}_{rank}d{'_t' if order else ''}_{DTYPE_SUFFIX[dtype]}_{digest}",
        family=f"variant/{op.family}",
        level=1,
        dtype=dtype,
        description=f"Synthesized {op.family} variant: {name} on a {dtype} {shape} input"
        f"{' created transposed in memory' if order else ''}{where}.",
        dims=full,
        free=free,
        alt=tuple(alt),
        inputs=tuple(b.inputs),
        forward=(*b.lines, f"return {b.current}"),
        init=tuple(b.init),
        init_dims=tuple(d for d in ("D", "H") if d in b.fixed_dims),
        tags=("synthetic", "variant", op.family),
        difficulty=1 if op.family in ("activation", "elementwise", "binary") else 2,
        ops=tuple(b.ops),
        uses_functional=b.uses_functional,
        generator={"generator": "variants", "seed": cfg.seed, "cell": list(map(str, cell)), "draw": draw},
    )


def generate(cfg: VariantConfig, size: SizeConfig) -> list[TaskSpec]:
    draws = [(cell, draw) for draw in range(cfg.shapes) for cell in grid(cfg)]
    rng = random.Random(f"variants:{cfg.seed}")
    chosen = rng.sample(draws, min(cfg.count, len(draws)))
    return [variant_one(cell, cfg, size, draw) for cell, draw in chosen]
