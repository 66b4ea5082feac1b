"""Stage 3: multi-turn repair samples, from model turns and from mutants of verified solutions."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest

from benchmark.evaluate.anticheat import static
from benchmark.prompts import PromptBuilder, PromptConfig
from benchmark.verdict import Correctness, Status, Verdict
from datasets_builder.repair import MUTATIONS, model_samples, mutate, mutation_sample
from datasets_builder.teachers.base import Candidate
from datasets_builder.teachers.inductor_record import Capture
from datasets_builder.teachers.inductor_translate import translate

DATA = Path(__file__).parent / "data" / "inductor"


@pytest.fixture(scope="module")
def solution() -> str:
    capture = Capture.from_dict(json.loads((DATA / "softmax_cuda.capture.json").read_text()))
    return translate((DATA / "softmax.py").read_text(), capture).code


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_mutation_changes_the_code_and_keeps_it_python(name, solution):
    mutant = MUTATIONS[name](solution, random.Random(0))
    assert mutant is not None and mutant != solution
    ast.parse(mutant)
    assert static.analyze(mutant) == []  # still a legal-looking file: the verifier must find the bug
    assert len(mutant.splitlines()) == len(solution.splitlines())  # a local edit, not a rewrite


def test_mutate_picks_an_applicable_mutation_and_links_the_parent(solution):
    parent = Candidate("level2/softmax", "inductor", solution)
    m = mutate(parent, random.Random(3))
    assert m.teacher == "mutation" and m.parent == parent.candidate_id and m.variant in MUTATIONS
    assert mutate(Candidate("t", "inductor", None), random.Random(0)) is None
    assert mutate(Candidate("t", "inductor", "x = 1\n"), random.Random(0)) is None


def _verdict(status: Status, turn: int = 1) -> Verdict:
    return Verdict(
        task_id="t",
        status=status,
        turn=turn,
        error="trial 0: output: 3 of 8 elements differ",
        correctness=Correctness(trials=3, passed=0, max_abs_err=1.0, max_rel_err=1.0),
    )


def test_mutation_sample_is_prompt_attempt_feedback_fix(solution):
    builder = PromptBuilder(PromptConfig(backend="triton"))
    first = ({"role": "system", "content": "sys"}, {"role": "user", "content": "task"})
    fixed = Candidate("t", "inductor", solution)
    mutant = mutate(fixed, random.Random(1))
    sample = mutation_sample(builder, first, mutant, _verdict(Status.INCORRECT), fixed)
    roles = [m["role"] for m in sample.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert (
        mutant.code.strip() in sample.messages[2]["content"]
        and solution.strip() in sample.messages[4]["content"]
    )
    assert "does not match the reference" in sample.messages[3]["content"]
    assert sample.source == "repair:mutation" and sample.failed_status == "incorrect"
    assert (
        mutation_sample(builder, first, mutant, _verdict(Status.PASS), fixed) is None
    )  # a mutant that passed


def test_model_samples_take_failed_then_passed_turns():
    first = Candidate(
        "t",
        "model:m",
        "bad",
        sample=0,
        turn=1,
        completion="```python\nbad\n```",
        messages=({"role": "user", "content": "task"},),
    )
    conv = (
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "bad"},
        {"role": "user", "content": "feedback"},
    )
    second = Candidate(
        "t",
        "model:m",
        "good",
        sample=0,
        turn=2,
        completion="fixed ```python\ngood\n```",
        messages=conv,
        parent=first.candidate_id,
    )
    other = Candidate("t", "model:m", "ok", sample=1, turn=1, completion="ok", messages=conv[:1])
    verdicts = {
        first.candidate_id: _verdict(Status.COMPILE_ERROR),
        second.candidate_id: _verdict(Status.PASS, 2),
        other.candidate_id: _verdict(Status.PASS),
    }
    (sample,) = model_samples([first, second, other], verdicts)
    assert [m["role"] for m in sample.messages] == ["user", "assistant", "user", "assistant"]
    assert sample.messages[-1]["content"] == second.completion and sample.failed_status == "compile_error"
    assert sample.turns == 2 and sample.fixed_candidate == second.candidate_id
