"""Pulling candidate code out of a model's completion.

Real completions wrap the code in prose, reasoning sections (`<think>`, closed or cut off), several
fenced blocks (with or without a language tag, ``` or ~~~, indented inside a list, or never closed
because the output hit its token limit). The rule: drop the reasoning, take the last fenced block
that defines `ModelNew` and parses (the last, because models restate a draft and then fix it),
else the last one that defines it (its syntax error then reaches the model as feedback), else
the completion itself when it is bare code. No code gives a reason, which becomes the no_code
verdict's error."""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

_THINK_TAGS = ("think", "thinking")
_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+.#-]*)[^\n]*\n(?P<body>.*?)"
    r"(?:^[ \t]*(?P=fence)[`~]*[ \t]*$|\Z)",
    re.DOTALL | re.MULTILINE,
)
_DEFINES_MODELNEW = re.compile(r"^[ \t]*(class[ \t]+ModelNew\b|ModelNew[ \t]*(:[^=\n]*)?=)", re.MULTILINE)
_CODE_START = re.compile(r"^(import |from \w|class |def |@|#!|\"\"\"|''')", re.MULTILINE)


@dataclass(frozen=True)
class Extraction:
    code: str | None
    reason: str  # how the code was found, or why none was


def strip_reasoning(text: str) -> str:
    """The completion without its reasoning: closed `<think>` sections removed, everything before
    a closing tag whose opening tag was in the prompt (as some chat templates do) removed, and an
    unclosed section (the model ran out of tokens while thinking) cut to the end."""
    for tag in _THINK_TAGS:
        text = re.sub(rf"<{tag}>.*?</{tag}>", "", text, flags=re.DOTALL | re.IGNORECASE)
        closing = list(re.finditer(rf"</{tag}>", text, flags=re.IGNORECASE))
        if closing:
            text = text[closing[-1].end() :]
        text = re.split(rf"<{tag}>", text, flags=re.IGNORECASE)[0]
    return text


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _clean(body: str) -> str:
    code = textwrap.dedent(body).strip("\n")
    if not _parses(code) and "```" in code:  # a closing fence glued to the last line of code
        head = code.split("```", 1)[0]
        if _parses(head):
            code = head
    return code.rstrip() + "\n"


def extract_code(text: str) -> Extraction:
    """The code that defines ModelNew, or None with the reason."""
    if not text or not text.strip():
        return Extraction(None, "empty completion")
    body = strip_reasoning(text.replace("\r\n", "\n"))
    if not body.strip():
        return Extraction(None, "the completion holds only reasoning (no answer after </think>)")
    blocks = [_clean(m.group("body")) for m in _FENCE.finditer(body)]
    defining = [i for i, code in enumerate(blocks) if _DEFINES_MODELNEW.search(code)]
    if defining:
        parsing = [i for i in defining if _parses(blocks[i])]
        pick = (parsing or defining)[-1]
        where = f"fenced block {pick + 1} of {len(blocks)}"
        if not parsing:
            return Extraction(blocks[pick], f"{where} defines ModelNew but does not parse")
        return Extraction(blocks[pick], f"{where} defines ModelNew")
    if _DEFINES_MODELNEW.search(body):
        bare = body.strip() + "\n"
        if _parses(bare):
            return Extraction(bare, "bare code defining ModelNew")
        start = _CODE_START.search(body)
        if start and _parses(body[start.start() :]):
            return Extraction(
                body[start.start() :].strip() + "\n", "code defining ModelNew after leading prose"
            )
    if blocks:
        return Extraction(None, f"{len(blocks)} code block(s), none defines ModelNew")
    if "ModelNew" in body:
        return Extraction(None, "ModelNew is mentioned but no code block or parsable code defines it")
    return Extraction(None, "no code block and no ModelNew in the completion")
