"""The MooreEval reward shaping, value by value."""

import pytest

from benchmark.verdict import Correctness, Status, Verdict
from benchmark.verify.reward import RewardConfig, shaped_reward


def verdict(status, speedup=None, passed=0, trials=5):
    return Verdict(
        task_id="t", status=status, speedup=speedup, correctness=Correctness(trials=trials, passed=passed)
    )


@pytest.mark.parametrize(
    "status", [Status.COMPILE_ERROR, Status.RUNTIME_ERROR, Status.TIMEOUT, Status.NO_CODE, Status.CHEAT]
)
def test_failures_are_minus_one(status):
    assert shaped_reward(verdict(status, passed=5)) == -1.0


def test_partial_correctness():
    assert shaped_reward(verdict(Status.INCORRECT, passed=0)) == -1.0
    assert shaped_reward(verdict(Status.INCORRECT, passed=2, trials=4)) == pytest.approx(-0.25)
    assert shaped_reward(verdict(Status.INCORRECT, passed=4, trials=5)) == pytest.approx(-0.1)


def test_correct_with_speedup_bonus_and_cap():
    cfg = RewardConfig(lam=0.5, nu_max=4.0)
    assert shaped_reward(verdict(Status.PASS, speedup=0.5), cfg) == 1.0
    assert shaped_reward(verdict(Status.PASS, speedup=1.0), cfg) == 1.0
    assert shaped_reward(verdict(Status.PASS, speedup=3.0), cfg) == pytest.approx(2.0)
    assert shaped_reward(verdict(Status.PASS, speedup=50.0), cfg) == pytest.approx(3.0)
    assert shaped_reward(
        verdict(Status.PASS, speedup=3.0), RewardConfig(lam=0.1, nu_max=1.0)
    ) == pytest.approx(1.1)


def test_bad_config():
    with pytest.raises(ValueError):
        RewardConfig(lam=-1)
