"""The typed records of the arms' SFT model: a training run (`SFTRun`), one attempt of the gate with its
before-RL evaluation (`SFTAttempt`) and the cache entry it is (`CacheUse`), what the gate decided
(`GateResult`) and the model every arm starts from (`SFTModel`). Each says which item of rl_demo.json
it becomes."""

from __future__ import annotations

import dataclasses
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class SFTRun:
    """One SFT training: where its model is, and the loss summary rl_demo.json records."""

    model_dir: Path
    steps: int
    loss_first: float
    loss_last: float
    nll_last: float | None  # CuSeT's unweighted loss (cuset/nll), the one comparable with plain SFT's
    seconds: float
    stopped_by_deadline: bool
    weights: str | None = None  # `weights_digest` of the model: equal digests, one model

    def summary(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "model_dir"}


@dataclasses.dataclass(frozen=True)
class CacheUse:
    """An attempt's "cache" in rl_demo.json: the --sft-cache entry its model is, or would have been."""

    key: str
    dir: str
    reused: bool
    created: str | None  # ISO time the entry was written; None: not written (see not_written)
    not_written: str | None = None
    evaluated_again: str | None = None  # why a reused model's before-RL evaluation was made again


@dataclasses.dataclass(frozen=True)
class SFTAttempt:
    """One try of the SFT gate: its training run and the before-RL evaluation of its model, trained in
    the call or read from the cache (`cache`)."""

    number: int  # from 1
    seed: int  # the training seed (init and data order)
    run: SFTRun
    before: dict  # `evaluate` of the "rl" and "test" splits
    eval_s: float
    wall_s: float  # train_sft and the evaluation: what another attempt is expected to take
    cache: CacheUse | None = None
    gpu: str | None = None  # where the before-RL evaluation ran: speedups are that GPU's

    @property
    def rl_pass_rate(self) -> float:
        return self.before["rl"]["pass_rate"]

    def record(self) -> dict:
        """Its item of rl_demo.json's "sft_attempts"."""
        return {
            "attempt": self.number,
            "seed": self.seed,
            **self.run.summary(),
            "eval_s": self.eval_s,
            "wall_s": self.wall_s,
            "rl_pass_rate": self.rl_pass_rate,
            "test_pass_rate": self.before["test"]["pass_rate"],
            **({"cache": dataclasses.asdict(self.cache)} if self.cache else {}),
        }


@dataclasses.dataclass(frozen=True)
class GateResult:
    """What the SFT gate decided: rl_demo.json's "sft" holds these fields beside the kept attempt's
    loss summary."""

    gate: str  # "passed": the kept model meets the minimum; "failed": the best of those tried does not
    min_pass: float
    attempts_allowed: int
    attempts_made: int
    attempt: int  # the kept one
    seed: int  # its training seed
    rl_pass_rate: float  # its pass rate on the RL split
    stopped: str | None  # why the gate stopped short of a passing model (None where it passed)


@dataclasses.dataclass(frozen=True)
class SFTModel:
    """The SFT model every RL arm of a call starts from: its folder, rl_demo.json's "sft" record (the
    kept attempt's loss summary, its cache use and `GateResult`), every attempt's record and the kept
    model's before-RL evaluation."""

    model_dir: Path
    sft: dict
    attempts: list[dict]
    before: dict
    eval_s: float  # one before-RL evaluation: the reserve each arm keeps for its own (`arm_deadline`)

    @property
    def passed(self) -> bool:
        return self.sft["gate"] == "passed"
