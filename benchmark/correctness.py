"""Output comparison with per-dtype tolerances: the one checker every part of SOLBench uses."""

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


@dataclass(frozen=True)
class Comparison:
    ok: bool
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    detail: str | None = None


def tolerance(dtype: torch.dtype, atol: float | None = None, rtol: float | None = None) -> tuple[float, float]:
    default_atol, default_rtol = TOLERANCES.get(dtype, (0.0, 0.0))  # integers and bools: exact
    return (default_atol if atol is None else atol, default_rtol if rtol is None else rtol)


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


def compare_tensor(ref: torch.Tensor, got: object, atol: float | None, rtol: float | None, name: str) -> Comparison:
    if type(got) is not torch.Tensor:
        return Comparison(False, detail=f"{name}: expected a torch.Tensor, got {type(got).__qualname__}")
    if got.shape != ref.shape:
        return Comparison(False, detail=f"{name}: shape {tuple(got.shape)}, expected {tuple(ref.shape)}")
    if got.dtype != ref.dtype:
        return Comparison(False, detail=f"{name}: dtype {got.dtype}, expected {ref.dtype}")
    if got.device != ref.device:
        return Comparison(False, detail=f"{name}: device {got.device}, expected {ref.device}")
    a, r = tolerance(ref.dtype, atol, rtol)
    if ref.numel() == 0:
        return Comparison(True)
    work = torch.float64 if ref.dtype == torch.float64 else torch.float32
    ref_w = ref.detach().to(work)
    got_w = got.detach().to(work)
    close = torch.isclose(got_w, ref_w, atol=a, rtol=r, equal_nan=True)
    finite = torch.isfinite(ref_w) & torch.isfinite(got_w)
    diff = torch.where(finite, (got_w - ref_w).abs(), torch.zeros_like(ref_w))
    max_abs = float(diff.max())
    significant = finite & (ref_w.abs() > max(a, 1e-12))
    rel = torch.where(significant, diff / ref_w.abs().clamp_min(1e-30), torch.zeros_like(ref_w))
    max_rel = float(rel.max())
    if bool(close.all()):
        return Comparison(True, max_abs, max_rel)
    bad = ~close
    nan_bad = bad & (torch.isnan(got_w) | torch.isinf(got_w))
    prefix = f"{name}: non-finite values where the reference has none; " if bool(nan_bad.any()) else f"{name}: "
    return Comparison(
        False,
        max_abs if not bool(nan_bad.any()) else float("inf"),
        max_rel,
        prefix + _describe_first_mismatch(ref_w, got_w, bad) + f" (atol={a:g}, rtol={r:g})",
    )


def compare_outputs(ref: object, got: object, atol: float | None = None, rtol: float | None = None) -> Comparison:
    """Compare a model's output (tensor, or nested tuple/list of tensors and scalars) with the reference."""
    refs, gots = flatten_outputs(ref), flatten_outputs(got)
    if len(refs) != len(gots):
        return Comparison(False, detail=f"expected {len(refs)} outputs, got {len(gots)}")
    worst_abs = worst_rel = 0.0
    for i, (r, g) in enumerate(zip(refs, gots, strict=True)):
        name = "output" if len(refs) == 1 else f"output[{i}]"
        if isinstance(r, torch.Tensor):
            c = compare_tensor(r, g, atol, rtol, name)
        elif isinstance(g, torch.Tensor) or r != g:
            c = Comparison(False, detail=f"{name}: expected {r!r}, got {g!r}")
        else:
            c = Comparison(True)
        if not c.ok:
            return c
        worst_abs, worst_rel = max(worst_abs, c.max_abs_err), max(worst_rel, c.max_rel_err)
    return Comparison(True, worst_abs, worst_rel)
