"""Pulling candidate code out of a model's completion."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_DEFINES_MODELNEW = re.compile(r"^\s*(class\s+ModelNew\b|ModelNew\s*=)", re.MULTILINE)


@dataclass(frozen=True)
class Extraction:
    code: str | None
    reason: str  # how the code was found, or why none was


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


def extract_code(text: str) -> Extraction:
    """The block that defines ModelNew: fenced (any tag, or an unclosed fence), else the bare text."""
    if not text or not text.strip():
        return Extraction(None, "empty completion")
    body = _THINK.sub("", text)
    blocks = [(m.group(2).lower(), m.group(3)) for m in _FENCE.finditer(body)]
    with_model = [code for _, code in blocks if _DEFINES_MODELNEW.search(code)]
    if with_model:
        return Extraction(with_model[-1].rstrip() + "\n", f"fenced block defining ModelNew ({len(blocks)} blocks)")
    if _DEFINES_MODELNEW.search(body) and _parses(body):
        return Extraction(body.strip() + "\n", "bare code defining ModelNew")
    if blocks:
        return Extraction(None, f"{len(blocks)} code block(s), none defines ModelNew")
    return Extraction(None, "no code block and no ModelNew in the completion")
