"""Output comparison that knows floating point: the one checker every part of SOLBench uses.

The eager result is not the truth. A row sum whose terms cancel differs by 1e-3 relative between
two honest summation orders, and a kernel that accumulates in double is closer to the exact sum
than PyTorch's own fp32 result. So, where the harness has an `exact` reference (the task computed
in higher precision: fp64 for fp32 tasks, fp32 for half types), an output element passes when

    |got - exact| <= atol + rtol * |exact| + EAGER_ERROR_FACTOR * max|eager - exact|

or when it is within (atol, rtol) of the eager result, as in the plain rule. The second term scales
with the eager reference's own worst error on these inputs: a candidate may be a few times less
lucky than PyTorch's summation order, but an answer computed in TF32 or fp16 under an fp32 task, or
a wrong answer, is far outside it (its error grows with the values, not with the rounding of a
cancelling sum). The exact reference is used where it agrees with eager on all but a sliver of
elements (EXACT_AGREEMENT), or where eager's worst error is small beside the output's largest value
(EXACT_NORMWISE, the normwise error of numerical analysis: an ill-conditioned scan at large
magnitude fails elementwise on more than a sliver of elements, yet eager is accurate to 1e-4 of its
scale). A task whose upcast computes something else fails both and keeps the plain rule.
Non-finite eager values must be matched as they are. An fp8 output (a quantizer's payload) is
compared to within one step of its format at least (FP8_STEPS), since a tighter bound than its own
rounding means nothing. See docs/anti-cheat.md, "Correctness"."""

from __future__ import annotations

from dataclasses import dataclass

import torch

# (atol, rtol) by output dtype; a task may override both in its SOLBENCH metadata.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-4, 1e-4),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (2e-2, 2e-2),
}

# An fp8 output (a quantizer's payload) is compared to within one step of its format at least, whatever
# the task asks of its other outputs: (smallest subnormal, relative spacing at the bottom of a binade).
# Two honest quantizers differ by one step where a value lies within an fp32 rounding of a tie
# (x / s against x * (1 / s)); tens of such elements turn up in a tensor of millions.
FP8_STEPS: dict[torch.dtype, tuple[float, float]] = {
    torch.float8_e4m3fn: (2.0**-9, 2.0**-3),
    torch.float8_e5m2: (2.0**-16, 2.0**-2),
}


EAGER_ERROR_FACTOR = 8.0  # how many times the eager reference's worst error a candidate may make
EXACT_AGREEMENT = 0.99  # share of elements where eager must match the exact reference to use it
EXACT_NORMWISE = 10.0  # or: max|eager - exact| within this many rtol of max|exact| (at most 1e-2)


@dataclass(frozen=True)
class Comparison:
    ok: bool
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    detail: str | None = None
    reference: str = "eager"  # what the errors are measured against: "float64", "float32" or "eager"
    max_eager_err: float | None = None  # with an exact reference: the eager result's own worst error


def rule_text(reference: str, atol: float | None = None, rtol: float | None = None) -> str:
    """The acceptance bound in words, recorded in every verdict's correctness record."""
    a = "atol" if atol is None else f"{atol:g}"
    r = "rtol" if rtol is None else f"{rtol:g}"
    if reference == "eager":
        return f"|got - eager| <= {a} + {r} * |eager|"
    return (
        f"|got - exact| <= {a} + {r} * |exact| + {EAGER_ERROR_FACTOR:g} * max|eager - exact| "
        f"(exact: the task in {reference}), or |got - eager| <= {a} + {r} * |eager|"
    )


def tolerance(
    dtype: torch.dtype, atol: float | None = None, rtol: float | None = None
) -> tuple[float, float]:
    default_atol, default_rtol = TOLERANCES.get(dtype, (0.0, 0.0))  # integers and bools: exact
    a, r = (default_atol if atol is None else atol, default_rtol if rtol is None else rtol)
    if dtype in FP8_STEPS:
        step_a, step_r = FP8_STEPS[dtype]
        return max(a, step_a), max(r, step_r)
    return a, r


def flatten_outputs(out: object) -> list[object]:
    if isinstance(out, list | tuple):
        return [leaf for item in out for leaf in flatten_outputs(item)]
    return [out]


def _describe_first_mismatch(ref: torch.Tensor, got: torch.Tensor, bad: torch.Tensor) -> str:
    idx = tuple(int(i) for i in torch.nonzero(bad)[0].tolist())
    n_bad = int(bad.sum())
    return (
        f"{n_bad} of {bad.numel()} elements differ; first at index {list(idx)}: "
        f"expected {ref[idx].item():.6g}, got {got[idx].item():.6g}"
    )


def _check_like(ref: torch.Tensor, got: object, name: str) -> str | None:
    if type(got) is not torch.Tensor:
        return f"{name}: expected a torch.Tensor, got {type(got).__qualname__}"
    if got.shape != ref.shape:
        return f"{name}: shape {tuple(got.shape)}, expected {tuple(ref.shape)}"
    if got.dtype != ref.dtype:
        return f"{name}: dtype {got.dtype}, expected {ref.dtype}"
    if got.device != ref.device:
        return f"{name}: device {got.device}, expected {ref.device}"
    return None


def usable_exact(
    ref: torch.Tensor, exact: object, atol: float | None = None, rtol: float | None = None
) -> bool:
    """Whether `exact` can stand as the truth for `ref`: same shape, and eager agrees with it within the
    dtype tolerance on at least EXACT_AGREEMENT of the elements, or eager's worst finite error is within
    EXACT_NORMWISE rtol of the largest exact value (else the upcast computed something else). Never for
    an fp8 output: where eager and the upcast round one value to neighbouring fp8 numbers, eager's
    "error" is a step of the largest binade (16 or 32 in e4m3), and 8 times it would pass any payload;
    one step of tolerance (FP8_STEPS) around eager already admits every honest rounding."""
    if not isinstance(exact, torch.Tensor) or not ref.is_floating_point() or exact.shape != ref.shape:
        return False
    if ref.dtype in FP8_STEPS:
        return False
    if ref.numel() == 0:
        return False
    a, r = tolerance(ref.dtype, atol, rtol)
    e, x = ref.detach().double(), exact.detach().to(ref.device).double()
    finite = torch.isfinite(e)
    agree = torch.isclose(e, x, atol=a, rtol=r) | ~finite
    if float(agree.double().mean()) >= EXACT_AGREEMENT:
        return True
    both = finite & torch.isfinite(x)
    if not bool(both.any()):
        return False
    worst, scale = float((e - x).abs()[both].max()), float(x.abs()[both].max())
    return worst <= min(EXACT_NORMWISE * r, 1e-2) * max(scale, 1.0)


def compare_tensor(
    ref: torch.Tensor,
    got: object,
    atol: float | None,
    rtol: float | None,
    name: str,
    exact: torch.Tensor | None = None,
) -> Comparison:
    """Compare one output with the eager `ref`, and with the `exact` reference where one is usable."""
    wrong = _check_like(ref, got, name)
    if wrong:
        return Comparison(False, detail=wrong)
    a, r = tolerance(ref.dtype, atol, rtol)
    if ref.numel() == 0:
        return Comparison(True)
    work = torch.float64 if ref.dtype == torch.float64 or exact is not None else torch.float32
    ref_w = ref.detach().to(work)
    got_w = got.detach().to(work)
    close = torch.isclose(got_w, ref_w, atol=a, rtol=r, equal_nan=True)
    reference, eager_err = "eager", None
    truth = ref_w
    if exact is not None:
        exact_w = exact.detach().to(device=ref.device, dtype=torch.float64)
        reference = str(exact.dtype).removeprefix("torch.")
        both = torch.isfinite(ref_w) & torch.isfinite(exact_w)
        eager_diff = torch.where(both, (ref_w - exact_w).abs(), torch.zeros_like(ref_w))
        eager_err = float(eager_diff.max())
        bound = a + r * exact_w.abs() + EAGER_ERROR_FACTOR * eager_err
        within = both & ((got_w - exact_w).abs() <= bound)
        close = close | within
        truth = torch.where(both, exact_w, ref_w)
    finite = torch.isfinite(truth) & torch.isfinite(got_w)
    diff = torch.where(finite, (got_w - truth).abs(), torch.zeros_like(truth))
    max_abs = float(diff.max())
    significant = finite & (truth.abs() > max(a, 1e-12))
    rel = torch.where(significant, diff / truth.abs().clamp_min(1e-30), torch.zeros_like(truth))
    max_rel = float(rel.max())
    if bool(close.all()):
        return Comparison(True, max_abs, max_rel, reference=reference, max_eager_err=eager_err)
    bad = ~close
    nan_bad = bad & (torch.isnan(got_w) | torch.isinf(got_w))
    prefix = (
        f"{name}: non-finite values where the reference has none; " if bool(nan_bad.any()) else f"{name}: "
    )
    bound_text = f"atol={a:g}, rtol={r:g}"
    if eager_err is not None:
        bound_text += f", {EAGER_ERROR_FACTOR:g} x eager's own max error {eager_err:.3g} against {reference}"
    return Comparison(
        False,
        max_abs if not bool(nan_bad.any()) else float("inf"),
        max_rel,
        prefix + _describe_first_mismatch(truth, got_w, bad) + f" ({bound_text})",
        reference=reference,
        max_eager_err=eager_err,
    )


def compare_outputs(
    ref: object, got: object, atol: float | None = None, rtol: float | None = None, exact: object = None
) -> Comparison:
    """Compare a model's output (tensor, or nested tuple/list of tensors and scalars) with the eager
    reference `ref`; `exact`, when given, is the same structure computed in higher precision."""
    refs, gots = flatten_outputs(ref), flatten_outputs(got)
    exacts = flatten_outputs(exact) if exact is not None else []
    if len(exacts) != len(refs):
        exacts = [None] * len(refs)
    if len(refs) != len(gots):
        return Comparison(False, detail=f"expected {len(refs)} outputs, got {len(gots)}")
    worst_abs = worst_rel = 0.0
    used, worst_eager = "eager", None
    for i, (r, g, x) in enumerate(zip(refs, gots, exacts, strict=True)):
        name = "output" if len(refs) == 1 else f"output[{i}]"
        if isinstance(r, torch.Tensor):
            x = x if usable_exact(r, x, atol, rtol) else None
            c = compare_tensor(r, g, atol, rtol, name, x)
        elif isinstance(g, torch.Tensor) or r != g:
            c = Comparison(False, detail=f"{name}: expected {r!r}, got {g!r}")
        else:
            c = Comparison(True)
        if not c.ok:
            return c
        worst_abs, worst_rel = max(worst_abs, c.max_abs_err), max(worst_rel, c.max_rel_err)
        if c.max_eager_err is not None:
            used, worst_eager = c.reference, max(worst_eager or 0.0, c.max_eager_err)
    return Comparison(True, worst_abs, worst_rel, reference=used, max_eager_err=worst_eager)
