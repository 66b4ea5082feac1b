"""Shared by the tests of scripts/: a stand-in for a KernelBench checkout (its files are never in this
repository). Its package imports an LLM client that is not installed, as KernelBench's does, and its
evaluator records what it was called with."""

from __future__ import annotations

from pathlib import Path

import pytest

STAND_IN = {
    "src/kernelbench/__init__.py": "from . import utils\n",
    "src/kernelbench/utils.py": "from litellm import completion  # not installed: the driver's placeholder\n",
    "src/kernelbench/timing.py": "",
    "src/kernelbench/dataset.py": "",
    "src/kernelbench/eval.py": """import json, os
import torch


class KernelExecResult:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def get_torch_dtype_from_string(precision):
    return {"fp32": torch.float32}[precision]


def eval_kernel_against_ref(original_model_src, custom_model_src, **kw):
    os.makedirs(kw["build_dir"], exist_ok=True)
    seen = os.path.join(kw["build_dir"], "built")
    cached = os.path.exists(seen)
    open(seen, "w").close()
    kw = {k: str(v) for k, v in kw.items()}
    wrong = "2.0f;" in custom_model_src  # the tiny mix's wrong C++ candidate forgets the shift
    return KernelExecResult(compiled=True, correctness=not wrong, runtime=12.5, ref_runtime=25.0,
                            metadata={"called_with": kw, "cached": cached, "pid": os.getpid(),
                                      "task_has_model": "class Model" in original_model_src})
""",
}


@pytest.fixture
def kernelbench_stand_in(tmp_path) -> Path:
    """A checkout shaped like KernelBench's, at a fake commit."""
    root = tmp_path / "kb"
    for rel, text in STAND_IN.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "COMMIT").write_text("0123456789abcdef\n")
    return root
