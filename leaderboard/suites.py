"""Known suite versions: which task ids (with level, families and file hash) a suite version holds.

A run is stamped with its suite's version, a hash of every task file. The leaderboard
accepts the built-in suite as it is now, plus every version recorded in `suite_versions.json`, so
submissions made before tasks were added or edited stay valid. Record the current built-in suite
before its tasks change (or whenever a submission is made against it), with a few words on what the
version changed: the board names every version by its size, the date it was recorded and that name.

    python -m leaderboard.suites --record --name "45 backward tasks added"
    python -m leaderboard.suites                     # lists the known versions
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmark.flags import SUITE_HELP
from benchmark.suite import Suite, load_suite

SUITE_VERSIONS_PATH = Path(__file__).parent / "suite_versions.json"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskInfo:
    level: int | None
    tags: tuple[str, ...]
    hash: str  # sha256 of the task file


@dataclass(frozen=True)
class SuiteVersion:
    version: str
    source: str  # "builtin" or the folder it was read from
    recorded: str  # ISO date the version was recorded
    tasks: dict[str, TaskInfo]
    name: str = ""  # what this version changed, in a few words ("45 backward tasks added")

    @property
    def label(self) -> str:
        """How the board names the version: "480 tasks, 2026-12-06: 45 backward tasks added"."""
        when = ": ".join(x for x in (self.recorded, self.name) if x)
        return f"{len(self.tasks)} tasks" + (f", {when}" if when else "")

    def level_tasks(self, level: int | None) -> list[str]:
        return sorted(t for t, info in self.tasks.items() if info.level == level)

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "recorded": self.recorded,
            **({"name": self.name} if self.name else {}),
            "tasks": {t: {**asdict(i), "tags": list(i.tags)} for t, i in sorted(self.tasks.items())},
        }

    @classmethod
    def from_dict(cls, version: str, d: dict) -> SuiteVersion:
        tasks = {
            t: TaskInfo(i.get("level"), tuple(i.get("tags", ())), i.get("hash", ""))
            for t, i in d["tasks"].items()
        }
        return cls(version, d.get("source", "builtin"), d.get("recorded", ""), tasks, d.get("name", ""))

    @classmethod
    def from_suite(cls, suite: Suite, source: str = "builtin", name: str = "") -> SuiteVersion:
        return cls(
            version=suite.version,
            source=source,
            recorded=dt.date.today().isoformat(),
            tasks={t.task_id: TaskInfo(t.level, t.tags, t.hash) for t in suite.tasks},
            name=name,
        )


class SuiteRegistry:
    """Suite versions the validator accepts: the recorded ones plus, optionally, a live suite."""

    def __init__(self, versions: dict[str, SuiteVersion]):
        self.versions = dict(versions)

    def get(self, version: str) -> SuiteVersion | None:
        return self.versions.get(version)

    def label(self, version: str) -> str:
        """The version's `SuiteVersion.label`, or a plain statement that it was never recorded."""
        entry = self.get(version)
        return entry.label if entry is not None else "not recorded in leaderboard/suite_versions.json"

    @classmethod
    def load(cls, path: Path = SUITE_VERSIONS_PATH, include_builtin: bool = True) -> SuiteRegistry:
        versions: dict[str, SuiteVersion] = {}
        if path.exists():
            try:
                raw = json.loads(path.read_text())
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from e
            versions = {v: SuiteVersion.from_dict(v, d) for v, d in raw.get("versions", {}).items()}
        if include_builtin:
            live = SuiteVersion.from_suite(load_suite())
            versions.setdefault(live.version, live)
        return cls(versions)


def _dump(raw: dict) -> str:
    """The versions file with one line per task, so it stays readable and diffs stay small."""
    blocks = []
    for version, entry in sorted(raw["versions"].items()):
        tasks = ",\n".join(
            f"    {json.dumps(t)}: {json.dumps(info, sort_keys=True)}"
            for t, info in sorted(entry["tasks"].items())
        )
        head = ", ".join(
            f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(entry.items()) if k != "tasks"
        )
        blocks.append(f'  {json.dumps(version)}: {{{head}, "tasks": {{\n{tasks}\n  }}}}')
    return '{"versions": {\n' + ",\n".join(blocks) + "\n}}\n"


def add(entry: SuiteVersion, path: Path = SUITE_VERSIONS_PATH) -> SuiteVersion:
    """Add a suite version to the file (a no-op when it is already there)."""
    raw = json.loads(path.read_text()) if path.exists() else {"versions": {}}
    if entry.version not in raw["versions"]:
        raw["versions"][entry.version] = entry.to_dict()
        path.write_text(_dump(raw))
        log.info("recorded suite version %s (%d tasks) in %s", entry.version, len(entry.tasks), path)
    return entry


def record(
    suite: Suite, path: Path = SUITE_VERSIONS_PATH, source: str = "builtin", name: str = ""
) -> SuiteVersion:
    """Add a suite's current version to the file."""
    return add(SuiteVersion.from_suite(suite, source, name), path)


def builtin_version() -> str:
    """The built-in suite's version as it is now: the board's current suite."""
    return load_suite().version


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m leaderboard.suites",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--record", action="store_true", help="record the suite's current version")
    p.add_argument(
        "--name",
        default="",
        help="with --record: what this version changed, in a few words (the board shows it)",
    )
    p.add_argument("--suite", default=None, help=SUITE_HELP)
    p.add_argument(
        "--file",
        type=Path,
        default=SUITE_VERSIONS_PATH,
        help="the suite versions file (default: leaderboard/suite_versions.json)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.record:
        entry = record(load_suite(args.suite), args.file, source=args.suite or "builtin", name=args.name)
        print(f"{entry.version}: {len(entry.tasks)} tasks")
        return 0
    registry = SuiteRegistry.load(args.file, include_builtin=args.suite is None)
    if args.suite is not None:
        live = SuiteVersion.from_suite(load_suite(args.suite), source=args.suite)
        registry.versions.setdefault(live.version, live)
    for version, entry in sorted(registry.versions.items(), key=lambda kv: kv[1].recorded):
        levels = sorted({i.level for i in entry.tasks.values()}, key=lambda x: (x is None, x))
        counts = ", ".join(f"level{lv}: {len(entry.level_tasks(lv))}" for lv in levels)
        name = f"  {entry.name}" if entry.name else ""
        print(f"{version}  {entry.recorded}  {entry.source}  {len(entry.tasks)} tasks ({counts}){name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
