"""The build with the real verifier (benchmark.verify.verifier on CPU, correctness without strict rules,
plain-PyTorch candidates): the one evaluation path, end to end, on two tiny tasks."""

from __future__ import annotations

from dataclasses import replace

import pytest
from builder_support import TINY, FakeTeacher

from datasets_builder.build import Builder
from datasets_builder.config import (
    BuildConfig,
    OutputConfig,
    RepairConfig,
    SynthesisConfig,
    TeacherConfig,
    TimingStageConfig,
    ValidationStageConfig,
    VerifyConfig,
)
from datasets_builder.synth_compose import ComposeConfig


@pytest.mark.slow
def test_candidates_go_through_the_real_verifier(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLBENCH_CACHE", str(tmp_path / "cache"))
    config = BuildConfig(
        seed=1,
        device="cpu",
        size=replace(TINY, widths=(8,)),
        synthesis=SynthesisConfig(compose=ComposeConfig(count=2, linear=False, max_ops=2, seed=2)),
        validation=ValidationStageConfig(fast=True, workers=0),
        teacher=TeacherConfig(kind="none"),
        verify=VerifyConfig(
            trials=2, measure=False, strict=False, lanes_per_device=2, build_workers=1, timeout_s=300
        ),
        timing=TimingStageConfig(subset=1, max_seconds=0.05),
        repair=RepairConfig(mutations_per_task=0),
        output=OutputConfig(export_suite=False),
    )
    teacher = FakeTeacher()
    monkeypatch.chdir(tmp_path)  # a relative --out: the verifier's workers run in folders of their own
    result = Builder(config, "out", offline_teacher=teacher, progress=False).run()
    sol = result.stats["solutions"]
    assert sol["candidates"] == len(teacher.seen) == 2
    assert sol["candidates_by_status"] == {"pass": 2} and sol["kept_solutions"] == 2
    assert sol["speedup"]["timed"] == 1 and sol["speedup"]["median"] > 0
    assert result.stats["splits"]["sft"] == 2
