"""Writing records safely: whole files replaced atomically (readers and concurrent writers, threads
or processes, never see half a file), and JSONL journals appended one fsynced line at a time."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    """The process's umask, read without changing it (os.umask sets it, racing other threads)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def atomic_write_text(path: Path, text: str) -> Path:
    """Write `text` to a uniquely named sibling, then rename it over `path`; the last writer wins.
    The file gets the mode `open()` would give it (mkstemp's own is 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def append_jsonl(path: Path, line: str) -> None:
    """Append one JSON record as a line and fsync it before returning, so a record reported written
    survives a kill or a crash of the host. A line cut short by an earlier kill is ended first,
    so the new record starts a line of its own: readers skip the torn line and keep this one.
    Each line goes out in one write under O_APPEND, so concurrent appenders do not interleave within
    a line on a local file system; the torn-line check is not atomic with it, so writers of one file
    share a lock (a journal's own) where several may append after a crash."""
    if "\n" in line:
        raise ValueError("a JSONL record must be a single line")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as f:
        prefix = b""
        if f.tell() > 0:
            with open(path, "rb") as check:
                check.seek(-1, os.SEEK_END)
                if check.read(1) != b"\n":
                    prefix = b"\n"  # a previous writer died mid-line
        f.write(prefix + line.encode() + b"\n")
        f.flush()
        os.fsync(f.fileno())
