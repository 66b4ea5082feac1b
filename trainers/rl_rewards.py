"""Rewards for RL: the adapter between a batch of completions and the verifier.

The trainer never judges code itself. `VerifierRewards` extracts the code of each completion
(`benchmark.extract`), submits every (task, code) pair of the batch to one `benchmark.verify.verifier.Verifier`
at once (builds and executions overlap in its pools), waits, and turns each Verdict into a `Score`:
the shaped reward (`Verifier.reward`, MooreEval's shaping from `benchmark.verify.reward`), the status, the
speedup, the anti-cheat flags, and the feedback message the next turn would show the policy
(rendered by the benchmark's own feedback template, so RL and multi-turn evaluation speak alike).
Identical (task, code) pairs in one run are judged once (`cache`), which matters when a policy
repeats itself.

The verifier is any `benchmark.verify.verifier.VerifierBase`: the local pools (`Verifier`),
`benchmark.verify.ray_executor.RayVerifier` (builds and executions scheduled on a Ray cluster), which is
how a large run keeps candidate execution off the training GPUs, or `benchmark.serve.RemoteVerifier`.

`FunctionRewards` wraps a plain Python function instead; it exists for CPU tests and smoke runs,
where no verifier device is available, and is never a substitute for the verifier in training.
All are `RewardSource`s; `reward_func` turns any into a TRL reward function, so a source can also
drive an unmodified `trl.GRPOTrainer`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from benchmark.extract import extract_code
from benchmark.prompts import PromptBuilder, PromptConfig
from benchmark.task import Task, load_task, sha256_text
from benchmark.verdict import Status, Verdict
from benchmark.verify.verifier import Verifier, VerifierConfig

logger = logging.getLogger(__name__)

TRL_KWARGS = ("trainer_state", "log_extra", "log_metric", "completion_ids", "environments")


@dataclass(frozen=True)
class Score:
    """The judgement of one completion, in the form the trainer needs."""

    reward: float
    status: str  # a benchmark.verdict.Status value
    speedup: float | None = None
    flags: tuple[str, ...] = ()
    error: str | None = None
    feedback: str = ""  # the user message of the next turn, telling the policy what went wrong
    code: str | None = None  # the extracted code (None: no code found)

    @property
    def passed(self) -> bool:
        return self.status == Status.PASS.value

    @property
    def cheat(self) -> bool:
        """Flagged by anti-cheat (in strict mode that is the cheat status; lenient runs keep the flags)."""
        return self.status == Status.CHEAT.value or bool(self.flags)


class RewardSource(Protocol):
    def score(self, rows: Sequence[dict], completions: Sequence[str], turns: Sequence[int]) -> list[Score]:
        """One Score per completion; rows are the dataset rows (task_id, ...), turns the 1-based turn."""
        ...

    def close(self) -> None: ...


def completion_text(completion) -> str:
    """TRL hands conversational completions as [{"role": "assistant", "content": ...}]."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    raise TypeError(f"cannot read a completion of type {type(completion).__name__}")


def reward_func(source: RewardSource, name: str = "verifier") -> Callable[..., list[float]]:
    """A TRL reward function (prompts, completions, **dataset columns) -> rewards, scoring turn 1."""

    def score(prompts, completions, **columns) -> list[float]:
        data = {k: v for k, v in columns.items() if k not in TRL_KWARGS}
        rows = [{k: v[i] for k, v in data.items()} for i in range(len(completions))]
        texts = [completion_text(c) for c in completions]
        return [s.reward for s in source.score(rows, texts, [1] * len(texts))]

    score.__name__ = name
    return score


class VerifierRewards:
    """Scores completions with the verifier: the one evaluation path of the project."""

    def __init__(
        self,
        tasks: dict[str, Task],
        config: VerifierConfig | None = None,
        prompts: PromptConfig | None = None,
        turns: int = 3,
        cache: bool = True,
        model: str = "",
        verifier=None,
    ):
        """`verifier`: a VerifierBase (submit, reward, close, config) to use instead of building local
        pools from `config`, e.g. a RayVerifier."""
        if not tasks:
            raise ValueError("VerifierRewards needs at least one task")
        self.tasks = tasks
        self.turns = turns
        self.model = model
        self.builder = PromptBuilder(prompts or PromptConfig())
        self.verifier = verifier if verifier is not None else Verifier(config or VerifierConfig())
        self._cache: dict[tuple[str, str], Verdict] | None = {} if cache else None
        self._samples = 0

    def close(self) -> None:
        self.verifier.close()

    def __enter__(self) -> VerifierRewards:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def task(self, row: dict) -> Task:
        task_id = row.get("task_id")
        if task_id not in self.tasks:
            raise KeyError(
                f"no task {task_id!r} among the {len(self.tasks)} tasks the rewards were built with"
            )
        return self.tasks[task_id]

    def score(self, rows: Sequence[dict], completions: Sequence[str], turns: Sequence[int]) -> list[Score]:
        if not (len(rows) == len(completions) == len(turns)):
            raise ValueError("rows, completions and turns must have the same length")
        pending = []
        inflight = {}  # (task, code) -> the future of its first submission in this batch
        for row, text, turn in zip(rows, completions, turns, strict=True):
            task = self.task(row)
            extraction = extract_code(text)
            sample = self._samples
            self._samples += 1
            key = (task.hash, sha256_text(extraction.code)) if extraction.code else None
            cached = self._cache.get(key) if self._cache is not None and key else None
            if extraction.code is None:
                verdict = Verdict.unmeasured(
                    Status.NO_CODE,
                    extraction.reason,
                    task_id=task.task_id,
                    sample=sample,
                    turn=turn,
                    level=task.level,
                    model=self.model,
                    task_hash=task.hash,
                    device=self.verifier.config.eval.device,
                    strict=self.verifier.config.eval.strict,
                )
                pending.append((text, extraction.code, verdict, None))
            elif cached is not None:
                pending.append((text, extraction.code, cached, None))
            else:
                future = inflight.get(key) if self._cache is not None else None
                if future is None:
                    future = self.verifier.submit(
                        task, extraction.code, sample=sample, turn=turn, model=self.model
                    )
                    inflight[key] = future
                pending.append((text, extraction.code, None, (future, key)))
        scores = []
        for text, code, verdict, waiting in pending:
            if waiting is not None:
                future, key = waiting
                verdict = future.result()
                if self._cache is not None:
                    self._cache[key] = verdict
            scores.append(self._score(text, code, verdict))
        return scores

    def _score(self, text: str, code: str | None, verdict: Verdict) -> Score:
        feedback = self.builder.next_turn((), text, verdict, self.turns)[-1]["content"]
        return Score(
            reward=self.verifier.reward(verdict),
            status=verdict.status.value,
            speedup=verdict.speedup,
            flags=verdict.flags,
            error=verdict.error,
            feedback=feedback,
            code=code,
        )


class FunctionRewards:
    """Scores completions with a Python function `fn(row, completion, turn) -> Score` (tests, smoke runs)."""

    def __init__(self, fn: Callable[[dict, str, int], Score]):
        self.fn = fn

    def score(self, rows: Sequence[dict], completions: Sequence[str], turns: Sequence[int]) -> list[Score]:
        scores = [self.fn(row, text, turn) for row, text, turn in zip(rows, completions, turns, strict=True)]
        for s in scores:
            if not isinstance(s, Score):
                raise TypeError(f"a reward function must return Score records, got {type(s).__name__}")
        return scores

    def close(self) -> None:
        pass


def task_from_source(task_id: str, source: str, root: Path) -> Task:
    """A Task from program text: written once under `root` (keyed by its hash), then loaded, so the
    verifier's sandboxed children can import it."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", task_id.rsplit("/", 1)[-1]) or "task"
    folder = Path(root) / sha256_text(source)[:16]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    if not path.exists():
        path.write_text(source)
    return replace(load_task(path), task_id=task_id)
