"""CuSeT: the sensitivity tagger on hand-written kernels, and the weighting rules on hand-built batches."""

from __future__ import annotations

import math

import pytest
import torch

from trainers.cuset import (
    CuSeTParams,
    RunningNormalizer,
    Span,
    compute_token_weights,
    tag_answer,
    tag_sensitive_spans,
    token_mask_from_spans,
    weight_stats,
)

CUDA = r"""
#include <cuda_fp16.h>
__constant__ float scale[4];

__global__ void row_sum(const float* __restrict__ x, float* out, half* y, int rows, int cols) {
    __shared__ float partial[32];
    int row = blockIdx.x;
    int col = threadIdx.x;
    float acc = 0.0f;
    for (int c = col; c < cols; c += blockDim.x) {
        acc += x[row * cols + c];
    }
    acc += __shfl_down_sync(0xffffffff, acc, 16);
    if (col % 32 == 0) partial[col / 32] = acc;
    __syncthreads();
    if (col == 0) {
        atomicAdd(&out[row], acc);
        __threadfence();
        y[row] = __float2half(acc * scale[0]);
    }
    float4 v = reinterpret_cast<const float4*>(x)[col];
}

torch::Tensor launch(torch::Tensor x) {
    if (x.numel() < 16) { return x; }
    row_sum<<<rows, 256, 0, stream>>>(x.data_ptr<float>(), out, y, rows, cols);
    return out;
}
"""

TRITON = """
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask).to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(x + y))


def add(x, y):
    out = torch.zeros(1, device=x.device).to(torch.float32)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    add_kernel[grid](x, y, out, n, BLOCK=1024, num_warps=4)
    return out
"""


def _tagged(text: str, kinds=None) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for span in tag_sensitive_spans(text, kinds):
        found.setdefault(span.kind, set()).add(text[span.start : span.end])
    return found


def test_cuda_tagger_finds_each_construct():
    found = _tagged(CUDA)
    assert "__syncthreads()" in found["barrier"]
    assert "__threadfence()" in found["fence"]
    assert "__shared__ float partial[32];" in found["memory_space"]
    assert "__constant__ float scale[4];" in found["memory_space"]
    assert {"blockIdx.x", "threadIdx.x", "blockDim.x"} <= found["thread_index"]
    assert {"c < cols", "col % 32 == 0", "col == 0"} <= found["bounds_check"]
    assert "atomicAdd(&out[row], acc)" in found["atomic"]
    assert "__shfl_down_sync(0xffffffff, acc, 16)" in found["warp_primitive"]
    assert "<<<rows, 256, 0, stream>>>" in found["launch_config"]
    assert {"row * cols + c", "col / 32"} <= found["index_arithmetic"]
    assert "__float2half(acc * scale[0])" in found["precision_cast"]
    assert "reinterpret_cast<const float4*>" in found["precision_cast"]


def test_cuda_rules_scoped_to_kernel_bodies_skip_host_code():
    found = _tagged(CUDA)
    assert not any("numel" in text for text in found["bounds_check"]), (
        "host-side if is not a kernel bounds check"
    )


def test_triton_tagger_finds_each_construct():
    found = _tagged(TRITON)
    assert "tl.program_id(axis=0)" in found["thread_index"]
    assert "tl.arange(0, BLOCK)" in found["block_range"]
    assert {"mask=mask", "other=0.0", "mask = offsets < n"} <= found["bounds_check"]
    assert {"x_ptr + offsets", "y_ptr + offsets"} <= found["index_arithmetic"]
    assert "tl.atomic_add(out_ptr, tl.sum(x + y))" in found["atomic"]
    assert {"BLOCK: tl.constexpr", "BLOCK=1024", "num_warps=4"} <= found["constexpr"]
    assert ".to(tl.float32)" in found["precision_cast"]
    assert "[grid]" in found["launch_config"]
    assert any(text.startswith("grid = lambda meta") for text in found["launch_config"])
    assert ".to(torch.float32)" not in found["precision_cast"], "host-side .to is not a kernel cast"


def test_kind_filter_and_unknown_kinds():
    assert set(_tagged(CUDA, ["barrier", "atomic"])) == {"barrier", "atomic"}
    with pytest.raises(ValueError, match="unknown sensitivity kinds"):
        tag_sensitive_spans(CUDA, ["barriers"])


def test_tag_answer_looks_only_inside_code_blocks():
    answer = (
        "We call __syncthreads() after the loads.\n```cuda\n__global__ void k() { __syncthreads(); }\n```\n"
    )
    spans = tag_answer(answer)
    assert [answer[s.start : s.end] for s in spans if s.kind == "barrier"] == ["__syncthreads()"]
    assert all(s.start > answer.index("```") for s in spans)
    bare = "__syncwarp();"
    assert [bare[s.start : s.end] for s in tag_answer(bare)] == ["__syncwarp()"]


def test_spans_map_to_overlapping_tokens():
    offsets = [(0, 3), (3, 5), (5, 9), (9, 9), (9, 12)]
    assert token_mask_from_spans(offsets, [Span(4, 6, "barrier")]) == [0, 1, 1, 0, 0]
    assert token_mask_from_spans(offsets, [Span(0, 2, "barrier")], shift=9) == [0, 0, 0, 0, 1]
    assert token_mask_from_spans(offsets, []) == [0] * 5


# ---- weighting rules on hand-built batches: confidences are given directly as probabilities ----

HIGH, MID, LOW = 0.99, 0.7, 0.1
OFF = CuSeTParams(token_masking=False, regions=False, sensitive_upweight=False, sample_reweighting=False)


def _weights(probs, sensitive, params, label=None, **kwargs):
    probs = torch.tensor(probs, dtype=torch.float32)
    if probs.dim() == 1:
        probs = probs[None]
    sensitive = torch.tensor(sensitive, dtype=torch.bool).reshape(probs.shape)
    label = (
        torch.ones_like(sensitive)
        if label is None
        else torch.tensor(label, dtype=torch.bool).reshape(probs.shape)
    )
    return compute_token_weights(probs.log(), label, sensitive, params, **kwargs)


def test_all_parts_off_is_plain_sft():
    tw = _weights([HIGH, LOW, MID, HIGH], [1, 0, 1, 0], OFF, label=[1, 1, 1, 0])
    assert tw.weights.tolist() == [1.0, 1.0, 1.0, 0.0]


def test_masking_drops_confident_plain_tokens_and_upweights_confident_sensitive_ones():
    params = CuSeTParams(regions=False, sample_reweighting=False)
    tw = _weights([HIGH, MID, HIGH, LOW], [0, 0, 1, 0], params)
    assert tw.weights.tolist() == [0.0, 1.0, 1.5, 1.0]
    assert tw.masked.tolist() == [True, False, False, False]
    no_upweight = CuSeTParams(regions=False, sample_reweighting=False, sensitive_upweight=False)
    assert _weights([HIGH, MID, HIGH, LOW], [0, 0, 1, 0], no_upweight).weights.tolist() == [
        0.0,
        1.0,
        1.0,
        1.0,
    ]


def test_regions_bridge_short_gaps_and_keep_their_tokens():
    params = CuSeTParams(sample_reweighting=False, region_gap=2)
    probs = [HIGH, LOW, HIGH, HIGH, LOW, HIGH, HIGH, HIGH, LOW, HIGH]
    tw = _weights(probs, [0] * 10, params)
    # LOW at 1 and 4 join across a 2-token gap; the LOW at 8 is 3 tokens away: its own region.
    assert tw.in_region.tolist() == [0, 1, 1, 1, 1, 0, 0, 0, 1, 0]
    assert int(tw.region_count) == 2
    # Confident tokens inside a region are kept; those outside are masked.
    assert tw.weights.tolist() == [0, 1, 1, 1, 1, 0, 0, 0, 1, 0]
    narrow = _weights(probs, [0] * 10, CuSeTParams(sample_reweighting=False, region_gap=1))
    assert int(narrow.region_count) == 3


def test_region_touching_a_sensitive_span_absorbs_it_whole_and_weighs_as_one_unit():
    params = CuSeTParams(sample_reweighting=False, region_gap=0, region_weight=2.0, sensitive_weight=1.5)
    probs = [HIGH, LOW, HIGH, HIGH, HIGH, HIGH, HIGH, HIGH]
    sensitive = [0, 0, 1, 1, 1, 0, 1, 0]  # span 2..4 abuts the region at 1; span 6 touches nothing
    tw = _weights(probs, sensitive, params)
    assert tw.in_sensitive_region.tolist() == [0, 1, 1, 1, 1, 0, 0, 0]
    assert tw.weights.tolist() == [0.0, 2.0, 2.0, 2.0, 2.0, 0.0, 1.5, 0.0]
    assert int(tw.region_count) == 1 and int(tw.sensitive_region_count) == 1
    stats = weight_stats(tw)
    assert stats["region_size"].item() == 4
    assert stats["sensitive_frac"].item() == pytest.approx(4 / 8)
    assert stats["masked_frac"].item() == pytest.approx(3 / 8)


def test_regions_do_not_cross_samples_or_unlabelled_tokens():
    params = CuSeTParams(sample_reweighting=False, region_gap=3)
    tw = _weights([[HIGH, HIGH, LOW], [LOW, HIGH, HIGH]], [[0] * 3, [0] * 3], params)
    assert int(tw.region_count) == 2
    assert tw.in_region.reshape(2, 3).tolist() == [[0, 0, 1], [1, 0, 0]]
    gapped = _weights([LOW, HIGH, LOW], [0, 0, 0], params, label=[1, 0, 1])
    assert int(gapped.region_count) == 2
    assert gapped.weights.tolist() == [1.0, 0.0, 1.0]


def test_padding_free_segments_split_regions_and_sample_weights():
    params = CuSeTParams(region_gap=3, sample_norm="none")
    probs = torch.tensor([[LOW, LOW, LOW, LOW]])
    segments = torch.tensor([[0, 0, 1, 1]])
    tw = compute_token_weights(
        probs.log(),
        torch.ones(1, 4, dtype=torch.bool),
        torch.tensor([[1, 0, 0, 0]]).bool(),
        params,
        segments,
        2,
    )
    assert int(tw.region_count) == 2
    assert tw.sample_share.tolist() == [1.0, 0.0]
    # Sample 0: region weight 2 x sample weight (1 + 1 x share 1.0); sample 1: plain region, weight 1.
    assert tw.weights.tolist() == [4.0, 4.0, 1.0, 1.0]


def test_sample_weights_grow_with_sensitive_region_share_and_normalize_over_the_batch():
    params = CuSeTParams(token_masking=False, region_gap=0, sample_alpha=1.0, sample_norm="batch")
    probs = [[LOW, LOW, HIGH, HIGH], [LOW, HIGH, HIGH, HIGH]]
    sensitive = [[1, 1, 0, 0], [0, 0, 0, 0]]
    tw = _weights(probs, sensitive, params)
    assert tw.sample_share.tolist() == [0.5, 0.0]
    assert tw.sample_raw.tolist() == [1.5, 1.0]
    assert tw.sample_weight.tolist() == pytest.approx([1.2, 0.8])
    assert tw.weights.reshape(2, 4)[0].tolist() == pytest.approx([2.4, 2.4, 1.2, 1.2])
    running = _weights(probs, sensitive, CuSeTParams(token_masking=False, region_gap=0), normalizer=1.25)
    assert running.sample_weight.tolist() == pytest.approx([1.2, 0.8])
    none = _weights(probs, sensitive, CuSeTParams(token_masking=False, region_gap=0, sample_norm="none"))
    assert none.sample_weight.tolist() == [1.5, 1.0]


def test_running_normalizer_is_frozen_within_a_step_and_bias_corrected():
    norm = RunningNormalizer(momentum=0.9)
    assert norm.value() == 1.0
    norm.observe(torch.tensor([1.5, 1.0]), torch.tensor([True, True]))
    norm.observe(torch.tensor([2.0, 9.0]), torch.tensor([True, False]))  # the unlabelled sample is ignored
    assert norm.value() == 1.0, "no update before the optimizer step ends"
    norm.end_step()
    assert norm.value() == pytest.approx(1.5)
    norm.observe(torch.tensor([1.0]), torch.tensor([True]))
    norm.end_step(reduce=lambda t: t * 2)  # a reduce that sums two identical ranks leaves the mean alone
    expected = (0.9 * 0.1 * 1.5 + 0.1 * 1.0) / (1 - 0.9**2)
    assert norm.value() == pytest.approx(expected)
    assert not math.isnan(norm.value())
