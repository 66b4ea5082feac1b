"""The manifest: merging a validation run, saving and loading it, and the harness's SOL lookup."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from benchmark.evaluate.device_profile import DeviceProfile, save_profile
from benchmark.suite import load_suite
from benchmark.suite.cli import main
from benchmark.suite.manifest import Manifest, load_manifest, manifest_path_for, merge, sol_ms_for
from benchmark.suite.validate import TaskReport
from benchmark.task import load_task
from benchmark.verdict import TimingStats

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tasks"
GPU = "Test GPU 9000"


def profile() -> DeviceProfile:
    return DeviceProfile(
        gpu=GPU,
        bandwidth=1e12,
        matmul={"float32": 1e13, "tf32": 5e13, "bfloat16": 1e14, "float16": 1e14},
        measured="2026-01-01",
        method="by hand",
    )


def report(
    task_id: str, ms: float = 2.0, ok: bool = True, flops: int = 2 * 10**9, nbytes: int = 10**9
) -> TaskReport:
    stats = TimingStats(runs=5, median_ms=ms, mean_ms=ms, std_ms=0.0, min_ms=ms, max_ms=ms, rel_err=0.001)
    return TaskReport(
        task_id=task_id,
        ok=ok,
        checks={},
        failures=() if ok else ("time: too slow",),
        reference=stats,
        peak_memory_bytes=123,
        flops=flops,
        bytes=nbytes,
    )


@pytest.fixture
def suite_copy(tmp_path):
    root = tmp_path / "suite"
    shutil.copytree(FIXTURES / "good", root)
    return load_suite(root)


def test_merge_save_load_round_trip(suite_copy, tmp_path):
    reports = [report(t.task_id) for t in suite_copy.tasks]
    m = merge(Manifest(), suite_copy, reports, GPU, profile(), {"torch": "x", "cuda": "y"})
    path = m.save(tmp_path / "manifest.json")
    back = load_manifest(path)
    assert back == m
    assert back.suite_version == suite_copy.version
    entry = back.tasks["level1/row_softmax"]
    rec = entry.gpus["test-gpu-9000"]
    assert rec.sol_ms == pytest.approx(1.0)  # 1 GB at 1 TB/s beats 2 GFLOP at 10 TFLOP/s
    assert rec.sol_fraction == pytest.approx(0.5)
    assert back.devices["test-gpu-9000"].profile["bandwidth"] == 1e12
    bf16 = back.tasks["level1/scale_shift_bf16"]
    assert bf16.dtype == "bfloat16" and bf16.level == 1
    assert json.loads(path.read_text())["schema"] == 1


def test_sol_ms_for_matches_task_file_and_gpu(suite_copy, tmp_path):
    task = next(t for t in suite_copy.tasks if t.task_id == "level2/linear_tanh_sum")
    m = merge(Manifest(), suite_copy, [report(task.task_id, flops=4 * 10**10)], GPU, profile())
    assert sol_ms_for(task, GPU, m) == pytest.approx(4.0)  # compute-bound: 40 GFLOP at 10 TFLOP/s
    assert sol_ms_for(task, "TEST  gpu-9000", m) == pytest.approx(4.0)  # names normalise to one slug
    assert sol_ms_for(task, None, m) is None
    assert sol_ms_for(task, "Unknown GPU", m) is None
    # A task whose file changed since it was measured gets no SOL time.
    task.path.write_text(task.source + "\n# edited\n")
    edited = load_task(task.path, root=suite_copy.root)
    assert sol_ms_for(edited, GPU, m) is None


def test_sol_from_counts_for_a_profiled_gpu_without_timings(suite_copy, tmp_path, monkeypatch):
    task = suite_copy.tasks[0]
    m = merge(Manifest(), suite_copy, [report(task.task_id)], GPU, profile())
    other = dataclasses.replace(profile(), gpu="Other GPU", bandwidth=2e12)
    save_profile(other, tmp_path / "devices")
    assert m.sol_ms(task, "Other GPU", profiles_dir=tmp_path / "devices") == pytest.approx(0.5)
    assert m.sol_ms(task, "Third GPU", profiles_dir=tmp_path / "devices") is None


def test_merge_keeps_other_gpus_and_prunes_removed_tasks(suite_copy):
    ids = [t.task_id for t in suite_copy.tasks]
    m = merge(Manifest(), suite_copy, [report(i) for i in ids], GPU, profile())
    m = merge(m, suite_copy, [report(ids[0], ms=3.0, ok=False)], "cpu", None)
    first = m.tasks[ids[0]]
    assert set(first.gpus) == {"test-gpu-9000", "cpu"}
    assert first.gpus["cpu"].sol_ms is None and not first.gpus["cpu"].valid
    assert first.gpus["cpu"].failures == ("time: too slow",)
    assert m.devices["cpu"].failed == 1
    m = Manifest(suite_version=m.suite_version, tasks={**m.tasks, "level9/gone": first}, devices=m.devices)
    pruned = merge(m, suite_copy, [], GPU, profile())
    assert "level9/gone" not in pruned.tasks and set(pruned.tasks) == set(ids)


def test_old_schema_is_refused(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"schema": 0, "tasks": {}}))
    with pytest.raises(ValueError, match="schema"):
        load_manifest(path)
    assert load_manifest(tmp_path / "missing.json") == Manifest()


def test_manifest_command_on_cpu(suite_copy, tmp_path):
    out = tmp_path / "out"
    rc = main(
        [
            "manifest",
            "--suite",
            str(suite_copy.root),
            "--device",
            "cpu",
            "--tasks",
            "linear_tanh_sum",
            "--timing-seconds",
            "0.05",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    m = load_manifest(manifest_path_for(suite_copy.root))
    entry = m.tasks["level2/linear_tanh_sum"]
    assert entry.flops == 2 * 16 * 32 * 24
    assert entry.gpus["cpu"].reference_ms > 0 and entry.gpus["cpu"].valid
    assert set(m.tasks) == {"level2/linear_tanh_sum"}  # a partial run adds only what it measured
    assert (out / "manifest.json").is_file() and (out / "manifest.log").is_file()
    reports = json.loads((out / "validate.json").read_text())["reports"]
    assert [r["task_id"] for r in reports] == ["level2/linear_tanh_sum"]


def test_manifest_run_cut_short_keeps_its_checkpoints(suite_copy, tmp_path, monkeypatch):
    import benchmark.suite.validate as validate

    real = validate.validate_task
    seen = []

    def stop_at_second(task, config, timer_box=None):
        if seen:
            raise KeyboardInterrupt  # as when the machine's time runs out
        seen.append(task.task_id)
        return real(task, config, timer_box)

    monkeypatch.setattr(validate, "validate_task", stop_at_second)
    with pytest.raises(KeyboardInterrupt):
        main(
            [
                "manifest",
                "--suite",
                str(suite_copy.root),
                "--device",
                "cpu",
                "--timing-seconds",
                "0.05",
                "--quiet",
                "--checkpoint-every",
                "1",
                "--out",
                str(tmp_path / "out"),
            ]
        )
    saved = load_manifest(tmp_path / "out" / "manifest.json")
    assert list(saved.tasks) == seen
    # --resume measures only what is missing, into the same manifest.
    resumed = []

    def record(task, config, timer_box=None):
        resumed.append(task.task_id)
        return real(task, config, timer_box)

    monkeypatch.setattr(validate, "validate_task", record)
    manifest = tmp_path / "out" / "manifest.json"
    rc = main(
        [
            "manifest",
            "--suite",
            str(suite_copy.root),
            "--device",
            "cpu",
            "--timing-seconds",
            "0.05",
            "--quiet",
            "--resume",
            "--manifest",
            str(manifest),
        ]
    )
    assert rc == 0
    assert seen[0] not in resumed and len(resumed) == len(suite_copy.tasks) - 1
    assert set(load_manifest(manifest).tasks) == {t.task_id for t in suite_copy.tasks}


def test_resume_measures_invalid_entries_again(suite_copy, tmp_path, monkeypatch):
    """An entry that failed validation may pass after a harness fix, so --resume does not skip it."""
    import benchmark.suite.validate as validate

    manifest = tmp_path / "manifest.json"
    args = [
        "manifest",
        "--suite",
        str(suite_copy.root),
        "--device",
        "cpu",
        "--timing-seconds",
        "0.05",
        "--quiet",
        "--manifest",
        str(manifest),
    ]
    assert main(args) == 0
    data = json.loads(manifest.read_text())
    broken = sorted(data["tasks"])[0]
    data["tasks"][broken]["gpus"]["cpu"]["valid"] = False
    manifest.write_text(json.dumps(data))
    real, measured = validate.validate_task, []

    def record(task, config, timer_box=None):
        measured.append(task.task_id)
        return real(task, config, timer_box)

    monkeypatch.setattr(validate, "validate_task", record)
    assert main([*args, "--resume"]) == 0
    assert measured == [broken]
    assert load_manifest(manifest).tasks[broken].gpus["cpu"].valid


GATHER_TASK = '''"""Rows of a table picked by an index."""

import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "dtype": "float32"}


class Model(nn.Module):
    def forward(self, x, index):
        return x[index]


def get_inputs():
    return [torch.randn(64, 32), torch.tensor([1, 1, 2, 3])]


def get_init_inputs():
    return []
'''


def test_recount_refreshes_counts_and_floors_but_keeps_what_the_gpu_measured(tmp_path, capsys):
    """After a change of the byte model (a gather reads only its rows) the manifest's bytes and each
    GPU's floor follow on the CPU; FLOPs, reference times and validity stay as measured."""
    root = tmp_path / "suite" / "level1"
    root.mkdir(parents=True)
    (root / "rows.py").write_text(GATHER_TASK)
    suite = load_suite(tmp_path / "suite")
    [task] = suite.tasks
    whole = 64 * 32 * 4 + 32 + 4 * 32 * 4
    m = merge(Manifest(), suite, [report(task.task_id, flops=123, nbytes=whole)], GPU, profile())
    path = m.save(manifest_path_for(suite.root))
    devices = tmp_path / "devices"
    save_profile(profile(), devices)
    before = load_manifest(path).tasks[task.task_id]

    assert main(["recount", "--suite", str(suite.root), "--devices-dir", str(devices)]) == 0
    after = load_manifest(path).tasks[task.task_id]
    assert after.bytes == 3 * 32 * 4 + 4 * 8 + 4 * 32 * 4  # rows 1, 2, 3, the int64 index, the output
    assert after.flops == 123  # the GPU's count stays: the CPU counts attention its own way
    [(slug, rec)] = after.gpus.items()
    assert rec.sol_ms == pytest.approx(after.bytes / 1e12 * 1e3) and rec.sol_ms < before.gpus[slug].sol_ms
    assert dataclasses.replace(rec, sol_ms=None) == dataclasses.replace(before.gpus[slug], sol_ms=None)
    assert "1 of 1 tasks counted anew" in capsys.readouterr().out
    assert main(["recount", "--suite", str(suite.root), "--devices-dir", str(devices)]) == 0
    assert "0 of 1 tasks counted anew" in capsys.readouterr().out
