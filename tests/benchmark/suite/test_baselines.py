"""Production baselines: declaring and discovering them, dropping one that disagrees, and the CPU
manifest pass recording a baseline's speedup over eager."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from benchmark.evaluate.program import TaskProgram
from benchmark.evaluate.timing import Timer
from benchmark.suite import baselines, load_suite
from benchmark.suite.cli import main
from benchmark.suite.manifest import load_manifest
from benchmark.suite.validate import validation_timing
from benchmark.task import import_file

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tasks"

TASK = '''"""Row softmax, with production baselines declared beside it."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(64, 256) * 3]


def get_init_inputs():
    return []


def get_baselines():
    def by_exp(model):
        def forward(x):
            e = torch.exp(x - x.amax(dim=-1, keepdim=True))
            return e / e.sum(dim=-1, keepdim=True)

        return forward

    def wrong(model):
        return lambda x: torch.softmax(x, dim=0)

    def missing(model):
        import solbench_no_such_library  # noqa: F401

    return {"by_exp": by_exp, "wrong": wrong, "missing": missing}
'''


@pytest.fixture
def task_module(tmp_path):
    path = tmp_path / "softmax_with_baselines.py"
    path.write_text(TASK)
    return import_file(path, "solbench_test_baselines_task")


def test_discover_merges_generic_registry_and_task_file(task_module):
    extra = {"softmax_with_baselines": {"from_registry": lambda m: m}}
    on_cpu = baselines.discover("softmax_with_baselines", task_module, torch.device("cpu"), extra)
    assert set(on_cpu) == {"from_registry", "by_exp", "wrong", "missing"}  # max-autotune: CUDA only
    on_gpu = baselines.discover("softmax_with_baselines", task_module, torch.device("cuda"), extra)
    assert "compile_max_autotune" in on_gpu


def test_builtin_registry_names_real_tasks():
    suite = load_suite()
    names = {t.name for t in suite.tasks}
    assert set(baselines.registry()) <= names


def test_measure_drops_a_disagreeing_baseline_and_times_the_rest(task_module):
    program = TaskProgram(task_module, torch.device("cpu"))
    model = program.build(task_module.Model, 0)
    timing = validation_timing()
    report = baselines.measure_baselines(
        "softmax_with_baselines", program, model, 0, None, None, Timer("cpu", timing), extra={}
    )
    assert set(report.timed) == {"by_exp"}
    assert report.dropped["wrong"].startswith("disagrees with the reference")
    assert report.dropped["missing"].startswith("skipped: ")
    t = report.timed["by_exp"]
    assert t.ms > 0 and t.speedup > 0
    assert report.best == "by_exp"


def test_cpu_manifest_pass_records_baselines(tmp_path):
    root = tmp_path / "suite"
    shutil.copytree(FIXTURES / "good", root)
    (root / "level1" / "softmax_with_baselines.py").write_text(TASK)
    manifest = tmp_path / "manifest.json"
    args = ["manifest", "--suite", str(root), "--device", "cpu", "--timing-seconds", "0.05", "--quiet"]
    assert main([*args, "--manifest", str(manifest)]) == 0
    rec = load_manifest(manifest).tasks["level1/softmax_with_baselines"].gpus["cpu"]
    assert set(rec.baselines) == {"by_exp"} and rec.best_baseline == "by_exp"
    assert rec.baselines["by_exp"].speedup > 0 and rec.baselines["by_exp"].ms > 0
    assert set(rec.baselines_dropped) == {"wrong", "missing"}
    raw = json.loads(manifest.read_text())["tasks"]["level1/softmax_with_baselines"]["gpus"]["cpu"]
    assert set(raw["baselines"]["by_exp"]) == {"ms", "speedup", "spread"}
    # a pass with --no-baselines keeps what the last one measured
    assert main([*args, "--manifest", str(manifest), "--no-baselines"]) == 0
    assert (
        load_manifest(manifest).tasks["level1/softmax_with_baselines"].gpus["cpu"].best_baseline == "by_exp"
    )


def test_manifest_without_baselines_loads(tmp_path):
    """Manifests written before baselines were measured load, with no baseline for any task."""
    builtin = load_manifest()
    data = json.loads(json.dumps(builtin.to_dict()))
    for entry in data["tasks"].values():
        for g in entry["gpus"].values():
            for key in ("baselines", "baselines_dropped", "best_baseline"):
                g.pop(key, None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    old = load_manifest(path)
    assert all(g.best is None for e in old.tasks.values() for g in e.gpus.values())
