"""The operator catalogue the synthesizers draw from.

Every operator is a Python expression template over the current value `{x}` (and `{y}`, a second
operand, for binary operators), chosen to be defined for any real input (log and sqrt take |x|
plus a margin, division has a denominator bounded away from zero) so that random compositions
never produce NaN. Each carries what shape inference and sizing need: how it changes the shape,
roughly how many bytes eager PyTorch moves for it (in units of the input tensor), and which dtypes
it is numerically safe in (scans accumulate error in half precision, so they stay fp32)."""

from __future__ import annotations

from dataclasses import dataclass

ALL_DTYPES = ("float32", "bfloat16", "float16")
FP32 = ("float32",)


@dataclass(frozen=True)
class Op:
    name: str
    family: str  # activation | elementwise | binary | reduction | normalization | softmax | scan | linear | layout
    template: str  # expression over {x}, {y} (second operand), {dim} and {kd} (", keepdim=True" or "")
    kind: str = "unary"  # unary | binary | reduce | norm | linear | transpose
    passes: float = 2.0  # eager bytes moved, in units of the input tensor's size
    dtypes: tuple[str, ...] = ALL_DTYPES
    functional: bool = False  # the template calls F.*
    param: str | None = (
        None  # an __init__ line template ({p}: attribute name, {d}: last size, {h}: out size, {dt}: dtype)
    )


ACTIVATIONS = [
    Op("relu", "activation", "torch.relu({x})"),
    Op("gelu", "activation", "F.gelu({x})", functional=True),
    Op("gelu_tanh", "activation", 'F.gelu({x}, approximate="tanh")', functional=True),
    Op("silu", "activation", "F.silu({x})", functional=True),
    Op("sigmoid", "activation", "torch.sigmoid({x})"),
    Op("tanh", "activation", "torch.tanh({x})"),
    Op("softplus", "activation", "F.softplus({x})", functional=True),
    Op("elu", "activation", "F.elu({x})", functional=True),
    Op("leaky_relu", "activation", "F.leaky_relu({x}, 0.1)", functional=True),
    Op("hardswish", "activation", "F.hardswish({x})", functional=True),
    Op("mish", "activation", "F.mish({x})", functional=True),
    Op("softsign", "activation", "{x} / (1.0 + {x}.abs())"),
]
ELEMENTWISE = [
    Op("log_abs", "elementwise", "torch.log1p({x}.abs())"),
    Op("sqrt_abs", "elementwise", "torch.sqrt({x}.abs() + 0.01)"),
    Op("square", "elementwise", "{x} * {x}"),
    Op("gaussian", "elementwise", "torch.exp(-0.5 * {x} * {x})"),
    Op("clamp", "elementwise", "torch.clamp({x}, -1.5, 1.5)"),
    Op("scale_shift", "elementwise", "{x} * 1.75 + 0.25"),
    Op("sin", "elementwise", "torch.sin({x})"),
    Op("erf", "elementwise", "torch.erf({x})"),
    Op("inv_sqrt_norm", "elementwise", "{x} * torch.rsqrt({x} * {x} + 1.0)"),
]
BINARY = [
    Op("add", "binary", "{x} + {y}", kind="binary", passes=3.0),
    Op("mul", "binary", "{x} * {y}", kind="binary", passes=3.0),
    Op("sub", "binary", "{x} - {y}", kind="binary", passes=3.0),
    Op("maximum", "binary", "torch.maximum({x}, {y})", kind="binary", passes=3.0),
    Op("div_safe", "binary", "{x} / ({y}.abs() + 1.0)", kind="binary", passes=3.0),
    Op("sigmoid_gate", "binary", "{x} * torch.sigmoid({y})", kind="binary", passes=3.0),
    Op("where_pos", "binary", "torch.where({y} > 0, {x}, 0.5 * {x})", kind="binary", passes=3.0),
]
REDUCTIONS = [
    Op("sum", "reduction", "{x}.sum(dim={dim}{kd})", kind="reduce", passes=1.0),
    Op("amax", "reduction", "{x}.amax(dim={dim}{kd})", kind="reduce", passes=1.0),
    Op("amin", "reduction", "{x}.amin(dim={dim}{kd})", kind="reduce", passes=1.0),
    Op("mean_abs", "reduction", "{x}.abs().mean(dim={dim}{kd})", kind="reduce", passes=1.0),
    Op("mean_square", "reduction", "({x} * {x}).mean(dim={dim}{kd})", kind="reduce", passes=1.0),
    Op("var", "reduction", "{x}.var(dim={dim}{kd})", kind="reduce", passes=2.0),
    Op("std", "reduction", "{x}.std(dim={dim}{kd})", kind="reduce", passes=2.0),
    Op("logsumexp", "reduction", "torch.logsumexp({x}, dim={dim}{kd})", kind="reduce", passes=2.0),
    Op("norm", "reduction", "torch.linalg.vector_norm({x}, dim={dim}{kd})", kind="reduce", passes=1.0),
]
NORMALIZATIONS = [
    Op(
        "layer_norm",
        "normalization",
        "self.{p}({x})",
        kind="norm",
        passes=3.0,
        param="self.{p} = nn.LayerNorm({d}, dtype={dt})\nnn.init.normal_(self.{p}.weight, 1.0, 0.2)\n"
        "nn.init.normal_(self.{p}.bias, 0.0, 0.2)",
    ),
    Op(
        "rms_norm",
        "normalization",
        "{x} * torch.rsqrt(({x} * {x}).mean(dim=-1, keepdim=True) + 1e-06) * self.{p}",
        kind="norm",
        passes=4.0,
        param="self.{p} = nn.Parameter(torch.randn({d}, dtype={dt}) * 0.2 + 1.0)",
    ),
    Op("l2_normalize", "normalization", "F.normalize({x}, dim=-1)", kind="norm", passes=3.0, functional=True),
    Op("center", "normalization", "{x} - {x}.mean(dim=-1, keepdim=True)", kind="norm", passes=3.0),
]
SOFTMAX = [
    Op("softmax", "softmax", "torch.softmax({x} * 2.0, dim=-1)", kind="norm", passes=3.0),
    Op("log_softmax", "softmax", "torch.log_softmax({x}, dim=-1)", kind="norm", passes=3.0),
]
SCANS = [
    Op("cumsum", "scan", "torch.cumsum({x}, dim=-1)", kind="norm", passes=2.0, dtypes=FP32),
    Op("logcumsumexp", "scan", "torch.logcumsumexp({x}, dim=-1)", kind="norm", passes=2.0, dtypes=FP32),
]
LINEAR = [
    Op(
        "linear",
        "linear",
        "self.{p}({x})",
        kind="linear",
        passes=2.0,
        param="self.{p} = nn.Linear({d}, {h}, dtype={dt})",
    ),
    Op(
        "linear_nobias",
        "linear",
        "self.{p}({x})",
        kind="linear",
        passes=2.0,
        param="self.{p} = nn.Linear({d}, {h}, bias=False, dtype={dt})",
    ),
]
LAYOUT = [
    Op("transpose", "layout", "{x}.transpose(-1, -2)", kind="transpose", passes=0.0),
]

CATALOGUE: dict[str, list[Op]] = {
    "activation": ACTIVATIONS,
    "elementwise": ELEMENTWISE,
    "binary": BINARY,
    "reduction": REDUCTIONS,
    "normalization": NORMALIZATIONS,
    "softmax": SOFTMAX,
    "scan": SCANS,
    "linear": LINEAR,
    "layout": LAYOUT,
}
BY_NAME: dict[str, Op] = {op.name: op for ops in CATALOGUE.values() for op in ops}


def families() -> list[str]:
    return list(CATALOGUE)


def ops_of(family: str) -> list[Op]:
    if family not in CATALOGUE:
        raise ValueError(f"unknown operator family {family!r}; known: {', '.join(CATALOGUE)}")
    return CATALOGUE[family]


def op(name: str) -> Op:
    if name not in BY_NAME:
        raise ValueError(f"unknown operator {name!r}")
    return BY_NAME[name]
