"""The submission file: one JSON document per leaderboard entry, under leaderboard/submissions/.

It carries everything the site and a later verification need, so neither has to find the original
run directory: who submitted (name, org, notes, labels), the run's run.json and summary.json as
written, every verdict of results.jsonl, the level and families of each task (copied from the suite
version the run used), the candidate source of every passing sample keyed by its code hash (the run
directory does not keep completions; the source is read from the harness cache at submit time), and
the history of verification runs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.records import atomic_write_text
from benchmark.verdict import Verdict

SUBMISSION_FORMAT = 1
SUBMISSIONS_DIR = Path(__file__).parent / "submissions"

# Labels the site explains; any other label is shown as given.
CPU_RUN = "CPU run"
EXAMPLE = "example"
PARTIAL = "partial"
NO_CODE = "code withheld"


class SubmissionFormatError(ValueError):
    """A submission file that cannot be read; the message names the file and the problem."""


@dataclass
class Submission:
    slug: str  # file stem and page name
    name: str
    run: dict[str, Any]  # run.json as the run wrote it
    summary: dict[str, Any]  # summary.json as the run wrote it
    verdicts: list[Verdict]
    tasks: dict[str, dict[str, Any]]  # task id -> {"level": int | None, "tags": [...]}
    org: str = ""
    notes: str = ""
    labels: list[str] = field(default_factory=list)
    submitted: str = ""  # ISO timestamp
    code: dict[str, str] = field(default_factory=dict)  # code_hash -> candidate source (passing samples)
    verification: list[dict[str, Any]] = field(default_factory=list)  # one record per verify run
    path: Path | None = None

    @property
    def device(self) -> str:
        return str(self.run.get("device", ""))

    @property
    def gpu(self) -> str:
        env = self.run.get("environment") or {}
        return env.get("gpu") or ("CPU" if self.device == "cpu" else "unknown")

    @property
    def samples_per_task(self) -> int:
        return int((self.run.get("sampling") or {}).get("samples", 1))

    @property
    def verified(self) -> bool | None:
        """True/False after the latest verification run; None when never verified."""
        return self.verification[-1]["verified"] if self.verification else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SUBMISSION_FORMAT,
            "slug": self.slug,
            "name": self.name,
            "org": self.org,
            "notes": self.notes,
            "labels": list(self.labels),
            "submitted": self.submitted,
            "run": self.run,
            "summary": self.summary,
            "tasks": self.tasks,
            "results": [v.to_dict() for v in self.verdicts],
            "code": self.code,
            "verification": self.verification,
        }

    def save(self, path: Path | None = None) -> Path:
        path = Path(path or self.path or SUBMISSIONS_DIR / f"{self.slug}.json")
        atomic_write_text(path, json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n")
        self.path = path
        return path


def load_submission(path: str | Path) -> Submission:
    path = Path(path)
    try:
        d = json.loads(path.read_text())
    except FileNotFoundError as e:
        raise SubmissionFormatError(f"{path}: no such submission file") from e
    except json.JSONDecodeError as e:
        raise SubmissionFormatError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from e
    if not isinstance(d, dict) or d.get("format") != SUBMISSION_FORMAT:
        raise SubmissionFormatError(f"{path}: not a submission file of format {SUBMISSION_FORMAT}")
    missing = [k for k in ("slug", "name", "run", "summary", "tasks", "results") if k not in d]
    if missing:
        raise SubmissionFormatError(f"{path}: missing field(s) {', '.join(missing)}")
    verdicts = []
    for i, rec in enumerate(d["results"]):
        try:
            verdicts.append(Verdict.from_dict(rec))
        except (ValueError, KeyError, TypeError) as e:
            raise SubmissionFormatError(f"{path}: results[{i}] is not a verdict record ({e})") from e
    return Submission(
        slug=d["slug"],
        name=d["name"],
        run=d["run"],
        summary=d["summary"],
        verdicts=verdicts,
        tasks=d["tasks"],
        org=d.get("org", ""),
        notes=d.get("notes", ""),
        labels=list(d.get("labels", [])),
        submitted=d.get("submitted", ""),
        code=dict(d.get("code", {})),
        verification=list(d.get("verification", [])),
        path=path,
    )


def load_all(folder: Path = SUBMISSIONS_DIR) -> list[Submission]:
    """Every *.json submission in the folder, in file-name order."""
    if not folder.is_dir():
        raise FileNotFoundError(f"submissions folder {folder} does not exist")
    return [load_submission(p) for p in sorted(folder.glob("*.json"))]
