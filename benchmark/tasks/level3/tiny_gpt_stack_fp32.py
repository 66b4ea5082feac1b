"""A tiny GPT: token + position embeddings, four pre-norm causal blocks, final LayerNorm and a tied LM head producing logits."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["layer_stack", "transformer_block", "embedding", "causal", "lm_head"], "dtype": "float32", "difficulty": 3, "atol": 5e-4, "rtol": 5e-4}

BATCH, SEQ, VOCAB, DIM, HEADS, DEPTH, MAX_LEN = 8, 512, 16384, 768, 12, 4, 1024


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)
        nn.init.normal_(self.qkv.weight, std=1.5 / math.sqrt(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(ctx.transpose(1, 2).reshape(b, s, d))
        return x + self.fc_out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int, heads: int, depth: int, max_len: int):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.ln_f = nn.LayerNorm(dim)
        nn.init.normal_(self.tok.weight, std=0.1)
        nn.init.normal_(self.pos.weight, std=0.1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.tok(ids) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.tok.weight.t()


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, DIM, HEADS, DEPTH, MAX_LEN]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 1))], [torch.randint(0, VOCAB, (3, 37))]]
