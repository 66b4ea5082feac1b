"""Buffered Dynamic Retry: the buffer's bounds and FIFO order, the replay probability, and what a
repair prompt shows the policy."""

from __future__ import annotations

import random

import pytest

from trainers.retry_buffer import RetryBuffer, RetryEntry, failed_answer, repair_prompt

PROMPT = (
    {"role": "system", "content": "You write kernels."},
    {"role": "user", "content": "Make y = 2x + 1 fast."},
)


def entry(i: int, **kw) -> RetryEntry:
    values = dict(
        row={"task_id": f"t{i}"},
        prompt=PROMPT,
        answer=f"```python\nattempt {i}\n```",
        feedback=f"error {i}",
        status="incorrect",
    )
    return RetryEntry(**{**values, **kw})


def test_fifo_order_and_bound():
    buf = RetryBuffer(capacity=3)
    for i in range(5):
        buf.push(entry(i))
    assert len(buf) == 3
    assert (buf.pushed, buf.dropped) == (5, 2)
    assert [buf.pop().row["task_id"] for _ in range(3)] == ["t2", "t3", "t4"]  # oldest surviving first
    with pytest.raises(IndexError):
        buf.pop()
    with pytest.raises(ValueError, match="capacity"):
        RetryBuffer(0)


def test_replay_probability_matches_p():
    buf = RetryBuffer(capacity=100_000)
    for i in range(20_000):
        buf.push(entry(i))
    plan = buf.plan_replays(20_000, prob=0.1, rng=random.Random(0))
    assert 0.09 < len(plan) / 20_000 < 0.11
    first = min(plan)
    assert plan[first].row["task_id"] == "t0"  # the first replayed group takes the oldest entry
    assert all(e.replays == 1 for e in plan.values())
    assert len(buf) == 20_000 - len(plan)


def test_replay_plan_is_reproducible_and_bounded_by_the_buffer():
    def plan_of(seed):
        buf = RetryBuffer(8)
        for i in range(2):
            buf.push(entry(i))
        return buf.plan_replays(10, prob=1.0, rng=random.Random(seed)), buf

    plan, buf = plan_of(3)
    assert sorted(plan) == [0, 1] and len(buf) == 0  # only two entries to give
    assert plan_of(3)[0].keys() == plan.keys()
    assert RetryBuffer(4).plan_replays(5, prob=1.0, rng=random.Random(0)) == {}
    with pytest.raises(ValueError, match="probability"):
        RetryBuffer(4).plan_replays(5, prob=1.5, rng=random.Random(0))


def test_repair_prompt_holds_the_prompt_the_failed_code_and_the_verifiers_error():
    e = entry(
        7,
        answer=failed_answer(
            "<think>plan</think>\n```python\nclass ModelNew: ...\n```", "class ModelNew: ...\n"
        ),
    )
    messages = repair_prompt(e)
    assert messages[:2] == list(PROMPT)
    assert messages[2] == {"role": "assistant", "content": "```python\nclass ModelNew: ...\n```"}
    assert messages[3] == {"role": "user", "content": "error 7"}
    assert failed_answer("<think>plan</think>no code here", None) == "no code here"
    assert failed_answer("", None) == "(no answer)"


def test_state_round_trip():
    buf = RetryBuffer(4)
    for i in range(6):
        buf.push(entry(i))
    buf.pop()
    again = RetryBuffer(1)
    again.load_state_dict(buf.state_dict())
    assert list(again) == list(buf)
    assert (again.capacity, again.pushed, again.dropped, again.replayed) == (4, 6, 2, 1)
