"""Import of external task folders: any folder of KernelBench-format files (levels from `levelN`
folder names where the files carry no SOLBENCH metadata) joins the build's task pool unchanged,
once its source passes the licence policy (licenses.py).

Every source records its licence (declared in the config, or the SPDX-License-Identifier line of
its licence file), where it came from and the revision it was taken at (from the config, or the
folder's git checkout); the card lists them, and the licence file is published with the dataset.
A source whose licence forbids redistribution or binds the trained model is refused before any of
its files is read, with an error that names the source and the clause.

Files are read with benchmark.suite.load_suite, so anything the benchmark accepts is accepted
here; unreadable files are reported, not fatal. Imported tasks go through the same screening as
synthesized ones (dedup, decontamination against the benchmark suite, validation)."""

from __future__ import annotations

import logging
import re
import subprocess
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from benchmark.suite import load_suite
from benchmark.task import Task
from datasets_builder.licenses import LicenseError, find_clauses, is_denied, judge

log = logging.getLogger(__name__)
LICENSE_NAMES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "LICENCE.md", "COPYING", "COPYING.md")


@dataclass(frozen=True)
class ImportConfig:
    path: str  # a folder of KernelBench-format task files
    prefix: str | None = None  # file-name prefix of its tasks (default: the folder's name)
    license: str | None = None  # SPDX id or "A OR B" (default: the licence file's SPDX-License-Identifier)
    url: str | None = None  # where the tasks came from (default: the git remote of the folder)
    revision: str | None = None  # the commit or release taken (default: the folder's git HEAD)
    license_file: str | None = (
        None  # relative to path (default: LICENSE*, COPYING* here or up to the git root)
    )
    allow_unlisted_license: str | None = None  # a person's review allowing a licence the policy does not list


@dataclass(frozen=True)
class SourceRecord:
    """What the card says about an imported source."""

    name: str
    path: str
    url: str
    revision: str
    license: str | None
    license_file: str | None  # the licence file read, published with the dataset
    decision: str  # why the policy let it in
    review: str | None = None  # the review that allowed an unlisted licence
    tasks: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ImportedTask:
    name: str  # file stem, made unique within the build
    level: int | None
    source: str
    origin: str  # the folder and relative path it came from
    tags: tuple[str, ...]


@dataclass(frozen=True)
class ImportResult:
    tasks: list[ImportedTask]
    errors: list[str]
    record: SourceRecord


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "task"


def _git(folder: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _license_file(folder: Path, given: str | None) -> Path | None:
    if given is not None:
        path = folder / given
        if not path.is_file():
            raise FileNotFoundError(f"licence file {path} does not exist")
        return path
    top = _git(folder, "rev-parse", "--show-toplevel")
    stop = Path(top).resolve() if top else folder.resolve()
    for d in (folder.resolve(), *folder.resolve().parents):
        for name in LICENSE_NAMES:
            if (d / name).is_file():
                return d / name
        if d == stop:
            break
    return None


def _spdx_line(text: str) -> str | None:
    m = re.search(r"SPDX-License-Identifier:\s*([^\n*#]+)", text)
    return m.group(1).strip() if m else None


def check_source(source: ImportConfig, name: str) -> SourceRecord:
    """The source's provenance and licence, or a LicenseError that names the source and the clause."""
    folder = Path(source.path).expanduser()
    where = f"imported source {name!r} ({folder})"
    file = _license_file(folder, source.license_file)
    text = file.read_text(errors="replace") if file else ""
    declared = source.license or _spdx_line(text)
    url = source.url or _git(folder, "remote", "get-url", "origin")
    revision = source.revision or _git(folder, "rev-parse", "HEAD")
    if not url or not revision:
        raise LicenseError(
            f"{where}: say where its tasks came from and at which revision (synthesis.imports: url and "
            "revision), or import a git checkout that has them"
        )
    allowed, why = judge(declared)
    if is_denied(declared):
        raise LicenseError(f"{where} refused: its licence {why}")
    clauses = find_clauses(text)
    if clauses:
        c = clauses[0]
        raise LicenseError(
            f"{where} refused: its licence file {file} states a clause the dataset cannot carry, "
            f'{c.clause}: "{c.excerpt}"'
        )
    if not allowed:
        if not source.allow_unlisted_license:
            raise LicenseError(
                f"{where} refused: {why}; a source needs a licence on the allow list "
                "(datasets_builder/licenses.py), or a person's review named in "
                "synthesis.imports[].allow_unlisted_license"
            )
        why = f"{why}; allowed by review: {source.allow_unlisted_license}"
    return SourceRecord(
        name=name,
        path=str(folder),
        url=url,
        revision=revision,
        license=declared,
        license_file=str(file) if file else None,
        decision=why,
        review=source.allow_unlisted_license if not allowed else None,
    )


def import_folder(source: ImportConfig) -> ImportResult:
    """Every task file of a source that passes the licence policy; names get its prefix (default: the
    folder's name)."""
    folder = Path(source.path).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"task folder {folder} does not exist")
    prefix = _safe(source.prefix if source.prefix is not None else folder.name)
    record = check_source(source, prefix)
    suite = load_suite(folder)
    tasks = [_imported(t, prefix, folder) for t in suite.tasks]
    for e in suite.errors:
        log.warning("not imported: %s", e)
    return ImportResult(tasks, list(suite.errors), replace(record, tasks=len(tasks)))


def _imported(task: Task, prefix: str, folder: Path) -> ImportedTask:
    return ImportedTask(
        name=f"{prefix}_{_safe(task.task_id.replace('/', '_'))}",
        level=task.level,
        source=task.source,
        origin=f"{folder}/{task.task_id}.py",
        tags=task.tags,
    )
