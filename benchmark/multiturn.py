"""Multi-turn feedback runs: which samples get another turn, the conversation each one carries, and
the per-turn record of completions.

Protocol (MusaCoder's evaluation): turn 1 for every sample; then, for each sample
whose latest verdict is not a pass, one more turn whose prompt is the conversation so far plus the
harness's feedback on the last answer; stop a sample as soon as it passes, and after `turns` turns
in all. A pass is never retried for speed: the metrics count a sample's latest turn, so a retry
could turn a pass into a failure. A sample whose request failed in the backend (timeout, context
too long) is not retried either: there is no answer to give feedback on.

The run directory gains completions.jsonl, one record per generated completion (text, token
counts, extraction reason), so a resumed run can rebuild each conversation, and so the token cost
of the run can be summed."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmark import metrics
from benchmark.models import GenerationRequest
from benchmark.prompts import PromptBuilder
from benchmark.records import append_jsonl, atomic_write_text
from benchmark.task import Task
from benchmark.verdict import Verdict

log = logging.getLogger(__name__)
Slot = tuple[str, int, int]  # (task id, sample, turn)


@dataclass(frozen=True)
class CompletionRecord:
    task_id: str
    sample: int
    turn: int
    text: str
    extraction: str = ""  # how the code was found, or why none was
    error: str | None = None  # the backend's failure, when there was no completion
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    cached: bool = False


class CompletionLog:
    """completions.jsonl in the run directory: appended before the verdict of the same turn, so a
    verdict never lacks the completion it judged."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / "completions.jsonl"
        self.records: dict[Slot, CompletionRecord] = {}
        if self.path.exists():
            for lineno, line in enumerate(self.path.read_text().splitlines(), 1):
                try:
                    rec = CompletionRecord(**json.loads(line))
                except (ValueError, TypeError) as e:
                    log.warning("%s:%d: ignoring unreadable record (%s)", self.path, lineno, e)
                    continue
                self.records[(rec.task_id, rec.sample, rec.turn)] = rec

    def append(self, rec: CompletionRecord) -> None:
        """Append and fsync; a slot recorded before (a resumed run generates again what a kill left
        unjudged) replaces its old line instead of adding a second one."""
        slot = (rec.task_id, rec.sample, rec.turn)
        if slot in self.records:
            if self.records[slot] != rec:
                self.records[slot] = rec
                atomic_write_text(
                    self.path, "".join(json.dumps(asdict(r)) + "\n" for r in self.records.values())
                )
            return
        append_jsonl(self.path, json.dumps(asdict(rec)))
        self.records[slot] = rec

    def get(self, task_id: str, sample: int, turn: int) -> CompletionRecord | None:
        return self.records.get((task_id, sample, turn))

    def usage(self) -> dict | None:
        """Token counts summed over the run's completions (cached ones included, counted once);
        None when the backend reports no counts."""
        recs = [
            r for r in self.records.values() if r.prompt_tokens is not None or r.completion_tokens is not None
        ]
        if not recs:
            return None
        return {
            "prompt_tokens": sum(r.prompt_tokens or 0 for r in recs),
            "completion_tokens": sum(r.completion_tokens or 0 for r in recs),
            "completions": len(self.records),
            "from_cache": sum(r.cached for r in self.records.values()),
        }


def verdicts_by_slot(verdicts: Iterable[Verdict]) -> dict[Slot, Verdict]:
    return {(v.task_id, v.sample, v.turn): v for v in verdicts}


def conversation(
    task: Task,
    sample: int,
    turn: int,
    prompts: PromptBuilder,
    by_slot: dict[Slot, Verdict],
    completions: CompletionLog,
    turns: int,
) -> tuple[dict, ...] | None:
    """The messages of `turn` for one sample, rebuilt from the recorded turns before it; None when
    a record is missing (a run directory from before completions were logged)."""
    messages = prompts.first_turn(task)
    for t in range(1, turn):
        verdict = by_slot.get((task.task_id, sample, t))
        answer = completions.get(task.task_id, sample, t)
        if verdict is None or answer is None:
            return None
        messages = prompts.next_turn(messages, answer.text, verdict, turns)
    return messages


def open_samples(
    turn: int,
    task_ids: Iterable[str],
    samples: int,
    by_slot: Mapping[Slot, Verdict],
    finished: Callable[[Verdict], bool] = lambda v: v.correct,
) -> Iterator[tuple[str, int]]:
    """The (task id, sample) pairs that get turn `turn`: not judged at it yet and, after turn 1,
    judged at the turn before without `finished` (a pass; the builder's: a pass it keeps). The
    one rule of who goes on, for the benchmark's turns and the dataset builder's teacher turns."""
    for task_id in task_ids:
        for s in range(samples):
            if (task_id, s, turn) in by_slot:
                continue
            if turn > 1:
                before = by_slot.get((task_id, s, turn - 1))
                if before is None or finished(before):
                    continue
            yield task_id, s


def plan_turn(
    turn: int,
    tasks: list[Task],
    samples: int,
    verdicts: list[Verdict],
    completions: CompletionLog,
    prompts: PromptBuilder | None,
    turns: int,
    skip_tasks: Iterable[str] = (),
) -> list[GenerationRequest]:
    """The requests of one turn: samples without a verdict for it whose previous turn failed (every
    sample, for turn 1). Without prompts (replay), requests carry no messages."""
    by_slot = verdicts_by_slot(verdicts)
    skip = set(skip_tasks)
    by_id = {task.task_id: task for task in tasks if task.task_id not in skip}
    requests = []
    for task_id, s in open_samples(turn, by_id, samples, by_slot):
        task = by_id[task_id]
        if turn > 1:
            prev = completions.get(task_id, s, turn - 1)
            if prev is not None and prev.error is not None:
                continue
            if prompts is not None and prev is None:
                log.warning(
                    "%s sample %d: no recorded completion of turn %d, so no turn %d",
                    task_id,
                    s,
                    turn - 1,
                    turn,
                )
                continue
        messages: tuple[dict, ...] = ()
        if prompts is not None:
            messages = conversation(task, s, turn, prompts, by_slot, completions, turns)
            if messages is None:
                log.warning("%s sample %d: incomplete history, so no turn %d", task_id, s, turn)
                continue
        requests.append(GenerationRequest(task=task, sample=s, turn=turn, messages=messages))
    return requests


def per_turn_metrics(
    verdicts: list[Verdict], ks: tuple[int, ...], broken: Iterable[str] = (), samples_per_task: int = 1
) -> dict[str, dict]:
    """Metrics after each turn t: every sample counted at its latest turn <= t, and each `broken` task
    as `samples_per_task` failed samples, so the last turn agrees with the overall metrics. fast_1 is
    None, as in benchmark.metrics, after a turn at which no correct sample had been timed."""
    broken = tuple(broken)
    last = max((v.turn for v in verdicts), default=0)
    out = {}
    for t in range(1, last + 1):
        m = metrics.compute([v for v in verdicts if v.turn <= t], ks, broken, samples_per_task, resamples=0)
        out[str(t)] = {
            "pass_rate": m.fast_p[0.0],
            "pass_at_k": {str(k): v for k, v in m.pass_at_k.items()},
            "fast_1": m.fast_p[1.0],
            "evaluated": sum(v.turn == t for v in verdicts),
        }
    return out
