"""The comparison rule on known numerics: honest summation orders pass against the exact reference,
precision downgrades and wrong answers fail, and an exact reference that computes something else
is not used."""

from __future__ import annotations

import pytest
import torch

from benchmark.correctness import compare_outputs, usable_exact
from benchmark.exact import ExactReference, wide_dtype


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
