"""PrimeEcho: the trajectory reward's values and the rollout loop (stop at the first pass, feedback
between turns, one generate call per later turn)."""

from __future__ import annotations

import pytest

from trainers.primeecho import PrimeEchoParams, run_episodes, trajectory_reward
from trainers.rl_rewards import Score

P = PrimeEchoParams()  # alpha 0.75, bonuses 0.2 (turn 1) and 0.1 (turn 2), three turns


@pytest.mark.parametrize(
    ("scores", "first_pass", "expected"),
    [
        ([1.0], 1, 1.2),  # pass at turn 1: s + b1
        ([2.5], 1, 2.7),  # a fast pass keeps its speed bonus
        ([-1.0, 1.0], 2, -0.75 + 0.25 + 0.1),  # repaired at turn 2
        ([-1.0, -0.5, 1.0], 3, -0.75 + 0.25),  # repaired at turn 3: no early bonus
        ([-1.0, -1.0, -1.0], None, -1.0),
        ([-0.5, -0.25, -1.0], None, 0.75 * -0.5 + 0.25 * -0.25),  # partial credit: max over turns
    ],
)
def test_trajectory_reward_values(scores, first_pass, expected):
    assert trajectory_reward(scores, first_pass, P) == pytest.approx(expected)


def test_outcomes_are_ordered_by_how_early_they_pass():
    turn1 = trajectory_reward([1.0], 1, P)
    turn2 = trajectory_reward([-1.0, 1.0], 2, P)
    turn3 = trajectory_reward([-1.0, -1.0, 1.0], 3, P)
    never = trajectory_reward([-1.0, -1.0, -1.0], None, P)
    assert turn1 > turn2 > turn3 > never


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(turns=0), "at least one turn"),
        (dict(alpha=1.5), "alpha"),
        (dict(early_bonus=(-0.1,)), "non-negative"),
        (dict(early_bonus=(0.1, 0.2)), "must not grow"),
    ],
)
def test_params_are_validated(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PrimeEchoParams(**kwargs)


def _scorer(passing_turn: dict[str, int]):
    """Passes task t at turn passing_turn[t]; records every call."""
    calls = []

    def score(rows, texts, turns):
        calls.append((list(texts), list(turns)))
        out = []
        for row, text, turn in zip(rows, texts, turns, strict=True):
            ok = passing_turn.get(row["task_id"]) == turn
            out.append(
                Score(1.0 if ok else -1.0, "pass" if ok else "incorrect", feedback=f"feedback on {text}")
            )
        return out

    return score, calls


def test_rollouts_stop_at_the_first_pass_and_carry_feedback():
    score, calls = _scorer({"a": 1, "b": 2})
    seen = []

    def generate(conversations):
        seen.append(conversations)
        return [f"answer {len(c) // 2}" for c in conversations]

    prompts = [[{"role": "user", "content": t}] for t in "abc"]
    rows = [{"task_id": t} for t in "abc"]
    episodes = run_episodes(prompts, rows, ["first a", "first b", "first c"], score, generate, turns=3)
    assert [len(e.turns) for e in episodes] == [1, 2, 3]
    assert [e.first_pass_turn for e in episodes] == [1, 2, None]
    assert [len(c) for c in seen] == [2, 1]  # turn 2 for b and c, turn 3 for c only
    turn2_c = seen[0][1]
    assert turn2_c == [
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": "first c"},
        {"role": "user", "content": "feedback on first c"},
    ]
    assert [t for _, t in calls] == [[1, 1, 1], [2, 2], [3]]
    assert episodes[1].reward(P) == pytest.approx(-0.4)
    assert episodes[1].reward(None) == -1.0  # single-turn GRPO: the first turn's reward alone


def test_generate_is_called_even_when_nothing_is_left():
    score, _ = _scorer({"a": 1})
    calls = []

    def generate(conversations):
        calls.append(len(conversations))
        return ["x"] * len(conversations)

    run_episodes([[{"role": "user", "content": "a"}]], [{"task_id": "a"}], ["y"], score, generate, turns=3)
    assert calls == [0, 0]  # collective generation: every process takes part in every turn


def test_single_turn_needs_no_generator_and_more_turns_do():
    score, _ = _scorer({})
    assert len(run_episodes([[]], [{"task_id": "a"}], ["y"], score)[0].turns) == 1
    with pytest.raises(ValueError, match="generate"):
        run_episodes([[]], [{"task_id": "a"}], ["y"], score, None, turns=2)
