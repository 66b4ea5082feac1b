"""experiments.trust_corpus.report: the numbers and the table of recorded rows."""

from __future__ import annotations

import pytest

from experiments.trust_corpus import record, report


def test_summary_and_markdown_from_recorded_rows():
    rows = [
        record.Row("level1/a", 1, True, verdict="pass", speedup=2.0),
        record.Row("level1/b", 1, True, verdict="pass", speedup=0.5),
        record.Row(
            "level2/c", 2, True, verdict="incorrect", error="max abs err 0.3 | at [1]", source="failures/c.py"
        ),
        record.Row("level2/d", 2, False, skip_reason="extern_kernel"),
        record.Row("level3/e", 3, False, skip_reason="extern_kernel"),
        record.Row("level3/f", 3, False, skip_reason="timeout"),
    ]
    s = report.summarize(rows, ["level4/g"])
    assert (s["tried"], s["translated"], s["pass"]) == (6, 3, 2)
    assert s["pass_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert s["skipped"] == {"extern_kernel": 2, "timeout": 1}
    assert s["verdicts"] == {"pass": 2, "incorrect": 1}
    assert s["geomean_speedup"] == pytest.approx(1.0)
    assert s["per_level"]["2"] == {"tried": 2, "translated": 1, "skipped": 1, "pass": 0, "pass_rate": 0.0}
    md = report.render_markdown(s, {"gpu": "H200"})
    assert "| all | 6 | 3 | 3 | 2 | 66.7% |" in md
    assert "| level2/c | incorrect |  | max abs err 0.3 \\| at [1] | failures/c.py |" in md
    assert "| extern_kernel | 2 | level2/d, level3/e |" in md
    assert "level4/g" in md


def test_pass_rates_leave_out_translations_that_were_not_verified():
    rows = [
        record.Row("level1/a", 1, True, verdict="pass", speedup=2.0),
        record.Row("level1/b", 1, True, verdict=record.NOT_VERIFIED),
        record.Row("level2/c", 2, True, verdict=record.NOT_VERIFIED),
    ]
    s = report.summarize(rows)
    assert (s["translated"], s["verified"], s["pass"], s["pass_rate"]) == (3, 1, 1, 1.0)
    assert s["non_pass"] == [] and s["verdicts"] == {record.NOT_VERIFIED: 2, "pass": 1}
    md = report.render_markdown(s, {})
    assert "| 1 | 2 | 2 | 0 | 1 | 100.0% |" in md and "| 2 | 1 | 1 | 0 | not verified | not verified |" in md
    assert "Not verified: 2 of 3" in md and "## Non-pass verdicts" in md
