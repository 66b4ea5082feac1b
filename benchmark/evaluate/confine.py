"""The limits a sandboxed child sets on itself, first thing in `benchmark.evaluate.worker.serve()`.

Why the child and not the parent: the parent starts children from worker threads (the verifier's
pools), and Python documents `preexec_fn` as unsafe when threads exist (the child can deadlock
between fork and exec). So the parent passes `Limits` on the command line and the fresh child
applies them before it reads its job:

- no core dumps; limits on CPU time, file size and the number of processes;
- PR_SET_PDEATHSIG: SIGKILL when the parent goes away; a parent already gone before the call
  (the race between start and prctl) is caught by checking getppid, and the child kills itself;
- a network namespace of its own with no interface up, where the OS allows it (root or
  CAP_SYS_ADMIN). It covers the calling thread and every thread started after it; in a spawned
  worker a thread an import started earlier (torch's) keeps the old namespace, but runs no
  candidate code (a worker forked from benchmark.evaluate.zygote has no other thread).

Linux-only parts (prctl, unshare) are skipped quietly elsewhere. Imports nothing of the
benchmark, so a bare probe interpreter can use it (`benchmark.evaluate.sandbox.network_isolated`)."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import resource
import signal
from dataclasses import asdict, dataclass

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
CPU_GRACE_S = 5  # between SIGXCPU at the soft CPU limit and SIGKILL at the hard one


@dataclass(frozen=True)
class Limits:
    cpu_s: int  # CPU seconds of the child process itself (each compiler it starts has its own)
    file_bytes: int = 4 * 2**30  # largest file it may write
    processes: int = 4096  # RLIMIT_NPROC
    parent_pid: int | None = None  # die with this parent; None: no death signal
    isolate_network: bool = True

    def to_arg(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_arg(cls, text: str) -> Limits:
        return cls(**json.loads(text))


def _load_libc():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


def _set(which: int, soft: int, hard: int) -> None:
    """Lower a limit, never above the hard limit the child inherited (raising it needs privilege)."""
    _, inherited = resource.getrlimit(which)
    if inherited != resource.RLIM_INFINITY:
        soft, hard = min(soft, inherited), min(hard, inherited)
    resource.setrlimit(which, (soft, hard))


def apply(limits: Limits) -> bool:
    """Confine the calling process; returns whether it now has a network namespace of its own."""
    _set(resource.RLIMIT_CORE, 0, 0)
    _set(resource.RLIMIT_CPU, limits.cpu_s, limits.cpu_s + CPU_GRACE_S)
    _set(resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes)
    _set(resource.RLIMIT_NPROC, limits.processes, limits.processes)
    libc = _load_libc()
    if libc is None:
        return False
    if limits.parent_pid is not None:
        die_with_parent(limits.parent_pid, libc)
    return bool(limits.isolate_network) and libc.unshare(CLONE_NEWNET) == 0


def die_with_parent(parent_pid: int, libc=None) -> None:
    """SIGKILL this process when its parent goes away, or now if `parent_pid` is already gone
    (the race between the parent starting it and this call). Also used by benchmark.evaluate.zygote."""
    libc = libc or _load_libc()
    if libc is None:
        return
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:
        os.kill(os.getpid(), signal.SIGKILL)
