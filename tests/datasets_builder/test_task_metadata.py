"""Stage 2: tensor metadata of a task and the prompt that carries it."""

from __future__ import annotations

from benchmark.evaluate.device_profile import DeviceProfile
from benchmark.task import load_task
from datasets_builder.metadata import TaskMetadata, describe
from datasets_builder.prompting import ANSWER_MARKER, PromptOptions, answer, first_turn, with_metadata

TASK = '''"""Linear layer on a transposed input, then a row maximum (two outputs)."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 2, "tags": ["gemm"], "dtype": "float32", "difficulty": 1}


class Model(nn.Module):
    def __init__(self, d: int, h: int):
        super().__init__()
        self.fc = nn.Linear(d, h)
        self.register_buffer("shift", torch.ones(h))

    def forward(self, x: torch.Tensor):
        y = self.fc(x) + self.shift
        return y, y.amax(dim=-1)


def get_inputs():
    return [torch.randn(8, 6).t()]


def get_init_inputs():
    return [8, 4]


def get_alt_inputs():
    return [[torch.randn(8, 3).t()]]
'''
PROFILE = DeviceProfile(
    gpu="Test GPU",
    bandwidth=1e12,
    matmul={"float32": 1e12, "tf32": 2e12, "bfloat16": 4e12, "float16": 4e12},
    measured="2026-01-01",
    method="test",
)


def test_describe_shapes_strides_work_and_floor(tmp_path):
    path = tmp_path / "t.py"
    path.write_text(TASK)
    meta = describe(load_task(path), profile=PROFILE)
    by_role = {(t.role, t.name): t for t in meta.tensors}
    x = by_role[("input", "x")]
    assert x.shape == (6, 8) and x.stride == (1, 6) and x.dtype == "float32"
    assert by_role[("parameter", "fc.weight")].shape == (4, 8)
    assert ("buffer", "shift") in by_role
    assert by_role[("output", "output[0]")].shape == (6, 4) and by_role[("output", "output[1]")].shape == (6,)
    assert meta.alt_input_shapes == (((3, 8),),)
    assert meta.flops == 2 * 6 * 8 * 4
    assert meta.sol_ms is not None and meta.sol_ms > 0 and meta.gpu == "Test GPU"
    assert TaskMetadata.from_dict(meta.to_dict()) == meta
    text = meta.render()
    assert "input x: shape [6, 8], float32, stride [1, 6]" in text
    assert "other input shapes: [3, 8]" in text and "speed-of-light floor on Test GPU" in text


def test_prompt_carries_metadata_before_the_answer_instructions(tmp_path):
    path = tmp_path / "t.py"
    path.write_text(TASK)
    task = load_task(path)
    meta = describe(task)
    options = PromptOptions(reasoning=True)
    messages = first_turn(options.builder(), task, meta, options)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert user.index("Tensor metadata") < user.index(ANSWER_MARKER)
    assert "Semantic decomposition" in user and "Triton" in user and TASK.strip()[:40] in user
    plain = first_turn(options.builder(), task, meta, PromptOptions(metadata=False))
    assert "Tensor metadata" not in plain[1]["content"]
    assert with_metadata("no marker here", meta).endswith(meta.render() + "\n")
    assert answer("x = 1\n", "Fused kernel.") == "Fused kernel.\n\n```python\nx = 1\n```"
