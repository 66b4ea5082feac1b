"""experiments.rl_demo.evaluation: the per-task results of an evaluation and the samples per split."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from benchmark.prompts import PromptBuilder, PromptConfig
from experiments.rl_demo import (
    cli,
    evaluation,
    family,
)
from trainers.rl_rewards import Score


def test_evaluate_keeps_every_sample_by_task_and_the_aggregates_follow_from_them(tmp_path, monkeypatch):
    tasks = family.write_tasks(family.family(0, n_rl=2, n_test=2), tmp_path)
    test_ids = sorted(t for t in tasks if t.startswith("test/"))
    outcomes = {
        "fast": Score(2.0, "pass", speedup=2.0),
        "slow": Score(1.0, "pass", speedup=0.5),
        "wrong": Score(-1.0, "incorrect"),
    }
    monkeypatch.setattr(evaluation, "generate", lambda *a: [["fast", "slow"], ["wrong", "fast"]])
    source = SimpleNamespace(score=lambda rows, texts, turns: [outcomes[t] for t in texts])
    args = SimpleNamespace(eval_samples=2, test_samples=2, eval_temperature=0.7, max_new=16, seed=0)
    builder = PromptBuilder(PromptConfig(backend="cuda-raw"))
    result = evaluation.evaluate(None, None, tasks, builder, source, "test", args)
    assert result["per_task"] == {
        test_ids[0]: [[True, 2.0], [True, 0.5]],
        test_ids[1]: [[False, None], [True, 2.0]],
    }
    assert result["samples"] == 4
    assert result["pass_rate"] == 0.75
    assert result["fast_1"] == 0.5
    assert result["speedup_geomean"] == pytest.approx(2.0 ** (1 / 3))
    assert json.loads(json.dumps(result))["per_task"] == result["per_task"]


def test_the_test_split_is_sampled_test_samples_times_and_the_rl_split_eval_samples(tmp_path, monkeypatch):
    tasks = family.write_tasks(family.family(0, n_rl=2, n_test=2), tmp_path)
    asked = []

    def generate(model, tokenizer, prompts, n, temperature, max_new, seed):
        asked.append(n)
        return [["fast"] * n for _ in prompts]

    monkeypatch.setattr(evaluation, "generate", generate)
    source = SimpleNamespace(
        score=lambda rows, texts, turns: [Score(2.0, "pass", speedup=2.0) for _ in texts]
    )
    args = SimpleNamespace(eval_samples=2, test_samples=8, eval_temperature=0.7, max_new=16, seed=0)
    builder = PromptBuilder(PromptConfig(backend="cuda-raw"))
    assert evaluation.evaluate(None, None, tasks, builder, source, "test", args)["samples"] == 16
    assert evaluation.evaluate(None, None, tasks, builder, source, "rl", args)["samples"] == 4
    assert asked == [8, 2]
    assert cli.parse_args(["--out", str(tmp_path)]).test_samples == 8
    assert cli.parse_args(["--out", str(tmp_path), "--tiny"]).test_samples == 2
