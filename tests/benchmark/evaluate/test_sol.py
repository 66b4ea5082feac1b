"""Speed-of-light arithmetic on cases computed by hand, and device profiles."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
import torch.nn as nn

from benchmark.evaluate import sol
from benchmark.evaluate.device_profile import (
    DeviceProfile,
    load_profile,
    load_profiles,
    measure_profile,
    save_profile,
)
from benchmark.host import slugify


def profile(bandwidth=1e12, fp32=1e13, bf16=1e14, fp16=2e14) -> DeviceProfile:
    return DeviceProfile(
        gpu="Test GPU 9000",
        bandwidth=bandwidth,
        matmul={"float32": fp32, "tf32": 5e13, "bfloat16": bf16, "float16": fp16},
        measured="2026-01-01",
        method="by hand",
    )


class MatMul(nn.Module):
    def forward(self, a, b):
        return a @ b


class AddScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(64))

    def forward(self, x, y):
        return (x + y) * self.scale


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8, bias=False)
        self.b = self.a  # the same weight used twice is read once

    def forward(self, x):
        return self.b(self.a(x))


def test_matmul_counts_by_hand():
    m, k, n = 64, 32, 16
    counts, out = sol.count(MatMul(), [torch.randn(m, k), torch.randn(k, n)])
    assert out.shape == (m, n)
    assert counts.flops == 2 * m * k * n
    assert counts.bytes == (m * k + k * n + m * n) * 4


def test_elementwise_counts_by_hand_in_bf16():
    x, y = torch.randn(128, 64, dtype=torch.bfloat16), torch.randn(128, 64, dtype=torch.bfloat16)
    model = AddScale().to(torch.bfloat16)
    counts, _ = sol.count(model, [x, y])
    assert counts.flops == 0  # no matrix work
    assert counts.bytes == (2 * 128 * 64 + 64 + 128 * 64) * 2


def test_same_tensor_and_tied_weights_are_read_once():
    x = torch.randn(4, 8)
    counts, _ = sol.count(Tied(), [x])
    assert counts.flops == 2 * (2 * 4 * 8 * 8)
    assert counts.bytes == (4 * 8 + 8 * 8 + 4 * 8) * 4
    assert sol.least_bytes([x, x], None, x) == 2 * x.nbytes


def test_floor_is_the_larger_of_memory_and_compute_time():
    p = profile()
    memory_bound = sol.SolCounts(flops=0, bytes=10**9)
    assert sol.floor_ms(memory_bound, p, "float32") == pytest.approx(1.0)  # 1 GB at 1 TB/s
    m = k = n = 4096
    compute = sol.SolCounts(flops=2 * m * k * n, bytes=3 * m * n * 2)
    assert sol.floor_ms(compute, p, "bfloat16") == pytest.approx(2 * 4096**3 / 1e14 * 1e3)
    assert sol.floor_ms(compute, p, "float16") == pytest.approx(2 * 4096**3 / 2e14 * 1e3)
    # fp32 tasks run with TF32 off, so their floor uses the fp32 rate, not the TF32 one
    assert sol.floor_ms(compute, p, "float32") == pytest.approx(2 * 4096**3 / 1e13 * 1e3)


def test_profile_round_trip_and_lookup(tmp_path):
    p = profile()
    assert slugify("NVIDIA H200") == "nvidia-h200"
    assert p.slug == "test-gpu-9000"
    path = save_profile(p, tmp_path)
    assert path.name == "test-gpu-9000.json"
    assert load_profile("Test GPU 9000", tmp_path) == p
    assert load_profile("Other GPU", tmp_path) is None
    assert load_profiles(tmp_path) == {"test-gpu-9000": p}
    broken = json.loads(path.read_text())
    del broken["matmul"]["bfloat16"]
    with pytest.raises(ValueError, match="bfloat16"):
        DeviceProfile.from_dict(broken)


def test_measure_profile_runs_on_cpu_with_tiny_sizes():
    p = measure_profile("cpu", copy_bytes=2**16, sizes=(32,), fp32_sizes=(32,), repeats=1)
    assert p.gpu == "cpu"
    assert p.bandwidth > 0 and all(p.matmul[k] > 0 for k in ("float32", "tf32", "bfloat16", "float16"))


@pytest.mark.gpu
def test_measure_profile_on_the_gpu():
    p = measure_profile("cuda", copy_bytes=2**26, sizes=(1024,), fp32_sizes=(1024,), repeats=2)
    assert p.gpu == torch.cuda.get_device_name()
    assert p.bandwidth > 1e10 and p.matmul["bfloat16"] > p.matmul["float32"]


def test_a_flop_counter_failure_leaves_the_memory_floor(monkeypatch):
    """torch's SDPA FLOP formula asserts on grouped-query shapes (seen on five level-4 tasks on the H200)."""
    from torch.utils import flop_counter

    class Counter(flop_counter.FlopCounterMode):
        def __enter__(self):
            raise AssertionError("sdpa_flop_count: query/key/value shapes are incompatible")

    monkeypatch.setattr(sol, "FlopCounterMode", Counter)
    x = torch.randn(8, 16)
    counts, out = sol.count(torch.nn.Identity(), [x])
    assert counts.flops == 0 and counts.bytes == 2 * x.numel() * 4 and torch.equal(out, x)


class TakeRows(nn.Module):
    def forward(self, x, index):
        return x[index]


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(100, 8)

    def forward(self, ids):
        return self.table(ids)


def test_an_index_counts_only_the_rows_it_reads():
    """Inductor's gather ran below the floor that counted the whole gathered-from tensor (H200)."""
    x, index = torch.randn(10, 4), torch.tensor([1, 3, 3, 7])
    counts, out = sol.count(TakeRows(), [x, index])
    assert counts.bytes == 3 * 4 * 4 + index.nbytes + out.nbytes  # rows 1, 3, 7; row 3 read once
    counts, out = sol.count(Embed(), [torch.tensor([[2, 5], [5, 9]])])
    assert counts.bytes == 3 * 8 * 4 + 4 * 8 + out.nbytes  # three table rows, the ids, the output


def test_a_mask_counts_what_it_keeps_and_plain_inputs_count_whole():
    x, keep = torch.randn(6, 5), torch.zeros(6, 5, dtype=torch.bool)
    keep[:2] = True
    counts, out = sol.count(MaskFill(), [x, keep])
    assert counts.bytes == 2 * 5 * 4 + keep.nbytes + out.nbytes
    relu_x = torch.randn(6, 5)  # a zero slope does not make a plain input partly read
    assert sol.count(nn.ReLU(), [relu_x])[0].bytes == 2 * relu_x.nbytes
    assert sol.read_bytes(nn.ReLU(), [relu_x]) == {}


class MaskFill(nn.Module):
    def forward(self, x, keep):
        return x.masked_fill(~keep, 0.0)


class ArgmaxRows(nn.Module):
    def forward(self, x, index):
        return x[index].argmax(dim=-1)


def test_an_output_without_a_gradient_counts_every_byte():
    x, index = torch.randn(10, 4), torch.tensor([0, 1])
    assert sol.read_bytes(ArgmaxRows(), [x, index]) == {}
    counts, out = sol.count(ArgmaxRows(), [x, index])
    assert counts.bytes == x.nbytes + index.nbytes + out.nbytes


def test_fp8_tasks_count_their_matrix_work_at_the_fp8_rate():
    with_fp8 = dataclasses.replace(profile(), matmul={**profile().matmul, "fp8": 8e14})
    for dtype in ("float8_e4m3fn", "float8_e5m2"):
        assert with_fp8.matmul_rate(dtype) == 8e14
        assert profile().matmul_rate(dtype) == 2 * 2e14  # none measured: twice the 16-bit rate
    assert with_fp8.matmul_rate("bfloat16") == 1e14 and with_fp8.matmul_rate("float32") == 1e13
    counts = sol.SolCounts(flops=8 * 10**11, bytes=0)
    assert sol.floor_ms(counts, with_fp8, "float8_e4m3fn") == pytest.approx(1.0)
    assert DeviceProfile.from_dict(with_fp8.to_dict()) == with_fp8  # fp8 is optional, and kept
    assert load_profile("NVIDIA H200").matmul["fp8"] > load_profile("NVIDIA H200").matmul["bfloat16"]


def test_measure_profile_has_no_fp8_rate_without_fp8_tensor_cores():
    p = measure_profile("cpu", copy_bytes=2**16, sizes=(32,), fp32_sizes=(32,), repeats=1)
    assert "fp8" not in p.matmul and "fp8" not in p.method


@pytest.mark.gpu
def test_measure_profile_measures_fp8_where_the_gpu_has_it():
    p = measure_profile("cuda", copy_bytes=2**26, sizes=(4096,), fp32_sizes=(1024,), repeats=2)
    if torch.cuda.get_device_capability() < (8, 9):
        assert "fp8" not in p.matmul
    else:
        assert p.matmul["fp8"] > p.matmul["bfloat16"] and "torch._scaled_mm" in p.method


@pytest.mark.parametrize(
    ("sq", "sk", "top_left", "bottom_right"),
    [(4, 4, 10, 10), (2, 5, 3, 9), (5, 2, 9, 3), (1, 1, 1, 1), (3, 0, 0, 0)],
)
def test_causal_pairs_by_hand(sq, sk, top_left, bottom_right):
    # (2, 5), top-left: rows see 1 and 2 keys; bottom-right: 4 and 5. (5, 2), bottom-right: the
    # first three rows see no key, the last two 1 and 2.
    assert sol.causal_pairs(sq, sk) == top_left
    assert sol.causal_pairs(sq, sk, bottom_right=True) == bottom_right


def _attention_flops(op: str, sq: int, sk: int, causal: bool, backward: bool = False) -> dict[str, int]:
    """FLOPs of one fused attention op (its forward, or its backward alone) on meta tensors, as
    sol.count's counter counts them."""
    b, h, d = 2, 4, 64
    q = torch.randn(b, h, sq, d, device="meta", requires_grad=True)
    k, v = (torch.randn(b, h, sk, d, device="meta", requires_grad=True) for _ in range(2))
    args = {
        "flash": (0.0, causal),
        "efficient": (None, backward, 0.0, causal),
        "cudnn": (None, backward, 0.0, causal, False),
    }[op]
    counter = sol.FlopCounterMode(display=False, custom_mapping=sol.CAUSAL_FORMULAS)
    with counter:
        out = getattr(torch.ops.aten, f"_scaled_dot_product_{op}_attention")(q, k, v, *args)[0]
        if backward:
            torch.autograd.grad(out.sum(), (q, k, v))
    return {str(packet).rsplit(".", 1)[-1]: n for packet, n in counter.get_flop_counts()["Global"].items()}


@pytest.mark.parametrize("op", ["flash", "efficient", "cudnn"])
def test_causal_attention_counts_the_pairs_it_keeps(op):
    """torch's formula counts is_causal attention dense; sol counts S(S+1)/2 of the S^2 pairs,
    in the forward and in the backward."""
    s, dense = 128, 2 * (2 * 2 * 4 * 128 * 128 * 64)  # QK^T and PV: 2 * (2 b h s s d)
    name = f"_scaled_dot_product_{op}_attention"
    assert _attention_flops(op, s, s, causal=False) == {name: dense}
    assert _attention_flops(op, s, s, causal=True) == {name: dense * (s + 1) // (2 * s)}
    backward = _attention_flops(op, s, s, causal=True, backward=True)
    assert backward[f"{name}_backward"] == 5 * dense // 2 * (s + 1) // (2 * s)  # five matmuls
    assert _attention_flops(op, s, s, causal=False, backward=True)[f"{name}_backward"] == 5 * dense // 2


def test_causal_attention_of_unequal_lengths_follows_each_ops_alignment():
    """is_causal is aligned to the top-left corner (F.scaled_dot_product_attention's meaning); the
    flash op's own flag to the bottom-right (torch.nn.attention.bias.causal_lower_right)."""
    sq, sk = 64, 192
    dense = 2 * (2 * 2 * 4 * sq * sk * 64)
    (efficient,) = _attention_flops("efficient", sq, sk, causal=True).values()
    assert efficient == dense * (sq * (sq + 1) // 2) // (sq * sk)
    (flash,) = _attention_flops("flash", sq, sk, causal=True).values()
    assert flash == dense * ((sk - sq) * sq + sq * (sq + 1) // 2) // (sq * sk)


class CausalSdpa(nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])  # flash, and efficient attention
def test_causal_sdpa_on_the_gpu_counts_the_pairs_it_keeps(dtype):
    """Whichever fused op F.scaled_dot_product_attention picks on the device, the count is causal."""
    b, h, s, d = 2, 8, 512, 64
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype) for _ in range(3))
    counts, _ = sol.count(CausalSdpa(), [q, k, v])
    assert counts.flops == 2 * (2 * b * h * s * s * d) * (s + 1) // (2 * s)
