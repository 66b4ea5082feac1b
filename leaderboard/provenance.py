"""How an entry was produced, as its page shows it: the command once, the resumes of the run, the
model and backend, with the producer's absolute paths shown relative.

A run records its command line as typed on the machine that made it, so its paths (`--out
/root/out/run`, `replay:/tmp/x/completions.jsonl`) name folders of that machine that mean nothing
to a reader. The page shows each absolute path by its last component (`--out run`,
`replay:completions.jsonl`); the submission file beside the page keeps the record as written."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from leaderboard.submission import Submission

# An absolute (or home-relative) path: at the start, after a space, quote, ':' or '='; never the
# '//' of a URL.
_ABSOLUTE = re.compile(r"""(?:^|(?<=[\s:="']))~?/(?!/)[^\s'"]*""")


def relative(text: str) -> str:
    """`text` with every absolute path replaced by its last component."""

    def last(m: re.Match[str]) -> str:
        parts = [p for p in m.group(0).split("/") if p and p != "~"]
        return parts[-1] if parts else m.group(0)

    return _ABSOLUTE.sub(last, text)


def _relative_values(value: Any) -> Any:
    if isinstance(value, str):
        return relative(value)
    if isinstance(value, dict):
        return {k: _relative_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_relative_values(v) for v in value]
    return value


@dataclass(frozen=True)
class Resume:
    started: str
    command: str  # "" when it is the run's own command again


@dataclass(frozen=True)
class Provenance:
    """What a page says about how an entry was produced."""

    command: str
    resumes: tuple[Resume, ...]
    model: str
    backend: dict[str, Any]

    @property
    def same_command_resumes(self) -> list[str]:
        """When the run was resumed with its own command, oldest first."""
        return [r.started for r in self.resumes if not r.command]

    @property
    def other_commands(self) -> list[Resume]:
        """Resumes whose command differed from the run's (each distinct command once)."""
        seen: set[str] = set()
        out = []
        for r in self.resumes:
            if r.command and r.command not in seen:
                seen.add(r.command)
                out.append(r)
        return out


def provenance(sub: Submission) -> Provenance:
    command = relative(str(sub.run.get("command", "")))
    resumes = []
    for r in sub.run.get("resumed") or []:
        again = relative(str(r.get("command", "")))
        resumes.append(Resume(str(r.get("started", "")), "" if again == command else again))
    return Provenance(
        command=command,
        resumes=tuple(resumes),
        model=relative(str(sub.run.get("model", ""))),
        backend=_relative_values(sub.run.get("backend") or {}),
    )
