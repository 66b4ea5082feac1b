"""What the Python rules (static.py) and the native-source rules (native.py, native_sources.py)
share without importing each other: a finding (a stable flag name, the candidate's line and what
was seen) and the dotted name of an AST expression."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    flag: str
    line: int
    detail: str

    def __str__(self) -> str:
        return f"{self.flag} (line {self.line}): {self.detail}"


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for an attribute chain on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None
