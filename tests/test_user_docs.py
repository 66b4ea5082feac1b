"""What users read (the README, docs/, the packages' READMEs and the card and page templates) cites no
work session and no issue number: a user cannot look either up. The work log (dev/) may."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDINAL = r"(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|[a-z]+teenth|twentieth|twenty-[a-z]+|thirtieth)"
WORK_LANGUAGE = re.compile(rf"\b{ORDINAL} session\b|\bwork session|\bissue #?\d+", re.IGNORECASE)


def user_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.md", "*.j2", "*.html"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed if not name.startswith("dev/")]


def citations(text: str) -> list[str]:
    return [m.group(0) for m in WORK_LANGUAGE.finditer(text)]


def test_the_rule_finds_what_it_is_for():
    assert citations("measured in the twenty-third session (issue 17)") == [
        "twenty-third session",
        "issue 17",
    ]
    assert citations("Fourteenth session; see issue #41.") == ["Fourteenth session", "issue #41"]
    assert citations("a process session of its own; the issues a user files") == []


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the repository's git index")
def test_no_user_doc_cites_a_work_session_or_an_issue():
    files = user_files()
    assert any(p.name == "README.md" for p in files)
    found = {str(p.relative_to(ROOT)): c for p in files if p.exists() and (c := citations(p.read_text()))}
    assert not found, f"user docs cite work sessions or issues (move the story to dev/LOG.md): {found}"
