"""Buffered Dynamic Retry (BDR): recover a learning signal from prompts whose whole group failed.

In GRPO a group whose every rollout fails has zero reward variance, hence zero advantage: the prompt
teaches nothing, and hard prompts stay hard. BDR keeps such prompts in a bounded FIFO, together with
one failed answer and the verifier's feedback on it, and with probability p per group replaces a
fresh prompt of the next generation batch by the oldest buffered one, turned into a repair prompt:

    [original prompt ...] + assistant: the failed code + user: the verifier's feedback ("Fix it ...")

so the policy practises repairing exactly the failures it produced. The failed answer kept is the
group's best first-turn attempt (highest reward), as the most promising starting point. A replayed
prompt whose group fails again goes back in (with its new failure) until it has been replayed
`max_replays` times; when the buffer is full the oldest entry is dropped.

Every process of a multi-GPU run holds an identical buffer (it is fed with gathered results) and
draws its replay decisions from an identically seeded generator, so a group that spans two
processes is replaced on both or on neither.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace

from benchmark.prompts.render import continued, shown_answer


@dataclass(frozen=True)
class RetryEntry:
    row: dict  # the dataset row's other columns (task_id, ...), so the replay is scored on its task
    prompt: tuple[dict, ...]  # the original first-turn messages (never an earlier repair prompt)
    answer: str  # the failed attempt: its code in a fenced block, or the raw completion when none was found
    feedback: str  # the verifier's feedback on it, as the next user turn
    status: str  # the verdict status of the failed attempt
    replays: int = 0  # how many times this prompt has been replayed


def failed_answer(completion: str, code: str | None) -> str:
    """What the repair prompt shows as the failed attempt: the extracted code, fenced, or the
    completion without its reasoning when no code was found (so the feedback still makes sense)."""
    if code:
        return f"```python\n{code.rstrip()}\n```"
    return shown_answer(completion)


def repair_prompt(entry: RetryEntry) -> list[dict]:
    """The replay's messages: the original conversation, the failed attempt, the feedback."""
    return list(continued((dict(m) for m in entry.prompt), entry.answer, entry.feedback))


class RetryBuffer:
    """A bounded FIFO of failed prompts. `push` appends (dropping the oldest when full), `pop` takes
    the oldest."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"the retry buffer needs a capacity of at least 1, got {capacity}")
        self.capacity = capacity
        self._entries: deque[RetryEntry] = deque()
        self.pushed = 0
        self.dropped = 0
        self.replayed = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[RetryEntry]:
        return iter(self._entries)

    def push(self, entry: RetryEntry) -> None:
        if len(self._entries) == self.capacity:
            self._entries.popleft()
            self.dropped += 1
        self._entries.append(entry)
        self.pushed += 1

    def pop(self) -> RetryEntry:
        if not self._entries:
            raise IndexError("pop from an empty retry buffer")
        self.replayed += 1
        return self._entries.popleft()

    def plan_replays(self, num_groups: int, prob: float, rng: random.Random) -> dict[int, RetryEntry]:
        """Decide, for each of `num_groups` groups in order, whether it becomes a replay (probability
        `prob`, while entries remain); the chosen entries leave the buffer with their replay count
        raised. One draw per group whatever the buffer holds, so the decisions stay aligned across
        processes."""
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"the replay probability must be in [0, 1], got {prob}")
        plan = {}
        for group in range(num_groups):
            draw = rng.random()
            if self._entries and draw < prob:
                entry = self.pop()
                plan[group] = replace(entry, replays=entry.replays + 1)
        return plan

    def state_dict(self) -> dict:
        return {
            "capacity": self.capacity,
            "entries": [vars(e).copy() | {"prompt": list(e.prompt)} for e in self._entries],
            "pushed": self.pushed,
            "dropped": self.dropped,
            "replayed": self.replayed,
        }

    def load_state_dict(self, state: dict) -> None:
        self.capacity = state["capacity"]
        self._entries = deque(
            RetryEntry(**{**e, "prompt": tuple(e["prompt"])}) for e in state["entries"][-self.capacity :]
        )
        self.pushed, self.dropped, self.replayed = state["pushed"], state["dropped"], state["replayed"]
