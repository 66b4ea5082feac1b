"""Qwen3-MoE model in fp32 (eager attention with QK-norm, 8 experts top-2 with renormalised routing weights, eager expert loop)."""

import torch
import torch.nn as nn
from transformers import Qwen3MoeConfig, Qwen3MoeModel

SOLBENCH = {"level": 4, "tags": ["transformer", "qwen3_moe", "moe", "qk_norm", "routing"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, EXPERTS, TOP_K, MOE_INTERMEDIATE = 4, 512, 16384, 768, 2, 12, 4, 8, 2, 1024


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, experts: int, top_k: int, moe_intermediate: int):
        super().__init__()
        config = Qwen3MoeConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            head_dim=hidden // heads,
            intermediate_size=4 * hidden,
            num_experts=experts,
            num_experts_per_tok=top_k,
            moe_intermediate_size=moe_intermediate,
            norm_topk_prob=True,
            max_position_embeddings=4096,
            attn_implementation="eager",
            experts_implementation="eager",
        )
        self.model = Qwen3MoeModel(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, EXPERTS, TOP_K, MOE_INTERMEDIATE]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 5))], [torch.randint(0, VOCAB, (2, 47))]]
