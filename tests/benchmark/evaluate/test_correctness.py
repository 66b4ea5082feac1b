"""The comparison rule on known numerics: honest summation orders pass against the exact reference,
precision downgrades and wrong answers fail, and an exact reference that computes something else
is not used."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from benchmark.evaluate import correctness
from benchmark.evaluate.correctness import (
    EXACT_AGREEMENT,
    compare_outputs,
    compare_tensor,
    tolerance,
    usable_exact,
)
from benchmark.evaluate.exact import ExactReference, wide_dtype


@pytest.fixture(scope="module")
def wide_rows():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 4096, generator=g) * 100  # the large-magnitude trial of a wide row sum
    return x, x.sum(-1), x.double().sum(-1)


def test_plain_rule_rejects_an_honest_double_accumulation(wide_rows):
    x, eager, exact = wide_rows
    assert not compare_outputs(eager, exact.float()).ok  # why the exact reference exists


@pytest.mark.parametrize(
    "order",
    [
        lambda x: x.double().sum(-1).float(),  # more accurate than eager
        lambda x: x.view(x.shape[0], 64, 64).sum(-1).sum(-1),  # blocked partial sums
        lambda x: x.view(x.shape[0], 64, 64).transpose(1, 2).sum(-1).sum(-1),  # strided partial sums
        lambda x: x.flip(-1).sum(-1),  # the same terms in reverse
    ],
)
def test_honest_summation_orders_pass(wide_rows, order):
    x, eager, exact = wide_rows
    c = compare_outputs(eager, order(x), exact=exact)
    assert c.ok, c.detail
    assert c.reference == "float64" and c.max_eager_err > 0


def test_half_accumulation_fails(wide_rows):
    x, eager, exact = wide_rows
    got = x.half().sum(-1, dtype=torch.float16).float()
    c = compare_outputs(eager, got, exact=exact)
    assert not c.ok and "eager's own max error" in c.detail


def test_a_wrong_sum_fails(wide_rows):
    x, eager, exact = wide_rows
    assert not compare_outputs(eager, x[:, :-1].sum(-1), exact=exact).ok


def _tf32(t: torch.Tensor) -> torch.Tensor:
    """Round to TF32's 10-bit mantissa, as the tensor cores do under allow_tf32."""
    return (t.view(torch.int32) & ~0x1FFF).view(torch.float32)


@pytest.mark.parametrize("scale", [1.0, 100.0])
def test_tf32_matmul_under_an_fp32_task_fails(scale):
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(256, 2048, generator=g) * scale, torch.randn(2048, 256, generator=g)
    eager, exact = a @ b, a.double() @ b.double()
    assert compare_outputs(eager, a @ b, exact=exact).ok
    assert not compare_outputs(eager, _tf32(a) @ _tf32(b), exact=exact).ok


def test_exact_reference_that_disagrees_is_not_used():
    eager = torch.randn(1000)
    other = eager.double() + 1.0  # an upcast that computed something else
    assert not usable_exact(eager, other)
    c = compare_outputs(eager, eager.clone(), exact=other)
    assert c.ok and c.reference == "eager"
    assert not compare_outputs(eager, other.float(), exact=other).ok


def test_non_finite_eager_values_must_be_matched():
    eager = torch.tensor([1.0, float("inf"), 3.0])
    exact = torch.tensor([1.0, 1e300, 3.0], dtype=torch.float64)
    assert compare_outputs(eager, eager.clone(), exact=exact).ok
    assert not compare_outputs(eager, torch.tensor([1.0, 5.0, 3.0]), exact=exact).ok


def test_half_types_compare_with_fp32_exact():
    g = torch.Generator().manual_seed(2)
    x = (torch.randn(64, 4096, generator=g) * 3).bfloat16()
    model = torch.nn.GELU()
    ref = ExactReference(model, [x])
    assert ref.dtype == torch.float32
    exact = ref([x])
    eager = model(x)
    gelu = torch.nn.functional.gelu
    assert compare_outputs(eager, gelu(x.float()).bfloat16(), exact=exact).ok
    assert not compare_outputs(eager, gelu(x.float() * 1.1).bfloat16(), exact=exact).ok


def test_wide_dtype_follows_the_task():
    lin = torch.nn.Linear(4, 4)
    assert wide_dtype(lin, [torch.randn(2, 4)]) == torch.float64
    assert wide_dtype(lin.half(), [torch.randn(2, 4).half()]) == torch.float32
    assert wide_dtype(torch.nn.Identity(), [torch.arange(4)]) is None


def test_upcast_failure_leaves_no_exact_reference():
    class Fussy(torch.nn.Module):
        def forward(self, x):
            if x.dtype != torch.float32:
                raise TypeError("float32 only")
            return x * 2

    ref = ExactReference(Fussy(), [torch.randn(3)])
    assert ref([torch.randn(3)]) is None and "float32 only" in ref.failure


def _decay_scan_outputs(scale: float):
    """The suite's chunked decay scan (a smaller instance) at `scale`: eager, fp64, and a serial scan."""
    import copy
    import importlib.util

    path = Path(__file__).parents[3] / "benchmark/tasks/level3/chunked_decay_scan_fp32.py"
    spec = importlib.util.spec_from_file_location("chunked_decay_scan", path)
    task = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(task)
    torch.manual_seed(0)
    model = task.Model(64, 64)
    x = torch.randn(2, 1024, 64) * scale
    with torch.no_grad():
        eager, exact = model(x), copy.deepcopy(model).double()(x.double())
        a, h, steps = torch.sigmoid(model.decay_proj(x)), torch.zeros(2, 64), []
        for t in range(x.shape[1]):
            h = a[:, t] * h + x[:, t]
            steps.append(h)
    return eager, exact, torch.stack(steps, 1)


def test_ill_conditioned_scan_keeps_the_exact_reference():
    """At scale 100 eager agrees with fp64 on under 99% of the elements, but its worst error is 5e-5 of
    the output's scale: the exact reference stays, and a serial scan (more accurate than eager) passes."""
    eager, exact, serial = _decay_scan_outputs(100.0)
    assert float(torch.isclose(eager.double(), exact, atol=1e-4, rtol=1e-4).double().mean()) < EXACT_AGREEMENT
    assert usable_exact(eager, exact)
    assert not compare_outputs(eager, serial).ok  # the plain rule rejects the better answer
    c = compare_outputs(eager, serial, exact=exact)
    assert c.ok and c.reference == "float64"
    eager, exact, serial = _decay_scan_outputs(1.0)
    assert compare_outputs(eager, serial, exact=exact).ok
    assert not compare_outputs(eager, serial.half().float(), exact=exact).ok  # an fp16 store still fails


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_an_fp8_output_is_compared_to_within_one_step_of_its_format(dtype):
    """Two honest quantizers differ by one step where a value lies on a tie: that passes even under a
    task tolerance meant for its fp32 scales (atol 0, rtol 1e-6); two steps do not."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4096, generator=g) * 2.0 ** torch.randint(-12, 8, (4096,), generator=g)
    ref = x.to(dtype)
    codes = ref.view(torch.uint8)
    finite = (codes & 0x7F) < (0x7D if dtype == torch.float8_e4m3fn else 0x7A)  # room for two steps up
    ref = torch.where(finite, ref.float(), 1.0).to(dtype)
    step = ref.view(torch.uint8)
    one_up, two_up = (step + 1).view(dtype), (step + 2).view(dtype)  # larger in magnitude, either sign
    assert float((one_up.float() - ref.float()).abs().min()) > 0
    assert compare_outputs(ref, one_up, atol=0.0, rtol=1e-6).ok
    assert compare_outputs(ref, two_up, atol=0.0, rtol=1e-6).ok is False
    assert tolerance(torch.float32, 0.0, 1e-6) == (0.0, 1e-6)  # the floor is the fp8 formats' alone


def test_an_fp8_output_is_compared_with_eager_not_with_an_upcast():
    """Where the upcast rounds one large value to the neighbouring e4m3 number, 8 times that 'error'
    (a step of 32) must not become the slack of the whole payload."""
    ref = torch.tensor([300.0, 0.5, 2.0]).to(torch.float8_e4m3fn)
    exact = torch.tensor([320.0, 0.5, 2.0], dtype=torch.float64)  # one step away at the top
    got = torch.tensor([300.0, 0.5, 6.0]).to(torch.float8_e4m3fn)  # three times too large
    assert not usable_exact(ref, exact)
    assert not compare_outputs(ref, got, exact=exact).ok
    assert compare_outputs(ref, ref.clone(), exact=exact).ok


CHUNKING_CASES = [
    "fp32 passes",
    "fails late",
    "non-finite got",
    "nan in both",
    "bf16 passes",
    "fp16 fails",
    "exact within normwise",
    "exact unusable",
    "exact agrees on 99%",
    "exact off late",
    "transposed got",
    "0-d",
    "empty",
]


def _chunking_case(case: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """(eager, got, exact) for `case`: 37 x 53 elements, many slices of 7 that do not align with rows."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(37, 53, generator=g, dtype=torch.float64) * 10
    ref = x.float()
    near = (x + 1e-6 * torch.randn(37, 53, generator=g, dtype=torch.float64)).float()
    if case == "fp32 passes":
        return ref, near, x
    if case == "fails late":
        got = near.clone()
        got[36, 50] += 1.0
        got[30, 7] -= 1.0
        return ref, got, x
    if case == "non-finite got":
        got = near.clone()
        got[33, 1], got[20, 3] = float("inf"), float("nan")
        return ref, got, x
    if case == "nan in both":
        eager = ref.clone()
        eager[::5, 2] = float("nan")
        return eager, eager.clone(), x
    if case in ("bf16 passes", "fp16 fails"):
        half = torch.bfloat16 if case == "bf16 passes" else torch.float16
        wide = x.float()
        got = (wide * 1.001).to(half) if case == "bf16 passes" else (wide * 1.1).to(half)
        return wide.to(half), got, wide
    if case == "exact within normwise":  # agreement well under EXACT_AGREEMENT, eager's error small
        return ref, near, x + 5e-4 * (torch.arange(x.numel()).view_as(x) % 3 == 0)
    if case == "exact unusable":
        got = ref.clone()
        got[25, 40] += 1.0
        return ref, got, x + 1.0
    if case in ("exact agrees on 99%", "exact off late"):  # the last 19 or 20 of 1961 elements off
        off = x.clone()
        off.view(-1)[-19 if case == "exact agrees on 99%" else -20 :] += 1.0
        return ref, near, off
    if case == "transposed got":
        got = near.t().contiguous().t()
        got[12, 9] += 1.0
        assert not got.is_contiguous()
        return ref, got, x
    if case == "0-d":
        return torch.tensor(1.5), torch.tensor(1.6), torch.tensor(1.5, dtype=torch.float64)
    assert case == "empty"
    return torch.empty(0, 5), torch.empty(0, 5), torch.empty(0, 5, dtype=torch.float64)


def _verdicts(ref: torch.Tensor, got: torch.Tensor, exact: torch.Tensor | None) -> tuple:
    return (
        compare_outputs(ref, got, exact=exact),
        compare_outputs(ref, got),
        compare_tensor(ref, got, None, None, "output", exact),
        usable_exact(ref, exact),
    )


def _compare_case(case: str):
    ref, got, exact = _chunking_case(case)
    return compare_outputs(ref, got, exact=exact)


@pytest.mark.parametrize("case", CHUNKING_CASES)
def test_chunked_comparison_equals_the_whole(monkeypatch, case):
    """Slices of 7 elements give the very verdicts, errors and details of one slice over the tensor."""
    ref, got, exact = _chunking_case(case)
    monkeypatch.setattr(correctness, "CHUNK_ELEMENTS", 1 << 30)
    whole = _verdicts(ref, got, exact)
    monkeypatch.setattr(correctness, "CHUNK_ELEMENTS", 7)
    assert _verdicts(ref, got, exact) == whole


def test_chunked_failure_names_the_first_bad_element(monkeypatch):
    """The first bad element and the count come from all slices, in the output's own shape."""
    monkeypatch.setattr(correctness, "CHUNK_ELEMENTS", 7)
    c = _compare_case("fails late")
    assert not c.ok and c.reference == "float64"
    assert "2 of 1961 elements differ; first at index [30, 7]" in c.detail
    c = _compare_case("transposed got")
    assert "1 of 1961 elements differ; first at index [12, 9]" in c.detail
    c = _compare_case("non-finite got")
    assert c.max_abs_err == float("inf") and "non-finite values where the reference has none" in c.detail
    assert "first at index [20, 3]" in c.detail
    c = _compare_case("0-d")
    assert not c.ok and "first at index []" in c.detail


def test_chunking_cases_cover_both_references():
    """The cases above exercise the exact reference, its normwise admission and the eager fallback."""
    used = {case: _compare_case(case) for case in CHUNKING_CASES}
    assert used["fp32 passes"].ok and used["fp32 passes"].reference == "float64"
    assert used["bf16 passes"].ok and used["bf16 passes"].reference == "float32"
    assert not used["fp16 fails"].ok and used["nan in both"].ok
    ref, _, exact = _chunking_case("exact within normwise")
    assert float(torch.isclose(ref.double(), exact).double().mean()) < EXACT_AGREEMENT
    assert used["exact within normwise"].reference == "float64"
    assert not usable_exact(*_chunking_case("exact unusable")[::2])
    assert usable_exact(*_chunking_case("exact agrees on 99%")[::2])
    assert not usable_exact(*_chunking_case("exact off late")[::2])
    assert not used["exact unusable"].ok and used["exact unusable"].reference == "eager"


def test_an_fp8_payload_is_not_judged_below_its_largest_magnitude_times_fp8_normwise():
    """A tensor-core FP8 GEMM's requantized product: elements near zero several subnormal steps off pass,
    as the accumulation's own error reaches there; the same share off at the top does not."""
    ref = torch.tensor([448.0, -0.015625, 0.001953125, 0.0]).to(torch.float8_e4m3fn)
    near_zero_off = torch.tensor([448.0, -0.021484375, 0.013671875, -0.0078125]).to(torch.float8_e4m3fn)
    assert compare_outputs(ref, near_zero_off, atol=0.0, rtol=5e-3).ok
    beyond = torch.tensor([448.0, -0.015625, 0.0625, 0.0]).to(torch.float8_e4m3fn)  # 0.0605 > 448 * 2^-13
    assert not compare_outputs(ref, beyond, atol=0.0, rtol=5e-3).ok
    top_off = torch.tensor([320.0, -0.015625, 0.001953125, 0.0]).to(torch.float8_e4m3fn)  # two steps down
    assert not compare_outputs(ref, top_off, atol=0.0, rtol=5e-3).ok
    small = ref.float() / 64  # a payload that uses little of the range keeps a floor to match
    assert not compare_outputs(small.to(torch.float8_e4m3fn), (small + 0.01).to(torch.float8_e4m3fn)).ok
