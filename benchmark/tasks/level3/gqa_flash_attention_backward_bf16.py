"""FlashAttention's backward for causal grouped-query attention (16 query heads sharing 4 key/value
heads, head dim 128, 2 x 2048 tokens), in bf16: dQ, dK and dV from what the forward kept, Q, K, V,
the output O and the fp32 log-sum-exp of each score row, and the output's gradient dO.
P = exp(Q K^T / sqrt(d) - lse) needs no softmax pass, D = rowsum(dO * O), dS = P * (dP - D) /
sqrt(d); dK and dV sum over the four query heads of a group. Query rows go 128 at a time against
the keys up to their block, so the reference's matrix work (the task's floor) skips the masked
triangle as a causal kernel does.

Tolerance: eager rounds the scores, P and dS to bf16 before their GEMMs (as FlashAttention's own
kernels do), so a kernel that keeps more precision is right but differs from it by a few percent."""

import math

import torch
import torch.nn as nn

SOLBENCH = {
    "level": 3,
    "tags": ["backward", "attention", "grouped_query", "causal", "flash"],
    "dtype": "bfloat16",
    "difficulty": 3,
    "atol": 5e-2,
    "rtol": 5e-2,
}

B, HQ, HKV, S, D, BLOCK = 2, 16, 4, 2048, 128, 128


class Model(nn.Module):
    def __init__(self, block: int):
        super().__init__()
        self.block = block

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        o: torch.Tensor,
        lse: torch.Tensor,
        do: torch.Tensor,
    ) -> tuple[torch.Tensor, ...]:
        b, hq, s, d = q.shape
        hkv, scale = k.shape[1], 1.0 / math.sqrt(d)
        wide = torch.promote_types(q.dtype, torch.float32)
        k_all, v_all = k.repeat_interleave(hq // hkv, dim=1), v.repeat_interleave(hq // hkv, dim=1)
        delta = (do.to(wide) * o.to(wide)).sum(dim=-1, keepdim=True)  # [B, HQ, S, 1]
        dq = torch.empty_like(q)
        dk = torch.zeros(b, hq, s, d, dtype=wide, device=q.device)
        dv = torch.zeros(b, hq, s, d, dtype=wide, device=q.device)
        for start in range(0, s, self.block):
            end = min(start + self.block, s)
            qb, dob, kb, vb = (
                q[..., start:end, :],
                do[..., start:end, :],
                k_all[..., :end, :],
                v_all[..., :end, :],
            )
            future = torch.ones(end - start, end, dtype=torch.bool, device=q.device).triu(start + 1)
            scores = (qb @ kb.transpose(-2, -1)).to(wide) * scale
            p = torch.exp(scores - lse[..., start:end, None].to(wide)).masked_fill(future, 0.0)
            dv[..., :end, :] += p.to(q.dtype).transpose(-2, -1) @ dob
            dp = (dob @ vb.transpose(-2, -1)).to(wide)
            ds = (p * (dp - delta[..., start:end, :]) * scale).to(q.dtype)
            dq[..., start:end, :] = ds @ kb
            dk[..., :end, :] += ds.transpose(-2, -1) @ qb
        group = (b, hkv, hq // hkv, s, d)
        return dq, dk.view(group).sum(2).to(k.dtype), dv.view(group).sum(2).to(v.dtype)


def _inputs(b, hq, hkv, s, d):
    """Q, K, V, dO, and the forward's O and log-sum-exp computed from them in fp32."""
    q = torch.randn(b, hq, s, d, dtype=torch.bfloat16) * 2
    k, v = (torch.randn(b, hkv, s, d, dtype=torch.bfloat16) for _ in range(2))
    k_all, v_all = (t.float().repeat_interleave(hq // hkv, dim=1) for t in (k, v))
    o = torch.empty(b, hq, s, d)
    lse = torch.empty(b, hq, s)
    for start in range(0, s, 256):
        end = min(start + 256, s)
        scores = (q[..., start:end, :].float() @ k_all[..., :end, :].transpose(-2, -1)) / math.sqrt(d)
        future = torch.ones(end - start, end, dtype=torch.bool, device=q.device).triu(start + 1)
        scores = scores.masked_fill(future, float("-inf"))
        lse[..., start:end] = torch.logsumexp(scores, dim=-1)
        o[..., start:end, :] = torch.softmax(scores, dim=-1) @ v_all[..., :end, :]
    return [q, k, v, o.to(torch.bfloat16), lse, torch.randn(b, hq, s, d, dtype=torch.bfloat16)]


def get_inputs():
    return _inputs(B, HQ, HKV, S, D)


def get_init_inputs():
    return [BLOCK]


def get_alt_inputs():
    return [_inputs(1, 4, 1, 19, D), _inputs(2, 8, 2, 333, D)]
