"""Small task files for the dataset builder tests."""

from __future__ import annotations

from pathlib import Path

from benchmark.task import Task, load_task

SCALE_TASK = '''"""Scale and shift of a small input."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "tags": ["elementwise"], "dtype": "float32", "difficulty": 1}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2.0 + 1.0


def get_inputs():
    return [torch.randn(16, 8)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(5, 3)]]
'''


def make_task(folder: Path, name: str = "scale", source: str = SCALE_TASK) -> Task:
    path = Path(folder) / "level1" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return load_task(path, root=Path(folder))
