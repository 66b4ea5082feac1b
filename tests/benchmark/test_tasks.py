"""The level-4 tasks are built from transformers' models, a core dependency: each must build with the
installed transformers (`make floors` runs this against transformers' floor). The models are built on
the meta device, so the check takes seconds; it covers the classes and config arguments, not a forward."""

import pytest
import torch

from benchmark.suite import load_suite

LEVEL4 = [t for t in load_suite().tasks if t.level == 4]


def test_level4_is_found():
    assert LEVEL4, "no level-4 task in the suite"


@pytest.mark.parametrize("task", LEVEL4, ids=lambda t: t.name)
def test_level4_task_builds_with_installed_transformers(task):
    module = task.load_module()
    with torch.device("meta"):
        model = module.Model(*module.get_init_inputs())
        inputs = module.get_inputs()
    assert sum(p.numel() for p in model.parameters()) > 0
    assert any(isinstance(x, torch.Tensor) for x in inputs)
