"""The reward adapter against a real Verifier on CPU (a C++-free candidate judged leniently, so
nothing compiles), and the TRL reward-function wrapper."""

from __future__ import annotations

import dataclasses

import pytest

from benchmark.task import load_task
from benchmark.verify.verifier import VerifierConfig
from trainers.rl_rewards import FunctionRewards, Score, VerifierRewards, completion_text, reward_func

RIGHT = "```python\nimport torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x * 2.0 + 1.0\n```"
WRONG = RIGHT.replace("+ 1.0", "+ 3.0")


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


def test_verifier_rewards_follow_the_verdicts(task, build_cache):
    from benchmark.evaluate.harness import EvalConfig
    from benchmark.evaluate.timing import TimingConfig

    cfg = EvalConfig(
        device="cpu",
        trials=2,
        measure=False,
        strict=False,
        timeout_s=600.0,
        cache_dir=build_cache,
        timing=TimingConfig(
            warmup_calls=1, warmup_seconds=0.0, min_runs=3, min_seconds=0.0, max_runs=5, max_seconds=0.1
        ),
    )
    rows = [{"task_id": task.task_id}] * 4
    texts = [RIGHT, WRONG, "I cannot do this.", RIGHT]
    with VerifierRewards({task.task_id: task}, VerifierConfig(eval=cfg, build_workers=1), turns=3) as source:
        scores = source.score(rows, texts, [1, 1, 1, 2])
        executed = source.verifier.stats["executed"]
    assert [s.status for s in scores] == ["pass", "incorrect", "no_code", "pass"]
    assert [s.reward for s in scores] == [1.0, -1.0, -1.0, 1.0]  # q = 0 for the wrong one: every trial fails
    assert executed == 2  # the repeated pass was judged once; no code never reaches the verifier
    assert "does not match the reference" in scores[1].feedback and "attempt 2 of 3" in scores[1].feedback
    assert "no ModelNew" in scores[2].error or "no code" in scores[2].error
    assert scores[0].code.startswith("import torch") and scores[2].code is None


def test_unknown_task_is_a_clear_error(task):
    source = VerifierRewards.__new__(VerifierRewards)
    source.tasks = {task.task_id: task}
    with pytest.raises(KeyError, match="no task 'nope'"):
        source.task({"task_id": "nope"})


def test_reward_func_is_a_trl_reward_function():
    seen = []

    def judge(row, text, turn):
        seen.append((row, text, turn))
        return Score(float(len(text)), "pass")

    fn = reward_func(FunctionRewards(judge))
    out = fn(
        prompts=[[{"role": "user", "content": "p"}]] * 2,
        completions=[[{"role": "assistant", "content": "ab"}], [{"role": "assistant", "content": "abc"}]],
        task_id=["t1", "t2"],
        trainer_state=None,
        completion_ids=[[1], [2]],
    )
    assert out == [2.0, 3.0]
    assert fn.__name__ == "verifier"
    assert seen[1] == ({"task_id": "t2"}, "abc", 1)


def test_function_rewards_must_return_scores():
    with pytest.raises(TypeError, match="Score"):
        FunctionRewards(lambda row, text, turn: 1.0).score([{}], ["x"], [1])
    assert completion_text("plain") == "plain"
    with pytest.raises(TypeError):
        completion_text(3)


def test_score_flags_count_as_cheats():
    assert Score(-1.0, "cheat").cheat
    assert Score(1.0, "pass", flags=("side_stream",)).cheat  # lenient runs keep the flag on a pass
    assert not Score(1.0, "pass").cheat
    assert dataclasses.replace(Score(1.0, "pass"), status="incorrect").passed is False


def test_any_verifier_with_the_verifier_api_can_be_plugged_in(task):
    """The RL rewards take any executor with Verifier's API (e.g. benchmark.verify.ray_executor.RayVerifier)."""
    from concurrent.futures import Future

    from benchmark.verdict import Status, Verdict

    class Recording:
        config = VerifierConfig()

        def __init__(self):
            self.seen, self.closed = [], False

        def submit(self, task, code, **kw):
            self.seen.append((task.task_id, kw["turn"]))
            done = Future()
            done.set_result(Verdict(task_id=task.task_id, status=Status.PASS, speedup=3.0, turn=kw["turn"]))
            return done

        def reward(self, verdict):
            return 42.0

        def close(self):
            self.closed = True

    executor = Recording()
    source = VerifierRewards({task.task_id: task}, turns=2, verifier=executor)
    scores = source.score([{"task_id": task.task_id}], [RIGHT], [2])
    source.close()
    assert executor.seen == [(task.task_id, 2)] and executor.closed
    assert (scores[0].reward, scores[0].status, scores[0].speedup) == (42.0, "pass", 3.0)
