"""Verdict -> scalar reward, with the shaping of MooreEval:

    s = -1                                  extraction, build or runtime failure, timeout, cheat,
                                            or no correct trial (q = 0)
    s = -0.5 + 0.5 q                        partially correct (0 < q < 1, q = fraction of trials passed)
    s = 1 + lam * min(max(nu - 1, 0), nu_max)   correct and legal, nu = speedup over eager

lam and nu_max were not published; the defaults (0.5 and 4.0) give a correct kernel at eager
speed 1.0 and cap the reward at 3.0 for a 5x kernel, so speed matters but never outweighs
correctness by more than the gap between wrong and right."""

from __future__ import annotations

from dataclasses import dataclass

from benchmark.verdict import Status, Verdict


@dataclass(frozen=True)
class RewardConfig:
    lam: float = 0.5  # weight of the speedup bonus
    nu_max: float = 4.0  # cap on (speedup - 1) in the bonus

    def __post_init__(self):
        if self.lam < 0 or self.nu_max < 0:
            raise ValueError("lam and nu_max must be non-negative")


def shaped_reward(verdict: Verdict, config: RewardConfig = RewardConfig()) -> float:
    if verdict.status is Status.PASS:
        nu = verdict.speedup if verdict.speedup is not None else 1.0
        return 1.0 + config.lam * min(max(nu - 1.0, 0.0), config.nu_max)
    if verdict.status is Status.INCORRECT:
        q = verdict.correctness.fraction
        return -1.0 if q <= 0.0 else -0.5 + 0.5 * q
    return -1.0
