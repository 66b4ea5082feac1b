"""The run directory: run.json (what was run, where), results.jsonl (one verdict per line, appended
and flushed as each sample finishes, so a killed run loses nothing) and summary.json."""

from __future__ import annotations

import json
import logging
import typing
from collections.abc import Iterator
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path

from benchmark.records import append_jsonl, atomic_write_text
from benchmark.verdict import Verdict

log = logging.getLogger(__name__)
RUN_FORMAT = 1
# What a resumed run must share with the records already made, or they would mix two experiments.
RESUME_KEYS = (
    "model",
    "suite_version",
    "device",
    "timing",
    "sampling",
    "turns",
    "prompt",
    "backend",
    "evaluation",
)
# A setting run.json did not record at first is taken as its default then: runs written before "timing"
# existed resume timed, the default, and an untimed resume of one is refused rather than guessed.
# Other settings absent from an older run.json are not compared.
RESUME_DEFAULTS = {"timing": True}
# Parts of a recorded setting that change how a run proceeds, not what it measures: free on resume.
# More samples extend a run (sample i always uses seed + i); the transport of a backend is not its model.
RESUME_FREE = {
    "sampling": {"samples"},
    "backend": {
        "concurrency",
        "request_timeout",
        "max_retries",
        "api_key_env",
        "batch_size",
        "cache",
        "compile",
    },
}


def _settings(key: str, value) -> dict[str, object]:
    """A recorded setting as dotted names (`sampling.temperature`), its free parts left out."""
    if not isinstance(value, dict):
        return {key: value}
    free = RESUME_FREE.get(key, set())
    return {f"{key}.{k}": v for k, v in value.items() if k not in free}


def resume_conflict(before: dict, now: dict) -> str | None:
    """The first setting that differs between a recorded run and a new invocation, as
    "name=old, not new", or None when the invocation may continue the run. A suite is named along
    with its version, since a version alone does not say which suite it was."""
    for key in RESUME_KEYS:
        if key not in before and key not in RESUME_DEFAULTS:
            continue
        old = _settings(key, before.get(key, RESUME_DEFAULTS.get(key)))
        new = _settings(key, now.get(key, RESUME_DEFAULTS.get(key)))
        for name in dict.fromkeys([*old, *new]):
            if old.get(name) != new.get(name):
                if key == "suite_version":
                    return _suite_conflict(before, now)
                unrecorded = "" if key in before else " (not recorded in run.json: the default)"
                return f"{name}={old.get(name)!r}{unrecorded}, not {new.get(name)!r}"
    return None


def _suite_conflict(before: dict, now: dict) -> str:
    old, new = before.get("suite"), now.get("suite")
    text = (
        f"suite {old!r} (suite_version={before.get('suite_version')!r}), "
        f"not suite {new!r} (suite_version={now.get('suite_version')!r})"
    )
    return text + ("; its task files changed since" if old == new else "")


@dataclass(frozen=True, kw_only=True)
class RunInfo:
    """run.json's record of what was run and where (the run directory adds `format` and, on resume,
    `resumed`). The fields without a default are the ones every run.json must hold, of these plain
    types: the leaderboard's validator refuses a run without them (RUN_REQUIRED)."""

    command: str
    started: str = ""
    model: str
    backend: dict
    sampling: dict
    turns: int = 1
    prompt: dict | None = None
    device: str
    baseline: str
    timing: bool = True  # absent from run.json files written before it existed (RESUME_DEFAULTS)
    evaluation: dict | None = None
    lanes: int = 1
    strict: bool
    suite: str
    suite_version: str
    tasks: list
    environment: dict

    def to_dict(self) -> dict:
        return asdict(self)


RUN_REQUIRED: dict[str, type] = {
    f.name: typing.get_type_hints(RunInfo)[f.name]
    for f in fields(RunInfo)
    if f.default is MISSING and f.default_factory is MISSING
}


def verdict_lines(path: Path) -> Iterator[tuple[int, Verdict | str]]:
    """The records of a results.jsonl, one per non-blank line with its number: the verdict, or the
    reason the line holds none. The one reader of the format, lenient (a resumed run) or strict
    (the leaderboard's validator) as its caller decides."""
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            yield lineno, read_verdict(line)


def read_verdict(line: str) -> Verdict | str:
    """One line of a results.jsonl: its verdict, or the reason it holds none."""
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as e:
        return f"not valid JSON ({e.msg}); a line cut short by a killed run must be removed"
    if not isinstance(rec, dict):
        return f"expected a JSON object, got {type(rec).__name__}"
    missing = [k for k in ("task_id", "verdict", "sample") if k not in rec]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    try:
        return Verdict.from_dict(rec)
    except ValueError as e:
        return str(e)
    except TypeError as e:
        return f"not a verdict record ({e})"


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.results_path = self.path / "results.jsonl"
        self.path.mkdir(parents=True, exist_ok=True)

    def write_run_info(self, info: dict) -> None:
        """run.json; on resume the first record is kept and later invocations are appended. A resumed
        run must keep the model, suite, device, sampling, turns, prompt, backend and evaluation
        settings (RESUME_KEYS), or its records would mix two experiments: a difference is refused,
        naming the setting."""
        p = self.path / "run.json"
        if p.exists():
            record = json.loads(p.read_text())
            conflict = resume_conflict(record, info)
            if conflict:
                raise ValueError(
                    f"{self.path} holds a run with {conflict}: resume it with the same settings or write to a new --out"
                )
            record.setdefault("resumed", []).append(
                {"command": info.get("command"), "started": info.get("started")}
            )
        else:
            record = {"format": RUN_FORMAT, **info}
        atomic_write_text(p, json.dumps(record, indent=2))

    def has_run_info(self) -> bool:
        return (self.path / "run.json").exists()

    def discard(self) -> None:
        """Remove the run.json of a run that recorded nothing, empty logs, and the folder when that
        leaves it empty; never a record."""
        for name in ("run.json", "completions.jsonl", "results.jsonl"):
            f = self.path / name
            if f.exists() and (name == "run.json" or f.stat().st_size == 0):
                f.unlink()
        try:
            self.path.rmdir()
        except OSError:
            pass  # something else is in it

    def run_info(self) -> dict:
        """run.json as recorded: the first invocation's settings and every resume."""
        return json.loads((self.path / "run.json").read_text())

    def load_verdicts(self) -> list[Verdict]:
        """Every complete record; a line cut short by a kill is ignored (and re-evaluated)."""
        if not self.results_path.exists():
            return []
        verdicts = []
        for lineno, read in verdict_lines(self.results_path):
            if isinstance(read, Verdict):
                verdicts.append(read)
            else:
                log.warning("%s:%d: ignoring unreadable record (%s)", self.results_path, lineno, read)
        return verdicts

    def append(self, verdict: Verdict) -> None:
        append_jsonl(self.results_path, verdict.to_json())

    def write_summary(self, summary: dict) -> None:
        atomic_write_text(self.path / "summary.json", json.dumps(summary, indent=2))
