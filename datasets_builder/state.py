"""Checkpoints of a build, so that a killed build continues where it stopped.

Each stage keeps a journal: an append-only JSONL file under OUT/state/ with one record per item
(a task validated, a candidate verified), written and flushed as soon as the item is done. A
restarted build reads the journals back and skips every item already there; a line cut short by
the kill is ignored (its item simply runs again). A stage that completed is marked in
stages.json, with what it reported."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from benchmark.records import append_jsonl, atomic_write_text

log = logging.getLogger(__name__)


class Journal:
    def __init__(self, path: Path, key: Callable[[dict], str]):
        self.path = Path(path)
        self.key = key
        self._lock = threading.Lock()
        self.records: dict[str, dict] = {}
        if self.path.exists():
            text = self.path.read_text()
            if text and not text.endswith("\n"):  # the kill cut the last record short: drop it
                text = text[: text.rfind("\n") + 1]
                self.path.write_text(text)
                log.warning("%s: dropped a record cut short by a kill; its item runs again", self.path)
            for lineno, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    self.records[key(rec)] = rec
                except (ValueError, KeyError, TypeError) as e:
                    log.warning(
                        "%s:%d: ignoring an unreadable record (%s); its item runs again", self.path, lineno, e
                    )

    def __contains__(self, item_key: str) -> bool:
        return item_key in self.records

    def __len__(self) -> int:
        return len(self.records)

    def get(self, item_key: str) -> dict | None:
        return self.records.get(item_key)

    def values(self) -> list[dict]:
        return list(self.records.values())

    def append(self, record: dict) -> None:
        line = json.dumps(record, sort_keys=True, default=str)
        with self._lock:
            append_jsonl(self.path, line)
            self.records[self.key(record)] = record


class BuildState:
    def __init__(self, out: Path):
        self.root = Path(out) / "state"
        self.root.mkdir(parents=True, exist_ok=True)
        self._stages_path = self.root / "stages.json"
        self._journals: dict[str, Journal] = {}

    def journal(self, name: str, key: Callable[[dict], str]) -> Journal:
        if name not in self._journals:
            self._journals[name] = Journal(self.root / f"{name}.jsonl", key)
        return self._journals[name]

    def stages(self) -> dict:
        return json.loads(self._stages_path.read_text()) if self._stages_path.exists() else {}

    def done(self, stage: str) -> bool:
        return stage in self.stages()

    def mark_done(self, stage: str, info: dict | None = None) -> None:
        stages = self.stages()
        stages[stage] = info or {}
        atomic_write_text(self._stages_path, json.dumps(stages, indent=1, sort_keys=True, default=str) + "\n")
