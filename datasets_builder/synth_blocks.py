"""Block templates (level-3 tasks): MLPs, gated MLPs, self-attention and norm chains.

MLPs, gated MLPs and norm chains are built with chain.ChainBuilder (so their shapes are inferred
and their sizes solved like the compositions'); attention is a fixed template, written out with
explicit matmuls and softmax (not scaled_dot_product_attention, which lowers to a library kernel),
optionally causal, sized over a small grid of sequence lengths and batches."""

from __future__ import annotations

import random
from dataclasses import dataclass

from datasets_builder import ops
from datasets_builder.chain import ROWS, ChainBuilder
from datasets_builder.sizing import SizeConfig, op_seconds, solve_rows
from datasets_builder.task_source import DTYPE_SUFFIX, DTYPES, ELEMENT_SIZE, InputSpec, TaskSpec, spec_hash

KINDS = ("mlp", "glu", "attention", "norm_chain")
ACTS = ("gelu", "silu", "relu", "gelu_tanh")


@dataclass(frozen=True)
class BlockConfig:
    count: int = 40
    kinds: tuple[str, ...] = KINDS
    dtypes: tuple[str, ...] = ("bfloat16", "float32", "float16")
    dtype_weights: tuple[float, ...] = (0.5, 0.3, 0.2)
    seq_lens: tuple[int, ...] = (256, 512, 1024)  # attention
    head_dims: tuple[int, ...] = (64, 128)
    seed: int = 0

    def __post_init__(self):
        bad = set(self.kinds) - set(KINDS)
        if bad:
            raise ValueError(f"unknown block kinds {sorted(bad)}; known: {', '.join(KINDS)}")
        if len(self.dtypes) != len(self.dtype_weights):
            raise ValueError("dtypes and dtype_weights must have the same length")


def _alt(free: tuple[str, ...], size: SizeConfig) -> tuple[dict[str, int], ...]:
    out = []
    for j, rows in enumerate(size.alt_rows):
        a = {ROWS: rows, "B": size.alt_batches[j]}
        out.append({k: a[k] for k in free})
    return tuple(out)


def _from_chain(
    kind: str,
    b: ChainBuilder,
    sizes: dict,
    dtype: str,
    dims: tuple,
    size: SizeConfig,
    digest: str,
    extra: str,
) -> TaskSpec:
    sizes[ROWS] = solve_rows(b.cost(size), size)
    used = {d for i in b.inputs for d in i.dims} | b.fixed_dims
    full = {d: sizes[d] for d in ("B", ROWS, "D", "H") if d in used}
    free = tuple(d for d in ("B", ROWS) if d in full)
    shape = "[" + ", ".join(dims) + "]"
    return TaskSpec(
        name=f"block_{kind}_{extra}_{DTYPE_SUFFIX[dtype]}_{digest}",
        family=f"block/{kind}",
        level=3,
        dtype=dtype,
        description=f"Synthesized {kind.replace('_', ' ')} block on a {dtype} {shape} input: {' -> '.join(b.ops)}.",
        dims=full,
        free=free,
        alt=_alt(free, size),
        inputs=tuple(b.inputs),
        forward=(*b.lines, f"return {b.current}"),
        init=tuple(b.init),
        init_dims=tuple(d for d in ("D", "H") if d in b.fixed_dims),
        tags=("synthetic", "block", kind),
        difficulty=3,
        ops=tuple(b.ops),
        uses_functional=b.uses_functional,
    )


def mlp(rng: random.Random, dtype: str, size: SizeConfig, gated: bool, index: int, seed: int) -> TaskSpec:
    sizes = {"D": rng.choice(size.widths), "H": rng.choice(size.widths), "B": rng.choice(size.batches)}
    dims = ("B", ROWS, "D") if rng.random() < 0.5 else (ROWS, "D")
    b = ChainBuilder(dtype, sizes, rng)
    x = b.add_input(dims)
    pre_norm = rng.random() < 0.5
    if pre_norm:
        b.norm(ops.op(rng.choice(["layer_norm", "rms_norm"])))
    h_in = b.current
    act = rng.choice(ACTS) if not gated else "silu"
    if gated:
        gate = b.linear(ops.op("linear_nobias"), "H")
        a = b.unary(ops.op(act))
        b.current = h_in
        b.linear(ops.op("linear_nobias"), "H")
        b.binary(ops.op("mul"), a)
        del gate
    else:
        b.linear(ops.op("linear"), "H")
        b.unary(ops.op(act))
    b.linear(ops.op("linear_nobias" if gated else "linear"), "D")
    residual = rng.random() < 0.6
    if residual:
        b.binary(ops.op("add"), x)
    kind = "glu" if gated else "mlp"
    extra = f"{act}{'_prenorm' if pre_norm else ''}{'_res' if residual else ''}"
    return _from_chain(
        kind, b, sizes, dtype, dims, size, spec_hash([seed, index, kind, extra, sizes, dtype]), extra
    )


def norm_chain(rng: random.Random, dtype: str, size: SizeConfig, index: int, seed: int) -> TaskSpec:
    sizes = {"D": rng.choice(size.widths), "B": rng.choice(size.batches)}
    dims = ("B", ROWS, "D")
    b = ChainBuilder(dtype, sizes, rng)
    x = b.add_input(dims)
    stages = rng.randint(2, 3)
    names = []
    for _ in range(stages):
        norm = rng.choice(["layer_norm", "rms_norm", "center"])
        names.append(norm)
        b.norm(ops.op(norm))
        b.unary(ops.op(rng.choice(ACTS)))
        b.binary(ops.op(rng.choice(["add", "mul", "sigmoid_gate"])), x if rng.random() < 0.5 else "input")
    extra = "_".join(n.split("_")[0] for n in names)
    return _from_chain(
        "norm_chain", b, sizes, dtype, dims, size, spec_hash([seed, index, extra, sizes, dtype]), extra
    )


def attention(rng: random.Random, dtype: str, size: SizeConfig, cfg: BlockConfig, index: int) -> TaskSpec:
    head_dim = rng.choice(cfg.head_dims)
    heads = rng.choice([h for h in (4, 8, 12, 16) if h * head_dim <= max(size.widths)] or [1])
    d = heads * head_dim
    n = rng.choice(cfg.seq_lens)
    causal = rng.random() < 0.5
    es = ELEMENT_SIZE[dtype]

    def est_ms(batch: int) -> float:
        rows = batch * n
        flops = rows * (8 * d * d + 4 * n * d)
        nbytes = rows * d * es * 6 + batch * heads * n * n * (es + 4) * 3
        return (op_seconds(nbytes, flops, dtype, size) + 8 * size.launch_ms * 1e-3) * 1e3

    batch = 2  # a size of 1 would be specialised by the compiler (and the alternate sets change it)
    while batch < 64 and est_ms(batch * 2) <= size.target_ms:
        batch *= 2
    mask = (
        ['s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=x.device).triu(1), float("-inf"))']
        if causal
        else []
    )
    forward = (
        "b, n, _ = x.shape",
        "q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)",
        "s = (q @ k.transpose(-2, -1)) * self.scale",
        *mask,
        "p = torch.softmax(s.float(), dim=-1).to(x.dtype)",
        "o = (p @ v).transpose(1, 2).reshape(b, n, -1)",
        "return self.proj(o)",
    )
    dt = DTYPES[dtype]
    init = (
        "self.heads = heads",
        f"self.scale = {head_dim**-0.5!r}",
        f"self.qkv = nn.Linear(d, 3 * d, dtype={dt})",
        f"self.proj = nn.Linear(d, d, dtype={dt})",
    )
    digest = spec_hash([cfg.seed, index, d, heads, n, batch, causal, dtype])
    return TaskSpec(
        name=f"block_attention_h{heads}_d{head_dim}{'_causal' if causal else ''}_{DTYPE_SUFFIX[dtype]}_{digest}",
        family="block/attention",
        level=3,
        dtype=dtype,
        description=f"Synthesized {'causal ' if causal else ''}multi-head self-attention block ({heads} heads of "
        f"{head_dim}) on a {dtype} [B, N, D] input: qkv projection, softmax(QK^T) V, output projection.",
        dims={"B": batch, ROWS: n, "D": d, "HEADS": heads},
        free=("B", ROWS),
        alt=_alt(("B", ROWS), size),
        inputs=(InputSpec("x", ("B", ROWS, "D")),),
        forward=forward,
        init=init,
        init_dims=("D", "HEADS"),
        tags=("synthetic", "block", "attention", *(("causal",) if causal else ())),
        difficulty=3,
        ops=("linear", "matmul", *(("causal_mask",) if causal else ()), "softmax", "matmul", "linear"),
    )


def block_one(index: int, cfg: BlockConfig, size: SizeConfig) -> TaskSpec:
    rng = random.Random(f"block:{cfg.seed}:{index}")
    kind = cfg.kinds[index % len(cfg.kinds)]
    dtype = rng.choices(cfg.dtypes, cfg.dtype_weights)[0]
    if kind in ("mlp", "glu"):
        return mlp(rng, dtype, size, gated=kind == "glu", index=index, seed=cfg.seed)
    if kind == "norm_chain":
        return norm_chain(rng, dtype, size, index, cfg.seed)
    return attention(rng, dtype, size, cfg, index)


def generate(cfg: BlockConfig, size: SizeConfig) -> list[TaskSpec]:
    return [block_one(i, cfg, size) for i in range(cfg.count)]
