"""MirrorPop on constructed log-prob tensors: the absolute-drift rule against the signed-mean rule."""

from __future__ import annotations

import math

import pytest
import torch

from trainers.mirrorpop import apply_keep, keep_mask, sequence_drift


def test_cancelling_drift_is_masked_by_mirrorpop_and_kept_by_the_signed_mean():
    behaviour = torch.zeros(1, 4)
    current = torch.tensor([[0.5, -0.5, 0.5, -0.5]])  # every token moved by 0.5, the moves cancel
    mask = torch.ones(1, 4)
    mirror = keep_mask(current, behaviour, mask, delta=0.1, rule="abs")
    signed = keep_mask(current, behaviour, mask, delta=0.1, rule="signed")
    assert mirror.drift.item() == pytest.approx(0.5)
    assert signed.drift.item() == pytest.approx(0.0)
    assert mirror.keep.tolist() == [False]
    assert signed.keep.tolist() == [True]


def test_keep_iff_mean_absolute_log_ratio_is_at_most_delta():
    behaviour = torch.log(torch.full((3, 3), 0.5))
    current = behaviour + torch.tensor(
        [
            [0.05, -0.05, 0.0],  # mean |log rho| = 0.0333: kept
            [0.3, 0.3, 0.3],  # 0.3: masked
            [0.09, -0.09, 0.09],  # 0.09, just under delta: kept
        ]
    )
    result = keep_mask(current, behaviour, torch.ones(3, 3), delta=0.1)
    assert result.drift.tolist() == pytest.approx([0.1 / 3, 0.3, 0.09], abs=1e-6)
    assert result.keep.tolist() == [True, False, True]
    assert result.masked_fraction == pytest.approx(1 / 3)


def test_padding_and_unscored_tokens_are_left_out_of_the_mean():
    behaviour = torch.tensor([[0.0, 0.0, float("nan"), 0.0]])
    current = torch.tensor([[0.05, -0.05, 9.0, 9.0]])
    mask = torch.tensor([[1, 1, 1, 0]])  # last token is padding; the third has no behaviour log-prob
    drift, has_tokens = sequence_drift(current, behaviour, mask)
    assert drift.item() == pytest.approx(0.05)
    assert has_tokens.tolist() == [True]


def test_a_sequence_without_tokens_is_kept_and_not_counted():
    result = keep_mask(torch.ones(2, 3), torch.zeros(2, 3), torch.tensor([[0, 0, 0], [1, 1, 1]]), delta=0.5)
    assert result.keep.tolist() == [True, False]
    assert result.masked_fraction == 1.0  # one masked out of the one sequence that has tokens


def test_masked_rows_get_no_gradient_and_kept_rows_do():
    logits = torch.randn(2, 5, requires_grad=True)
    logps = torch.log_softmax(logits, -1)
    keep = torch.tensor([True, False])
    (apply_keep(logps, keep) * 2.0).sum().backward()
    assert logits.grad[0].abs().sum() > 0
    assert logits.grad[1].abs().sum() == 0


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="rule"):
        keep_mask(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2), 0.1, rule="median")
    with pytest.raises(ValueError, match="delta"):
        keep_mask(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2), 0.0)
    with pytest.raises(ValueError, match="shape"):
        keep_mask(torch.zeros(1, 2), torch.zeros(1, 3), torch.ones(1, 2), 0.1)
    assert not math.isnan(keep_mask(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2), 0.1).drift.item())
