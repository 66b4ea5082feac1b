"""One anti-cheat finding of the static rules: a stable flag name, the candidate's line and what was
seen. Its own module so that the Python rules (static.py) and the native-source rules (native.py)
share it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    flag: str
    line: int
    detail: str

    def __str__(self) -> str:
        return f"{self.flag} (line {self.line}): {self.detail}"
