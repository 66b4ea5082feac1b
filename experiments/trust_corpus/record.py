"""The record of one finished task of the trust corpus (`Row`, a line of OUT/results.jsonl) and the
one-line error it keeps."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

NOT_VERIFIED = "not_verified"  # the verdict of a --translate-only translation: written, never judged


@dataclass(frozen=True)
class Row:
    """One finished task: translated and judged (or, with --translate-only, not: NOT_VERIFIED), or
    skipped with the reason."""

    task_id: str
    level: int | None
    translated: bool
    variant: str = ""  # the Inductor variant whose translation was verified
    skip_reason: str | None = None  # stable code (teacher skip reasons, plus timeout and worker_crash)
    skips: tuple[str, ...] = ()  # "variant: reason: detail" of every variant that did not translate
    verdict: str | None = None
    flags: tuple[str, ...] = ()
    error: str | None = None  # the first informative line of the verdict's or the worker's error
    speedup: float | None = None
    translate_s: float = 0.0
    verify_s: float = 0.0
    attempts: int = 0  # verifications run (a second one after running out of device memory)
    source: str | None = None  # the candidate's file under OUT/failures/, for a rejected candidate

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["skips"], d["flags"] = list(self.skips), list(self.flags)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Row:
        known = {f.name for f in dataclasses.fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        return cls(**{**d, "skips": tuple(d.get("skips") or ()), "flags": tuple(d.get("flags") or ())})


def first_line(text: str | None, width: int = 200) -> str | None:
    """The line that says what went wrong, cut to `width`: the first line, or for a Python traceback
    its last line (the exception)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not lines:
        return None
    if lines[0].startswith("Traceback (most recent call last)"):
        return lines[-1][:width]
    return lines[0][:width]
