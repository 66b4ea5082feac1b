"""What the next turn tells the model about its previous answer: the verdict's status, the error
(trimmed: compiler output can run to megabytes of template noise), the mismatch statistics and the
measured speedup, as variables for feedback.j2."""

from __future__ import annotations

from benchmark.verdict import Verdict

MAX_LINE = 400  # characters kept of one line of an error
MAX_CHARS = 3000  # characters kept of the whole error


def trim_error(text: str | None, max_chars: int = MAX_CHARS, max_line: int = MAX_LINE) -> str:
    """Long lines cut, repeated lines dropped, and the head and tail kept when it is still long
    (the first compiler error and the final exception are what a fix needs)."""
    if not text:
        return ""
    lines, seen = [], set()
    for line in text.strip().splitlines():
        line = line.rstrip()
        if len(line) > max_line:
            line = line[:max_line] + " ..."
        if line and line in seen:
            continue
        seen.add(line)
        lines.append(line)
    out = "\n".join(lines)
    if len(out) <= max_chars:
        return out
    head = out[: max_chars * 2 // 3].rsplit("\n", 1)[0]
    tail = out[-(max_chars // 3) :].split("\n", 1)[-1]
    return f"{head}\n[... {len(out) - len(head) - len(tail)} characters cut ...]\n{tail}"


def feedback_context(verdict: Verdict) -> dict:
    c = verdict.correctness
    error = verdict.error
    if verdict.status.value == "incorrect" and c.detail and c.detail not in (error or ""):
        error = f"{c.detail}\n{error or ''}"
    return {
        "status": verdict.status.value,
        "error": trim_error(error),
        "flags": list(verdict.flags),
        "correctness": {
            "trials": c.trials,
            "passed": c.passed,
            "max_abs_err": c.max_abs_err,
            "max_rel_err": c.max_rel_err,
            "detail": c.detail,
        },
        "speedup": verdict.speedup,
    }
