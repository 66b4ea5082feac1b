"""The whole build on CPU with small inputs: an offline teacher and a verifier that judge without
running candidates (the pipeline is what is under test), the outputs read back with load_dataset and
with the SFT trainer's loader, and a build resumed after a simulated kill (the card: test_card.py)."""

from __future__ import annotations

import json

import datasets
import pytest
from builder_support import FakeTeacher, FakeVerifier, run_build, tiny_config

from datasets_builder.build import Builder
from datasets_builder.config import (
    BudgetConfig,
    OutputConfig,
    RepairConfig,
    TimingStageConfig,
    ValidationStageConfig,
)
from datasets_builder.stages.timing import timing_choice


def test_every_stage_produced_its_output(built):
    out, result, teacher = built
    stats = result.stats
    assert (out / "dataset" / "README.md").is_file() and (out / "suite" / "README.md").is_file()
    assert json.loads((out / "build_stats.json").read_text())["splits"] == stats["splits"]
    sol = stats["solutions"]
    assert (
        stats["tasks"]["candidates"] == 12  # eleven synthesized, one imported
        and sol["tasks_processed"] == len(teacher.seen) + sol["tasks_invalid"]
    )
    n = len(teacher.seen)
    unanswered = n // 4
    broken = sum(1 for i in range(1, n + 1) if i % 3 == 0 and i % 4 != 0)
    assert sol["kept_solutions"] == sol["tasks_with_solution"] == n - unanswered > 0
    assert sol["candidates_by_status"] == {"pass": n - unanswered, "incorrect": broken}
    assert sol["teacher_skips"] == ({"extern_kernel": unanswered} if unanswered else {})
    assert (
        stats["splits"]["sft"] == sol["tasks_with_solution"]
    )  # one target per task: each pool has one entry
    assert stats["splits"]["rl_prompts"] == sol["tasks_valid"] == stats["splits"]["tasks"]
    assert sol["speedup"]["timed"] == 2 and sol["speedup"]["median"] == 1.25
    assert stats["time"]["total_s"] > 0


def test_round_trip_with_load_dataset_and_the_sft_loader(built):
    from trainers.data import final_turn, load_sft_dataset

    out, result, _ = built
    names = datasets.get_dataset_config_names(str(out / "dataset"))
    assert sorted(names) == [
        "rft",
        "rl_prompts",
        "sft",
        "tasks",
    ]  # no repair rows in this build, so no repair file
    ds = {name: datasets.load_dataset(str(out / "dataset"), name, split="train") for name in names}
    assert len(ds["sft"]) == result.stats["splits"]["sft"]
    assert len(datasets.load_dataset(str(out / "dataset"), split="train")) == len(ds["sft"])  # the default
    row = ds["sft"][0]
    assert row["verified"] and row["source"] == "generation:fake" and row["backend"] == "triton"
    assert "ModelNew" in row["messages"][-1]["content"] and "Tensor metadata" in row["messages"][1]["content"]
    assert ds["rl_prompts"][0]["messages"][-1]["role"] == "user" and ds["rl_prompts"][0]["solution"] is None
    sft = load_sft_dataset(str(out / "dataset"), split="train", config_name="sft")
    assert final_turn(sft[0]["messages"]) == 2
    tasks = datasets.load_dataset(str(out / "dataset"), "tasks", split="train")
    assert {"code", "level", "name", "problem_id", "task_id"} <= set(tasks.column_names)
    suite = datasets.load_dataset(str(out / "suite"))
    assert "level_1" in suite and len(suite["level_1"]) > 100


def test_resume_after_a_simulated_kill(tmp_path):
    killer = FakeTeacher(kill_after=3)
    with pytest.raises(KeyboardInterrupt):
        run_build(tmp_path, teacher=killer)
    journal = (tmp_path / "state" / "tasks.jsonl").read_text().splitlines()
    done_before = [json.loads(line)["task_id"] for line in journal]
    assert len(killer.seen) == 3 and set(killer.seen) <= set(done_before)
    with open(tmp_path / "state" / "tasks.jsonl", "a") as f:
        f.write('{"task_id": "cut short by the kill"')  # a half-written last line is ignored
    second = FakeTeacher()
    result = run_build(tmp_path, teacher=second)
    assert not set(second.seen) & set(killer.seen)  # finished tasks were not redone
    records = [
        json.loads(line)
        for line in (tmp_path / "state" / "tasks.jsonl").read_text().splitlines()
        if line.strip().endswith("}")
    ]
    ids = [r["task_id"] for r in records]
    assert len(ids) == len(set(ids)) == result.stats["solutions"]["tasks_processed"]
    assert result.stats["time"]["runs"] == 2
    third = FakeTeacher()
    again = run_build(tmp_path, teacher=third)  # everything done: nothing is recomputed
    assert third.seen == [] and again.stats["splits"] == result.stats["splits"]


def test_budget_target_stops_scheduling_and_says_so(tmp_path):
    cfg = tiny_config(budget=BudgetConfig(target_tasks=2), output=OutputConfig(export_suite=False))
    teacher = FakeTeacher()
    result = run_build(tmp_path, cfg=cfg, teacher=teacher)
    budget = result.stats["budget"]
    assert budget["stopped_early"] and "target of 2" in budget["reason"] and budget["tasks_not_processed"] > 0
    card = (tmp_path / "dataset" / "README.md").read_text()
    assert (
        "stopped scheduling new tasks early: the target of 2 tasks with a kept solution was reached" in card
    )


def test_timing_choice_counts_what_an_earlier_run_timed():
    kept = [f"c{i}" for i in range(20)]
    first = timing_choice(kept[:8], set(), 5, seed=0)
    assert len(first) == 5 and set(first) <= set(kept[:8])
    assert timing_choice(kept[:8], set(), 5, seed=0) == first  # seeded
    more = timing_choice(kept, set(first[:3]), 5, seed=0)  # the build continued: more kept, 3 timed
    assert len(more) == 2 and not set(more) & set(first[:3])
    assert timing_choice(kept, set(first), 5, seed=0) == []


def test_a_continued_build_times_no_more_solutions_than_its_subset(tmp_path):
    def cfg(target: int):
        return tiny_config(
            budget=BudgetConfig(target_tasks=target),
            timing=TimingStageConfig(subset=2),
            output=OutputConfig(export_suite=False),
        )

    first = run_build(tmp_path, cfg=cfg(2))
    assert first.stats["solutions"]["speedup"]["timed"] == 2
    second = run_build(tmp_path, cfg=cfg(0))  # continued to the end: more kept solutions to draw from
    assert second.stats["solutions"]["tasks_with_solution"] > first.stats["solutions"]["tasks_with_solution"]
    assert second.stats["solutions"]["speedup"]["timed"] == 2
    card = (tmp_path / "dataset" / "README.md").read_text()
    assert "| solutions re-verified with timing (random subset) | 2 |" in card
    assert "A random subset of 2 kept solutions" in card and "Speed was measured for 2 " in card


def test_mutation_repairs_need_real_kernels(tmp_path):
    """Plain-PyTorch candidates have no kernel to break: no mutant, no repair row, and no error."""
    result = run_build(
        tmp_path,
        cfg=tiny_config(
            repair=RepairConfig(mutations_per_task=1, max_tasks=3), output=OutputConfig(export_suite=False)
        ),
    )
    assert result.stats["solutions"]["mutants"] == {} and result.stats["splits"]["repair"] == 0


@pytest.mark.slow
def test_tasks_in_worker_processes(tmp_path):
    """validation.workers > 0: each task validated in a spawned worker, its record journalled once."""
    cfg = tiny_config(
        validation=ValidationStageConfig(fast=True, workers=1), output=OutputConfig(export_suite=False)
    )
    verifiers = dict(verifier=FakeVerifier(), timing_verifier=FakeVerifier(measure=True), progress=False)
    result = Builder(cfg, tmp_path, **verifiers).run()
    state = tmp_path / "state"
    screened = [json.loads(line) for line in (state / "screen.jsonl").read_text().splitlines()]
    records = [json.loads(line) for line in (state / "tasks.jsonl").read_text().splitlines()]
    assert sorted(r["task_id"] for r in records) == sorted(r["task_id"] for r in screened if r["kept"])
    assert not any("worker" in f for r in records for f in r["report"].get("failures", ()))
    assert any(r["valid"] and r["metadata"] for r in records)
    assert result.stats["solutions"]["tasks_processed"] == len(records)
    assert "tasks" in json.loads((state / "stages.json").read_text())
    with pytest.raises(ValueError, match="runs only in-process"):
        Builder(cfg, tmp_path, offline_teacher=FakeTeacher(), **verifiers).run()
