"""ResNetModel in bf16 (bottleneck layers, inference-mode batch norm): 224x224 images to the final 7x7 feature map."""

import torch
import torch.nn as nn
from transformers import ResNetConfig, ResNetModel

SOLBENCH = {"level": 4, "tags": ["convnet", "resnet", "vision", "batchnorm"], "dtype": "bfloat16", "difficulty": 3, "atol": 0.1, "rtol": 0.1}

BATCH, IMAGE = 64, 224


class Model(nn.Module):
    def __init__(self, hidden_sizes: list[int], depths: list[int]):
        super().__init__()
        config = ResNetConfig(embedding_size=64, hidden_sizes=hidden_sizes, depths=depths, layer_type="bottleneck")
        self.model = ResNetModel(config).to(torch.bfloat16).eval()

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values).last_hidden_state


def get_inputs():
    return [torch.randn(BATCH, 3, IMAGE, IMAGE, dtype=torch.bfloat16)]


def get_init_inputs():
    return [[256, 512, 1024, 2048], [2, 2, 2, 2]]


def get_alt_inputs():
    return [[torch.randn(1, 3, 64, 64, dtype=torch.bfloat16)], [torch.randn(2, 3, 96, 128, dtype=torch.bfloat16)]]
