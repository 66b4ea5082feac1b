"""`benchmark.run` tells the truth: every selected task is in summary.json and the table (broken ones
with their stage and reason, counted as failed), unmeasured speed is None / "n/m", not 0, and a
missing GPU is one line and exit 2 before anything runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch

from benchmark.check import main as check_main
from benchmark.run import main as run_main

GOOD = '''"""y = 3x - 1."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 3.0 - 1.0


def get_inputs():
    return [torch.randn(16, 8)]


def get_init_inputs():
    return []
'''

SYNTAX_ERROR = GOOD.replace("def forward(self, x):", "def forward(self, x)")
NO_GET_INPUTS = GOOD.replace("def get_inputs():\n    return [torch.randn(16, 8)]\n", "")
REFERENCE_RAISES = GOOD.replace("return x * 3.0 - 1.0", 'raise RuntimeError("the reference gives up")')


def make_suite(root: Path, files: dict[str, str]) -> Path:
    level = root / "level1"
    level.mkdir(parents=True)
    for name, source in files.items():
        (level / f"{name}.py").write_text(source)
    return root


def cli(suite: Path, out: Path, *extra: str) -> int:
    flags = "--model reference --device cpu --quiet --trials 2".split()
    return run_main([*flags, "--suite", str(suite), "--out", str(out), *extra])


@pytest.fixture
def quick_timing(monkeypatch, fast_eval):
    """The CLI builds its own EvalConfig: give it the fast test timing and the shared build cache."""
    import dataclasses

    import benchmark.run as run_module

    real = run_module.eval_config

    def fast(args, device):
        return dataclasses.replace(real(args, device), timing=fast_eval.timing, cache_dir=fast_eval.cache_dir)

    monkeypatch.setattr(run_module, "eval_config", fast)


def test_every_selected_task_is_reported(tmp_path, capsys, quick_timing):
    files = {
        "good": GOOD,
        "syntax_error": SYNTAX_ERROR,
        "no_inputs": NO_GET_INPUTS,
        "ref_raises": REFERENCE_RAISES,
    }
    suite = make_suite(tmp_path / "suite", files)
    assert cli(suite, tmp_path / "run") == 0
    table = capsys.readouterr().out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())

    broken = summary["broken_tasks"]
    assert set(broken) == {"level1/syntax_error", "level1/no_inputs", "level1/ref_raises"}
    assert broken["level1/syntax_error"]["stage"] == broken["level1/no_inputs"]["stage"] == "load"
    assert "syntax error" in broken["level1/syntax_error"]["reason"]
    assert "get_inputs" in broken["level1/no_inputs"]["reason"]
    assert broken["level1/ref_raises"]["stage"] == "reference"
    assert "the reference gives up" in broken["level1/ref_raises"]["reason"]
    assert all(b["level"] == 1 for b in broken.values())

    for scope in ("level1", "overall"):
        m = summary["metrics"][scope]
        assert m["tasks"] == 4 and m["samples"] == 4
        assert m["pass_at_k"]["1"] == pytest.approx(0.25) and m["avg_at_k"] == pytest.approx(0.25)
        assert m["fast_p"]["0.0"] == pytest.approx(0.25)
        assert m["geomean_speedup"] is not None  # the good task was timed
        assert m["pass_at_k_ci"]["1"][0] <= 0.25 <= m["pass_at_k_ci"]["1"][1]  # over the 4 tasks
    assert summary["metrics_rules"]["intervals"]["resamples"] == 1000
    assert summary["statuses"] == {"pass": 1}

    overall = next(line for line in table.splitlines() if line.startswith("overall"))
    assert overall.split()[1:4] == ["4", "4", "0.250"]
    assert "3 tasks broken" in table
    for task_id in broken:
        assert task_id in table


def test_no_timing_reports_speed_as_not_measured(tmp_path, capsys, quick_timing):
    suite = make_suite(tmp_path / "suite", {"good": GOOD})
    assert cli(suite, tmp_path / "run", "--no-timing") == 0
    table = capsys.readouterr().out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    m = summary["metrics"]["overall"]
    assert m["avg_at_k"] == 1.0 and m["fast_p"]["0.0"] == 1.0
    assert m["fast_p"]["1.0"] is None and m["fast_p"]["1.5"] is None and m["fast_p"]["2.0"] is None
    assert m["faster_rate"] is None and m["geomean_speedup"] is None
    assert summary["broken_tasks"] == {}
    overall = next(line for line in table.splitlines() if line.startswith("overall"))
    assert overall.split()[3:] == ["1.000", "[1.00,1.00]", "n/m", "n/m", "n/m", "n/m", "n/a"]
    assert (
        m["avg_at_k_ci"] == [1.0, 1.0] and m["fast_p_ci"]["1.0"] is None and m["geomean_speedup_ci"] is None
    )
    assert json.loads((tmp_path / "run" / "run.json").read_text())["timing"] is False


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def test_run_without_cuda_is_one_line_and_exit_2(tmp_path, capsys, no_cuda, monkeypatch):
    import benchmark.runner as runner

    monkeypatch.setattr(runner, "get_backend", lambda *a, **k: pytest.fail("a backend was loaded"))
    out = tmp_path / "run"
    assert run_main(["--model", "reference", "--device", "cuda", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: --device cuda but no CUDA device is visible (torch ")
    assert not out.exists()


def test_check_without_cuda_is_one_line_and_exit_2(data_dir, capsys, no_cuda, monkeypatch):
    import benchmark.check as check

    monkeypatch.setattr(check, "evaluate", lambda *a, **k: pytest.fail("the candidate was evaluated"))
    task = data_dir / "suite" / "level1" / "scale_shift.py"
    candidate = data_dir / "candidates" / "torch_correct.py"
    assert check_main(["--task", str(task), "--candidate", str(candidate), "--device", "cuda"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --device cuda but no CUDA device is visible (torch ") and "\n" not in err


def test_missing_cuda_reason_names_the_build(monkeypatch, no_cuda):
    from benchmark.evaluate.device_check import DeviceUnavailable, cuda_missing_reason, require_device

    monkeypatch.setattr(torch.version, "cuda", None)
    assert cuda_missing_reason() == f"torch {torch.__version__}, built without CUDA"
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert "CUDA_VISIBLE_DEVICES is empty" in cuda_missing_reason()
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert "no driver or no device found" in cuda_missing_reason()
    require_device("cpu")  # nothing to check
    with pytest.raises(DeviceUnavailable, match="--device cuda:1 but no CUDA device"):
        require_device("cuda:1")


def test_unreadable_files_follow_the_level_and_name_filters(tmp_path):
    from benchmark.suite import load_suite

    root = make_suite(tmp_path / "suite", {"good": GOOD, "syntax_error": SYNTAX_ERROR})
    (root / "level2").mkdir()
    (root / "level2" / "no_inputs.py").write_text(NO_GET_INPUTS)
    suite = load_suite(root)
    assert [t.task_id for t in suite.tasks] == ["level1/good"]
    assert [f.task_id for f in suite.select_failures()] == ["level1/syntax_error", "level2/no_inputs"]
    assert [f.task_id for f in suite.select_failures(levels=[2])] == ["level2/no_inputs"]
    assert [f.task_id for f in suite.select_failures(patterns=["syntax_*"])] == ["level1/syntax_error"]
    assert len(suite.select_failures(tags=["softmax"])) == 2  # their tags cannot be read, so they stay
    assert suite.errors == tuple(f.reason for f in suite.failures)


def test_reference_like_run_reads_as_no_faster_in_table_summary_and_bar():
    """Speedups 1.0 +- each sample's own spread (a program timed against itself): fast_1, the faster
    column and the progress bar's count are all 0; the geomean's interval covers 1."""
    from benchmark.runner import _faster, format_table, summarize
    from benchmark.verdict import Status, Verdict

    spreads = [0.01, 0.03, 0.05, 0.08, 0.02, 0.04]
    verdicts = [
        Verdict(f"level1/t{i}", Status.PASS, level=1, speedup=1.0 + s * (-1) ** i * 0.9, speedup_spread=s)
        for i, s in enumerate(spreads)
    ]
    summary = summarize(verdicts, (1,))
    m = summary["metrics"]["overall"]
    assert m["fast_p"]["1.0"] == 0.0 and m["fast_p_ci"]["1.0"] == [0.0, 0.0] and m["faster_rate"] == 0.0
    assert m["geomean_speedup_ci"][0] < 1.0 < m["geomean_speedup_ci"][1]
    assert not any(_faster(v) for v in verdicts)
    overall = next(line for line in format_table(summary).splitlines() if line.startswith("overall"))
    assert overall.split()[3:7] == ["1.000", "[1.00,1.00]", "0.000", "[0.00,0.00]"]


def test_the_table_says_what_each_column_means_and_what_the_reference_should_score():
    from benchmark.runner import format_table, summarize
    from benchmark.verdict import Status, Verdict

    verdicts = [
        Verdict(f"level1/t{i}", Status.PASS, level=1, speedup=1.0, speedup_spread=0.01, sol_fraction=0.25 * i)
        for i in range(1, 4)
    ]
    summary = summarize(verdicts, (1,))
    table = format_table(summary).splitlines()
    head = table[0].split()
    overall = next(line for line in table if line.startswith("overall")).split()
    # "over best" is blank without production baselines in the manifest
    assert head[-3:] == ["SOL", "over", "best"] and overall[-1] == "50%"  # (0.25 + 0.5 + 0.75) / 3
    explained = {line.split()[0] for line in table[len(summary["metrics"]) + 2 :] if line[:1].strip()}
    assert set(head[3:]) - {"best"} <= explained  # every metric column has its line of words
    assert not any("reference model" in line for line in table)
    summary["model"] = "reference"
    assert any("expected pass@1 1.000, fast_1 0.000" in line for line in format_table(summary).splitlines())


def test_the_table_gives_an_example_reason_for_each_failing_status():
    from benchmark.runner import format_table, summarize
    from benchmark.verdict import Status, Verdict

    verdicts = [
        Verdict("level1/b", Status.NO_CODE, level=1, error="no recorded completion for b sample 0"),
        Verdict("level1/a", Status.CHEAT, level=1, sample=1, error="torch_compute_op: line 4\nmore"),
        Verdict("level1/a", Status.CHEAT, level=1, error="aten_compute_op: line 9"),
        Verdict("level1/c", Status.PASS, level=1, speedup=1.0),
    ]
    table = format_table(summarize(verdicts, (1,))).splitlines()
    at = table.index("statuses: cheat=2, no_code=1, pass=1")
    assert table[at + 1 : at + 4] == [
        "  cheat, e.g. level1/a#0: aten_compute_op: line 9",
        "  no_code, e.g. level1/b#0: no recorded completion for b sample 0",
        "  (every sample's reason: results.jsonl in the run folder)",
    ]


NEEDS_FP8 = GOOD.replace(
    '"""y = 3x - 1."""', '"""y = 3x - 1, on FP8 tensor cores."""\n\nSOLBENCH = {"requires": ["fp8"]}'
)
NO_FP8 = "requires FP8 tensor cores (compute capability 8.9 or newer); NVIDIA A100 is 8.0"


@pytest.fixture
def lacks_fp8(monkeypatch):
    """The run's device lacks FP8 tensor cores (on this CPU machine, as the runner is told)."""
    import benchmark.runner as runner

    monkeypatch.setattr(
        runner, "unmet_requirement", lambda requires, device: NO_FP8 if "fp8" in requires else None
    )


def test_a_skipped_task_is_listed_and_counted_nowhere(tmp_path, capsys, quick_timing, lacks_fp8):
    suite = make_suite(tmp_path / "suite", {"good": GOOD, "needs_fp8": NEEDS_FP8})
    assert cli(suite, tmp_path / "run") == 0
    table = capsys.readouterr().out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["skipped_tasks"] == {"level1/needs_fp8": {"level": 1, "reason": NO_FP8}}
    assert summary["broken_tasks"] == {}
    m = summary["metrics"]["overall"]
    assert m["tasks"] == 1 and m["samples"] == 1 and m["pass_at_k"]["1"] == 1.0  # not 1 of 2
    assert f"1 task skipped on this device, not counted in any metric: {NO_FP8}" in table
    assert "  level1/needs_fp8" in table.splitlines()
    assert json.loads((tmp_path / "run" / "run.json").read_text())["tasks"] == ["level1/good"]


def test_a_run_whose_every_task_is_skipped_says_so(tmp_path, capsys, lacks_fp8, monkeypatch):
    import benchmark.runner as runner

    monkeypatch.setattr(runner, "get_backend", lambda *a, **k: pytest.fail("a backend was loaded"))
    suite = make_suite(tmp_path / "suite", {"needs_fp8": NEEDS_FP8})
    assert cli(suite, tmp_path / "run") == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"error: every selected task is skipped on this device: {NO_FP8}"
    )


def test_every_gpu_of_the_run_is_asked(monkeypatch, tmp_path):
    import benchmark.runner as runner
    from benchmark.evaluate import device_check
    from benchmark.evaluate.harness import EvalConfig
    from benchmark.suite import load_suite

    capabilities = {"cuda:0": ((9, 0), "NVIDIA H100"), "cuda:1": ((8, 0), "NVIDIA A100")}
    monkeypatch.setattr(device_check, "cuda_capability", capabilities.__getitem__)
    tasks = list(load_suite(make_suite(tmp_path / "suite", {"good": GOOD, "needs_fp8": NEEDS_FP8})).tasks)
    config = runner.RunConfig(
        model="reference", out=tmp_path / "run", eval=EvalConfig(device="cuda"), gpus=(0, 1)
    )
    assert runner.skipped_tasks(tasks, config) == {"level1/needs_fp8": {"level": 1, "reason": NO_FP8}}
    assert runner.skipped_tasks(tasks, dataclasses.replace(config, gpus=(0,))) == {}
    assert runner.skipped_tasks(tasks, dataclasses.replace(config, eval=EvalConfig(device="cpu"))) == {}


def test_check_skips_a_task_the_gpu_cannot_run(tmp_path, capsys, monkeypatch, data_dir):
    import benchmark.check as check
    from benchmark.evaluate import device_check

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(device_check, "cuda_capability", lambda device: ((8, 0), "NVIDIA A100"))
    monkeypatch.setattr(check, "evaluate", lambda *a, **k: pytest.fail("the candidate was evaluated"))
    task = tmp_path / "needs_fp8.py"
    task.write_text(NEEDS_FP8)
    candidate = data_dir / "candidates" / "torch_correct.py"
    args = ["--task", str(task), "--candidate", str(candidate), "--device", "cuda", "--json"]
    assert check_main(args) == check.SKIPPED == 3
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == f"skipped: needs_fp8 on cuda: {NO_FP8}"
    assert json.loads(lines[-1]) == {"verdict": None, "skipped": NO_FP8}


@pytest.mark.parametrize(
    ("floors", "says"),
    [
        (None, "floors are computed on a GPU only"),
        ({"gpu": "NVIDIA H100 80GB HBM3", "profile": False}, "no device profile for NVIDIA H100 80GB HBM3"),
        ({"gpu": "NVIDIA H200", "profile": True}, "no correct sample of a task with a floor"),
    ],
    ids=["cpu", "gpu-without-profile", "gpu-with-profile"],
)
def test_the_sol_legend_says_why_a_floor_is_missing(floors, says):
    from benchmark.runner import format_table, summarize
    from benchmark.verdict import Status, Verdict

    summary = summarize([Verdict("level1/a", Status.PASS, level=1, speedup=1.0)], (1,), floors=floors)
    sol = [line for line in format_table(summary).splitlines() if line.startswith("SOL ")]
    assert len(sol) == 1 and says in sol[0]
