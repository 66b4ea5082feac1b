"""Run one evaluation job in a fresh Python interpreter and get its result back safely.

What this contains: crashes (segfault, abort, CUDA context corruption), hangs (wall-clock timeout,
the whole process group is killed), host out-of-memory kills, and output spam (stdout and stderr
go to a log file whose tail is kept). The child runs in its own temporary directory (also its
TMPDIR) with an environment scrubbed of secrets, no core dumps, limits on CPU time, file size and
processes, and, where the OS allows an unprivileged or root `unshare`, a network namespace of its
own with no interfaces up. Its result travels over a private pipe, signed with a per-job nonce the
child receives on stdin, so printing a fake verdict achieves nothing.

This is NOT a security boundary against a determined attacker with code execution; the
anti-cheat checks and the audit hooks narrow what a candidate can do, see docs/anti-cheat.md."""

from __future__ import annotations

import json
import os
import resource
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmark.worker import sign

PROJECT_ROOT = Path(__file__).resolve().parent.parent
KEEP_ENV = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TMPDIR", "SHELL", "LD_LIBRARY_PATH",
    "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "MAX_JOBS", "OMP_NUM_THREADS", "VIRTUAL_ENV",
    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "CONDA_PREFIX",
}
KEEP_PREFIXES = ("LC_", "CUDA", "NVIDIA_", "TORCH_CUDA_ARCH", "PYTORCH_CUDA_ALLOC", "TRITON_", "NCCL_", "MKL_")
SECRET_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION")


def scrubbed_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """An allowlist of what compilers and CUDA need; anything that looks like a secret is dropped."""
    env = {
        k: v
        for k, v in os.environ.items()
        if (k in KEEP_ENV or k.startswith(KEEP_PREFIXES)) and not any(w in k.upper() for w in SECRET_WORDS)
    }
    inherited = os.environ.get("PYTHONPATH")  # where extra packages were installed (not a secret)
    env["PYTHONPATH"] = str(PROJECT_ROOT) + (os.pathsep + inherited if inherited else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class ChildOutcome:
    result: dict | None  # the verified payload, or None when the child produced none
    returncode: int | None
    timed_out: bool
    wall_s: float
    log_tail: str  # the child's last stdout/stderr lines

    @property
    def crash_reason(self) -> str:
        if self.timed_out:
            return f"timed out after {self.wall_s:.1f} s"
        rc = self.returncode
        if rc is not None and rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.valid_signals() else str(-rc)
            return f"worker killed by {name}"
        return f"worker exited with status {rc} before reporting a result"


CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
FILE_SIZE_LIMIT = 4 * 2**30
PROCESS_LIMIT = 4096


def _limiter(cpu_seconds: int):
    def limit_child() -> None:
        """Runs in the child between fork and exec: keep it to plain system calls."""
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
        resource.setrlimit(resource.RLIMIT_NPROC, (PROCESS_LIMIT, PROCESS_LIMIT))
        if _LIBC is not None:
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a killed evaluator leaves no orphan behind
            _LIBC.unshare(CLONE_NEWNET)  # best effort: fails quietly without the privilege

    return limit_child


def _load_libc():
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


_LIBC = _load_libc()


def network_isolated() -> bool:
    """Whether a child can get a network namespace of its own here (what `run_job` attempts)."""
    probe = subprocess.run(
        [sys.executable, "-c", "import socket; socket.create_connection(('127.0.0.1', 9), timeout=1)"],
        preexec_fn=_limiter(30), capture_output=True, text=True, timeout=60,
    )
    return "Network is unreachable" in probe.stderr


def _read_until(fd: int, proc: subprocess.Popen, deadline: float) -> tuple[bytes, bool]:
    """Read the pipe until EOF (child done) or the deadline; returns (data, timed_out)."""
    chunks = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return b"".join(chunks), True
        ready, _, _ = select.select([fd], [], [], min(remaining, 1.0))
        if ready:
            data = os.read(fd, 1 << 16)
            if not data:
                return b"".join(chunks), False
            chunks.append(data)


def _verified(raw: bytes, nonce: str) -> dict | None:
    for line in reversed(raw.decode(errors="replace").splitlines()):
        try:
            msg = json.loads(line)
            if secrets.compare_digest(msg["mac"], sign(nonce, msg["body"])):
                return json.loads(msg["body"])
        except (ValueError, KeyError, TypeError):
            continue
    return None


def run_job(job: dict, timeout_s: float, workdir: Path | None = None, env: dict[str, str] | None = None) -> ChildOutcome:
    """Start `python -m benchmark.worker` on `job`; kill its whole process group on timeout."""
    nonce = secrets.token_hex(32)
    payload = json.dumps({**job, "nonce": nonce})
    with tempfile.TemporaryDirectory(prefix="solbench-", dir=workdir) as tmp:
        log_path = Path(tmp) / "child.log"
        read_fd, write_fd = os.pipe()
        t0 = time.monotonic()
        with open(log_path, "wb") as log_file:
            proc = subprocess.Popen(
                [sys.executable, "-m", "benchmark.worker", str(write_fd)],
                stdin=subprocess.PIPE,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd,),
                cwd=tmp,
                env=scrubbed_env({**(env or {}), "TMPDIR": tmp}),
                start_new_session=True,
                preexec_fn=_limiter(int(4 * timeout_s) + 60),
            )
        os.close(write_fd)
        try:
            try:
                proc.stdin.write(payload.encode())
                proc.stdin.close()
            except BrokenPipeError:
                pass
            raw, timed_out = _read_until(read_fd, proc, t0 + timeout_s)
        finally:
            os.close(read_fd)
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the worker and anything it started
            except ProcessLookupError:
                pass
            proc.wait()
        wall = time.monotonic() - t0
        tail = log_path.read_text(errors="replace")[-3000:] if log_path.exists() else ""
    return ChildOutcome(_verified(raw, nonce) if not timed_out else None, proc.returncode, timed_out, wall, tail)
