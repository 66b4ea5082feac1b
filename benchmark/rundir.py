"""The run directory: run.json (what was run, where), results.jsonl (one verdict per line, appended
and flushed as each sample finishes, so a killed run loses nothing) and summary.json."""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
from pathlib import Path

from benchmark.files import atomic_write_text
from benchmark.verdict import Verdict

log = logging.getLogger(__name__)
RUN_FORMAT = 1
RESUME_KEYS = ("model", "suite_version", "device", "timing")
# A setting run.json did not record at first is taken as its default then: runs written before "timing"
# existed resume timed, the default, and an untimed resume of one is refused rather than guessed.
RESUME_DEFAULTS = {"timing": True}


def gpu_environment() -> dict[str, str | None]:
    """GPU name, driver and CUDA as nvidia-smi and torch report them, without creating a context."""
    import torch

    env: dict[str, str | None] = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "host": platform.node(),
        "gpu": None,
        "driver": None,
    }
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.strip().splitlines()
        if out:
            env["gpu"], env["driver"] = (s.strip() for s in out[0].split(",", 1))
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    return env


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.results_path = self.path / "results.jsonl"
        self.path.mkdir(parents=True, exist_ok=True)

    def write_run_info(self, info: dict) -> None:
        """run.json; on resume the first record is kept and later invocations are appended. A resumed
        run must evaluate the same model on the same suite and device, timed or not as before, or its
        records would mix two experiments: a difference is refused, naming the setting."""
        p = self.path / "run.json"
        if p.exists():
            record = json.loads(p.read_text())
            for key in RESUME_KEYS:
                if key not in record and key not in RESUME_DEFAULTS:
                    continue
                before = record.get(key, RESUME_DEFAULTS.get(key))
                now = info.get(key, RESUME_DEFAULTS.get(key))
                if before != now:
                    unrecorded = "" if key in record else " (not recorded in run.json: the default)"
                    raise ValueError(
                        f"{self.path} holds a run with {key}={before!r}{unrecorded}, not {now!r}: "
                        "resume it with the same settings or write to a new --out"
                    )
            record.setdefault("resumed", []).append({"command": info.get("command"), "started": info.get("started")})
        else:
            record = {"format": RUN_FORMAT, **info}
        atomic_write_text(p, json.dumps(record, indent=2))

    def run_info(self) -> dict:
        return json.loads((self.path / "run.json").read_text())

    def load_verdicts(self) -> list[Verdict]:
        """Every complete record; a line cut short by a kill is ignored (and re-evaluated)."""
        if not self.results_path.exists():
            return []
        verdicts = []
        for lineno, line in enumerate(self.results_path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                verdicts.append(Verdict.from_dict(json.loads(line)))
            except (ValueError, KeyError, TypeError) as e:
                log.warning("%s:%d: ignoring unreadable record (%s)", self.results_path, lineno, e)
        return verdicts

    def append(self, verdict: Verdict) -> None:
        with open(self.results_path, "a") as f:
            if f.tell() > 0:
                with open(self.results_path, "rb") as check:
                    check.seek(-1, os.SEEK_END)
                    if check.read(1) != b"\n":
                        f.write("\n")  # a previous run died mid-line
            f.write(verdict.to_json() + "\n")
            f.flush()
            os.fsync(f.fileno())

    def write_summary(self, summary: dict) -> None:
        atomic_write_text(self.path / "summary.json", json.dumps(summary, indent=2))
