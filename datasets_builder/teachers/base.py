"""What every teacher produces: candidates (solution files for a task, judged later by the strict
verifier) and skips (tasks a teacher could not answer, with a stable reason code, so the card can
say what was skipped and why)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from benchmark.task import sha256_text


@dataclass(frozen=True)
class Candidate:
    task_id: str
    teacher: str  # "inductor", "model:NAME", "mutation"
    code: str | None  # the candidate file (None: the teacher's answer held no code)
    variant: str = ""  # teacher setting (Inductor variant, ...)
    sample: int = 0
    turn: int = 1
    completion: str | None = None  # a model's raw answer, when there is one
    messages: tuple[dict, ...] = ()  # the conversation the answer replies to (model teachers)
    parent: str | None = None  # candidate id of the attempt this one follows (repair turns, mutations)
    info: dict = field(default_factory=dict)  # teacher notes: kernels, launches, extraction reason, ...

    @property
    def candidate_id(self) -> str:
        key = "\0".join(
            [self.task_id, self.teacher, self.variant, str(self.sample), str(self.turn), self.code or ""]
        )
        return sha256_text(key)[:16]

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["messages"] = [dict(m) for m in self.messages]
        d["candidate_id"] = self.candidate_id
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Candidate:
        d = {k: v for k, v in d.items() if k != "candidate_id"}
        d["messages"] = tuple(d.get("messages") or ())
        return cls(**d)


@dataclass(frozen=True)
class Skip:
    task_id: str
    teacher: str
    variant: str
    reason: str  # stable code: extern_kernel, fallback_op, graph_break, compile_error, ...
    detail: str

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
