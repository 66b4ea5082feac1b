"""The table of the trust corpus: the numbers of its rows (`summarize`), as Markdown
(`render_markdown`), written to OUT/corpus.md and OUT/summary.json (`report`)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path

from benchmark.records import atomic_write_text
from benchmark.stats import geomean
from experiments.trust_corpus.record import NOT_VERIFIED, Row


def summarize(rows: list[Row], not_run: list[str] = ()) -> dict:
    """The numbers of the table; `not_run`: selected tasks without a row (the budget stopped first).
    Pass rates are of verified translations: a --translate-only one counts as translated, not judged."""
    translated = [r for r in rows if r.translated]
    judged = [r for r in translated if r.verdict != NOT_VERIFIED]
    passed = [r for r in judged if r.verdict == "pass" and not r.flags]
    levels = sorted({r.level if r.level is not None else 0 for r in rows})
    per_level = {}
    for level in levels:
        mine = [r for r in rows if (r.level if r.level is not None else 0) == level]
        t = [r for r in mine if r.translated]
        j = [r for r in t if r.verdict != NOT_VERIFIED]
        p = [r for r in j if r.verdict == "pass" and not r.flags]
        per_level[str(level)] = {
            "tried": len(mine),
            "translated": len(t),
            "skipped": len(mine) - len(t),
            "pass": len(p),
            "pass_rate": round(len(p) / len(j), 4) if j else None,
        }
    speedups = [r.speedup for r in passed if r.speedup and r.speedup > 0]
    compiled = [r.translate_s for r in rows if r.translate_s > 0]
    verified = [r.verify_s for r in translated if r.verify_s > 0]
    return {
        "tried": len(rows),
        "translated": len(translated),
        "verified": len(judged),
        "skipped": dict(Counter(r.skip_reason for r in rows if not r.translated).most_common()),
        "verdicts": dict(Counter(r.verdict for r in translated).most_common()),
        "pass": len(passed),
        "pass_rate": round(len(passed) / len(judged), 4) if judged else None,
        "flagged_passes": sum(1 for r in translated if r.verdict == "pass" and r.flags),
        "geomean_speedup": round(geomean(speedups), 4) if speedups else None,
        "median_translate_s": round(statistics.median(compiled), 2) if compiled else None,
        "median_verify_s": round(statistics.median(verified), 2) if verified else None,
        "per_level": per_level,
        "non_pass": [
            {
                "task_id": r.task_id,
                "level": r.level,
                "verdict": r.verdict,
                "flags": list(r.flags),
                "error": r.error,
                "source": r.source,
            }
            for r in sorted(judged, key=lambda r: r.task_id)
            if r not in passed
        ],
        "skips": {
            reason: sorted(r.task_id for r in rows if not r.translated and r.skip_reason == reason)
            for reason in sorted({r.skip_reason for r in rows if not r.translated})
        },
        "not_run": list(not_run),
    }


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _judged(translated: int, passed: int, rate: float | None) -> str:
    """The pass and pass-rate cells: "not verified" where translations exist but none was judged."""
    if translated and rate is None:
        return "not verified | not verified"
    return f"{passed} | {_pct(rate)}"


def render_markdown(summary: dict, context: dict) -> str:
    unverified = summary["translated"] - summary["verified"]
    lines = ["# Inductor trust corpus", ""]
    lines += [f"- {k}: {_cell(v)}" for k, v in context.items()]
    lines += [
        "",
        "| level | tried | translated | skipped | pass | pass rate of translated |",
        "|---|---|---|---|---|---|",
    ]
    for level, s in summary["per_level"].items():
        lines.append(
            f"| {level} | {s['tried']} | {s['translated']} | {s['skipped']} "
            f"| {_judged(s['translated'], s['pass'], s['pass_rate'])} |"
        )
    lines.append(
        f"| all | {summary['tried']} | {summary['translated']} | {summary['tried'] - summary['translated']} "
        f"| {_judged(summary['translated'], summary['pass'], summary['pass_rate'])} |"
    )
    verdicts = summary["verified"] or not summary["translated"]  # else a --translate-only run: none
    if unverified:
        lines += [
            "",
            f"Not verified: {unverified} of {summary['translated']} translations (--translate-only); the pass "
            "columns count verified ones only. Judge them alone on the GPU: "
            "`python -m benchmark.run --model replay:OUT/completions.jsonl`.",
        ]
    if verdicts:
        lines += [
            "",
            f"Flagged passes (must be 0 under strict rules): {summary['flagged_passes']}. "
            f"Geometric-mean speedup of passes over eager (short timing, indicative): "
            f"{summary['geomean_speedup'] if summary['geomean_speedup'] is not None else '-'}. "
            f"Median seconds per task: translation {summary['median_translate_s']}, "
            f"verification {summary['median_verify_s']} (to balance --workers against --lanes).",
        ]
        lines += ["", "## Verdicts of translated candidates", "", "| verdict | count |", "|---|---|"]
        lines += [f"| {v} | {n} |" for v, n in summary["verdicts"].items()]
    else:
        lines += ["", f"Median seconds per task of translation: {summary['median_translate_s']}."]
    lines += ["", "## Skipped (not translated), by reason", "", "| reason | count | tasks |", "|---|---|---|"]
    if not summary["skipped"]:
        lines.append("| (none) | 0 | |")
    for reason, n in summary["skipped"].items():
        ids = summary["skips"].get(reason, [])
        lines.append(
            f"| {_cell(reason)} | {n} | {_cell(', '.join(ids[:8]) + (' ...' if len(ids) > 8 else ''))} |"
        )
    if verdicts:
        lines += ["", "## Non-pass verdicts (translation bug or harness false negative?)", ""]
        if summary["non_pass"]:
            lines += ["| task | verdict | flags | first error line | source |", "|---|---|---|---|---|"]
            for r in summary["non_pass"]:
                lines.append(
                    f"| {r['task_id']} | {r['verdict']} | {_cell(','.join(r['flags']))} | {_cell(r['error'])} "
                    f"| {_cell(r['source'] or '(not saved)')} |"
                )
        else:
            lines.append("None.")
    if summary["not_run"]:
        ids = summary["not_run"]
        lines += [
            "",
            f"## Not run: {len(ids)} selected tasks (the budget ran out first; the same command with the "
            "same --out continues)",
            "",
            ", ".join(ids[:40]) + (f" and {len(ids) - 40} more" if len(ids) > 40 else ""),
        ]
    return "\n".join(lines) + "\n"


def report(rows: list[Row], not_run: list[str], out: Path, context: dict) -> dict:
    summary = summarize(rows, not_run)
    text = render_markdown(summary, context)
    atomic_write_text(out / "corpus.md", text)
    atomic_write_text(out / "summary.json", json.dumps({"context": context, **summary}, indent=2))
    print(text)
    return summary
