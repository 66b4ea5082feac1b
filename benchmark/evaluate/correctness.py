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
rounding means nothing, and to within 2^-13 of its largest magnitude (FP8_NORMWISE), below which an
FP8 GEMM's tensor-core accumulation reaches. See docs/anti-cheat.md, "Correctness"."""

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
# Nor is an fp8 payload judged on errors below this share of its largest magnitude: an FP8 GEMM on
# tensor cores accumulates with fewer bits than fp32, and cuBLAS's put near-zero elements of a
# requantized product several subnormal steps off (up to about 2^-15 of the largest).
FP8_NORMWISE = 2.0**-13


EAGER_ERROR_FACTOR = 8.0  # how many times the eager reference's worst error a candidate may make
EXACT_AGREEMENT = 0.99  # share of elements where eager must match the exact reference to use it
EXACT_NORMWISE = 10.0  # or: max|eager - exact| within this many rtol of max|exact| (at most 1e-2)
CHUNK_ELEMENTS = 1 << 22  # elements compared at a time: the comparisons' temporaries scale with it


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


def _chunks(*tensors: torch.Tensor) -> list[tuple[int, list[torch.Tensor]]]:
    """Aligned slices of at most CHUNK_ELEMENTS elements of `tensors` (all of one numel) flattened, each
    with its offset: the comparisons work slice by slice, so their temporaries do not grow with the output."""
    flat = [t.detach().reshape(-1) for t in tensors]
    return [(i, [t[i : i + CHUNK_ELEMENTS] for t in flat]) for i in range(0, flat[0].numel(), CHUNK_ELEMENTS)]


def _unravel(flat_index: int, shape: torch.Size) -> list[int]:
    """The multi-dimensional index of element `flat_index` of a contiguous tensor of `shape`."""
    idx = []
    for size in reversed(shape):
        flat_index, i = divmod(flat_index, size)
        idx.append(i)
    return idx[::-1]


def _describe_first_mismatch(n_bad: int, numel: int, idx: list[int], expected: float, got: float) -> str:
    return f"{n_bad} of {numel} elements differ; first at index {idx}: expected {expected:.6g}, got {got:.6g}"


def _agreeing(eager: torch.Tensor, exact: torch.Tensor, a: float, r: float) -> torch.Tensor:
    """How many elements of one slice eager agrees with `exact` on, or is non-finite at."""
    e, x = eager.double(), exact.to(eager.device).double()
    return (torch.isclose(e, x, atol=a, rtol=r) | ~torch.isfinite(e)).sum()


def _finite_spread(eager: torch.Tensor, exact: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """One slice's: whether eager and `exact` are both finite anywhere, and there the largest
    |eager - exact| and the largest |exact|."""
    e, x = eager.double(), exact.to(eager.device).double()
    both = torch.isfinite(e) & torch.isfinite(x)
    zero = torch.zeros_like(e)
    return both.any(), torch.where(both, (e - x).abs(), zero).max(), torch.where(both, x.abs(), zero).max()


def _eager_error(eager: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
    """Eager's largest error against `exact` in one slice, where both are finite (0 if nowhere)."""
    ref_w, exact_w = eager.double(), exact.to(device=eager.device, dtype=torch.float64)
    both = torch.isfinite(ref_w) & torch.isfinite(exact_w)
    return torch.where(both, (ref_w - exact_w).abs(), torch.zeros_like(ref_w)).max()


def _judge(
    chunk: list[torch.Tensor], work: torch.dtype, a: float, r: float, eager_err: float | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One slice's (close, truth, got) in the working dtype: each element close to eager or, given an
    exact reference (the slice's third tensor), within the bound around it where eager and it are
    finite; there the exact reference is the truth, elsewhere eager."""
    ref_w, got_w = chunk[0].to(work), chunk[1].to(work)
    close = torch.isclose(got_w, ref_w, atol=a, rtol=r, equal_nan=True)
    if len(chunk) == 2:
        return close, ref_w, got_w
    exact_w = chunk[2].to(device=ref_w.device, dtype=torch.float64)
    both = torch.isfinite(ref_w) & torch.isfinite(exact_w)
    bound = a + r * exact_w.abs() + EAGER_ERROR_FACTOR * eager_err
    within = both & ((got_w - exact_w).abs() <= bound)
    return close | within, torch.where(both, exact_w, ref_w), got_w


def _slice_errors(
    chunk: list[torch.Tensor], work: torch.dtype, a: float, r: float, eager_err: float | None
) -> tuple[torch.Tensor, ...]:
    """One slice's count of bad elements, whether a bad one is non-finite, and its largest absolute and
    relative errors where truth and got are finite: 0-d tensors, left where they were computed."""
    close, truth, got_w = _judge(chunk, work, a, r, eager_err)
    finite = torch.isfinite(truth) & torch.isfinite(got_w)
    diff = torch.where(finite, (got_w - truth).abs(), torch.zeros_like(truth))
    significant = finite & (truth.abs() > max(a, 1e-12))
    rel = torch.where(significant, diff / truth.abs().clamp_min(1e-30), torch.zeros_like(truth))
    bad = ~close
    return bad.sum(), (bad & ~torch.isfinite(got_w)).any(), diff.max(), rel.max()


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
    one step of tolerance (FP8_STEPS) around eager already admits every honest rounding. Works over
    CHUNK_ELEMENTS elements at a time, the spread of the finite errors only where the agreement falls short."""
    if not isinstance(exact, torch.Tensor) or not ref.is_floating_point() or exact.shape != ref.shape:
        return False
    if ref.dtype in FP8_STEPS:
        return False
    if ref.numel() == 0:
        return False
    a, r = tolerance(ref.dtype, atol, rtol)
    chunks = _chunks(ref, exact)
    agree = torch.stack([_agreeing(e, x, a, r) for _, (e, x) in chunks]).sum()
    if int(agree) / ref.numel() >= EXACT_AGREEMENT:
        return True
    spread = [_finite_spread(e, x) for _, (e, x) in chunks]
    any_both, worst, scale = (torch.stack(t) for t in zip(*spread, strict=True))
    if not bool(any_both.any()):
        return False
    worst, scale = float(worst.max()), float(scale.max())
    return worst <= min(EXACT_NORMWISE * r, 1e-2) * max(scale, 1.0)


def _largest_finite(t: torch.Tensor) -> float:
    """The largest finite magnitude in `t` (0 if none), slice by slice."""
    largest = 0.0
    for _, (part,) in _chunks(t):
        x = part.float().abs()
        x = x[torch.isfinite(x)]
        if x.numel():
            largest = max(largest, float(x.max()))
    return largest


def compare_tensor(
    ref: torch.Tensor,
    got: object,
    atol: float | None,
    rtol: float | None,
    name: str,
    exact: torch.Tensor | None = None,
) -> Comparison:
    """Compare one output with the eager `ref`, and with the `exact` reference where one is usable.
    Works over CHUNK_ELEMENTS elements at a time: with `exact`, a first pass finds eager's own worst
    error against it (which every element's bound needs), a second judges the elements; a failure's
    first bad element is found again in the first slice that had one."""
    wrong = _check_like(ref, got, name)
    if wrong:
        return Comparison(False, detail=wrong)
    a, r = tolerance(ref.dtype, atol, rtol)
    if ref.numel() == 0:
        return Comparison(True)
    if ref.dtype in FP8_STEPS:
        a = max(a, FP8_NORMWISE * _largest_finite(ref))
    work = torch.float64 if ref.dtype == torch.float64 or exact is not None else torch.float32
    reference, eager_err = "eager", None
    chunks = _chunks(ref, got) if exact is None else _chunks(ref, got, exact)
    if exact is not None:
        reference = str(exact.dtype).removeprefix("torch.")
        eager_err = float(torch.stack([_eager_error(e, x) for _, (e, _, x) in chunks]).max())
    errors = [_slice_errors(chunk, work, a, r, eager_err) for _, chunk in chunks]
    n_bad, nan_bad, abs_errs, rel_errs = (torch.stack(t) for t in zip(*errors, strict=True))
    max_abs, max_rel = float(abs_errs.max()), float(rel_errs.max())
    bad_per_chunk = n_bad.tolist()
    if not any(bad_per_chunk):
        return Comparison(True, max_abs, max_rel, reference=reference, max_eager_err=eager_err)
    non_finite = bool(nan_bad.any())
    prefix = f"{name}: non-finite values where the reference has none; " if non_finite else f"{name}: "
    bound_text = f"atol={a:g}, rtol={r:g}"
    if eager_err is not None:
        bound_text += f", {EAGER_ERROR_FACTOR:g} x eager's own max error {eager_err:.3g} against {reference}"
    offset, chunk = next(c for c, count in zip(chunks, bad_per_chunk, strict=True) if count)
    close, truth, got_w = _judge(chunk, work, a, r, eager_err)
    first = int(torch.nonzero(~close)[0, 0])
    mismatch = _describe_first_mismatch(
        sum(bad_per_chunk),
        ref.numel(),
        _unravel(offset + first, ref.shape),
        truth[first].item(),
        got_w[first].item(),
    )
    return Comparison(
        False,
        max_abs if not non_finite else float("inf"),
        max_rel,
        prefix + mismatch + f" ({bound_text})",
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
