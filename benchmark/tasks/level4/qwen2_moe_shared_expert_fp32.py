"""Qwen2-MoE model in fp32 (fp32 keeps routing stable): 16 fine-grained experts, top-4 routing and a sigmoid-gated shared expert per layer."""

import torch
import torch.nn as nn
from transformers import Qwen2MoeConfig, Qwen2MoeModel

SOLBENCH = {"level": 4, "tags": ["transformer", "qwen2_moe", "moe", "shared_expert", "routing"], "dtype": "float32", "difficulty": 3}

BATCH, SEQ, VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS = 4, 512, 32000, 1024, 2, 16, 4
EXPERTS, TOP_K, MOE_INTERMEDIATE, SHARED_INTERMEDIATE = 16, 4, 512, 2048


class Model(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, experts: int, top_k: int, moe_intermediate: int, shared_intermediate: int):
        super().__init__()
        config = Qwen2MoeConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            intermediate_size=shared_intermediate,
            num_experts=experts,
            num_experts_per_tok=top_k,
            moe_intermediate_size=moe_intermediate,
            shared_expert_intermediate_size=shared_intermediate,
            max_position_embeddings=4096,
            attn_implementation="sdpa",
            experts_implementation="eager",
        )
        self.model = Qwen2MoeModel(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, EXPERTS, TOP_K, MOE_INTERMEDIATE, SHARED_INTERMEDIATE]


def get_alt_inputs():
    return [[torch.randint(0, VOCAB, (1, 2))], [torch.randint(0, VOCAB, (3, 33))]]
