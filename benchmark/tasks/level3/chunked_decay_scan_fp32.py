"""Per-channel decaying cumulative sum computed chunk-wise: log-space cumsum builds an intra-chunk decay matrix, a short loop carries state across chunks.

Mathematically h_t = a_t * h_{t-1} + x_t; the chunked form trades the serial loop for small matmuls (SSD-style).
"""

import torch
import torch.nn as nn

SOLBENCH = {"level": 3, "tags": ["ssm", "scan", "cumsum", "chunked"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, DIM, CHUNK = 4, 2048, 256, 64


class Model(nn.Module):
    def __init__(self, dim: int, chunk: int):
        super().__init__()
        self.chunk = chunk
        self.decay_proj = nn.Linear(dim, dim)
        with torch.no_grad():
            self.decay_proj.bias.uniform_(1.0, 4.0)  # decays mostly close to 1: long memory

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape  # s must be a multiple of the chunk length
        n, c = s // self.chunk, self.chunk
        log_a = nn.functional.logsigmoid(self.decay_proj(x))  # log a_t in (-inf, 0)
        log_a = log_a.view(b, n, c, d).permute(0, 3, 1, 2)  # (b, d, n, c)
        xs = x.view(b, n, c, d).permute(0, 3, 1, 2)
        cum = log_a.cumsum(dim=-1)  # sum_{r<=t} log a_r within the chunk
        diff = cum[..., :, None] - cum[..., None, :]  # decay from step j to step i
        causal = torch.ones(c, c, dtype=torch.bool, device=x.device).tril()
        weights = torch.exp(diff.masked_fill(~causal, float("-inf")))  # (b, d, n, c, c)
        intra = (weights @ xs[..., None]).squeeze(-1)  # chunk-local scan
        carry_decay = torch.exp(cum)  # decay from the chunk start to each step
        h = torch.zeros(b, d, device=x.device, dtype=x.dtype)
        chunks = []
        for k in range(n):
            y = intra[:, :, k] + carry_decay[:, :, k] * h[..., None]
            h = y[..., -1]
            chunks.append(y)
        return torch.stack(chunks, dim=2).reshape(b, d, s).transpose(1, 2)


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, CHUNK]


def get_alt_inputs():
    return [[torch.randn(1, CHUNK, DIM)], [torch.randn(3, 5 * CHUNK, DIM)]]
