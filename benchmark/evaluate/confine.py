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
import errno
import json
import os
import platform
import resource
import signal
import struct
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


# The judge and the candidate's process (benchmark.evaluate.judge, benchmark.evaluate.candidate_server).

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
AUDIT_ARCH_X86_64 = 0xC000003E
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
# x86-64 system calls the candidate's process is refused (EPERM): reaching other processes' memory
# or descriptors, profiling them, and leaving its session.
REFUSED_SYSCALLS = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "perf_event_open": 298,
    "pidfd_send_signal": 424,
    "tkill": 200,
    "setsid": 112,  # a process that leaves the session outlives the kill of it (a daemon holding a lock)
}
KILL, TGKILL = 62, 234  # signals: only to itself and its own process group
SOCKET, SOCKETPAIR = 41, 53
REFUSED_SOCKET_DOMAINS = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6


def protect() -> bool:
    """Make this process non-dumpable: a process without CAP_SYS_PTRACE (the candidate's, which gave
    it up) can then neither ptrace it nor open its /proc/PID/mem, maps, fds or environ. For the
    judge and the zygote. Whether it took."""
    libc = _load_libc()
    return libc is not None and libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


@dataclass(frozen=True)
class Hardening:
    """What `harden` managed: each is False where the OS refused it (recorded, not fatal)."""

    no_new_privs: bool = False
    capabilities_dropped: bool = False
    seccomp: bool = False
    oom_first: bool = False

    def describe(self) -> str:
        return ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in asdict(self).items())


def harden() -> Hardening:
    """Give up, for the candidate's process, what would reach other processes: the host's OOM killer
    takes it before anyone else (oom_score_adj 1000), no new privileges ever, no capabilities at all
    (root included: no CAP_SYS_PTRACE, so non-dumpable processes are out of reach; no CAP_SYS_ADMIN),
    and a seccomp filter that refuses the system calls of REFUSED_SYSCALLS, signals to any process
    but itself, and Unix and IP sockets of its own. Call after `apply` (its network namespace needs CAP_SYS_ADMIN)."""
    libc = _load_libc()
    if libc is None:
        return Hardening()
    oom = _write("/proc/self/oom_score_adj", "1000")
    nnp = libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    caps = _drop_capabilities(libc)
    seccomp = nnp and _install_seccomp(libc)
    return Hardening(nnp, caps, seccomp, oom)


def _write(path: str, text: str) -> bool:
    try:
        with open(path, "w") as f:
            f.write(text)
        return True
    except OSError:
        return False


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _drop_capabilities(libc) -> bool:
    for cap in range(64):  # the bounding set first: dropping it needs CAP_SETPCAP, given up below
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        return False
    try:
        with open("/proc/self/status") as f:
            eff = next(line for line in f if line.startswith("CapEff:"))
        return int(eff.split()[1], 16) == 0
    except (OSError, StopIteration, ValueError):
        return False


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def seccomp_program(pid: int) -> bytes:
    """The filter: x86-64 only (another architecture's calls pass, as where the filter is missing);
    REFUSED_SYSCALLS get EPERM; kill and tgkill pass only for this process (pid, 0 for its group,
    -pid for the group it leads); sockets of REFUSED_SOCKET_DOMAINS are refused; everything else
    passes."""
    ld_arch, ld_nr, ld_arg0 = (0x20, 4), (0x20, 0), (0x20, 16)  # BPF_LD|BPF_W|BPF_ABS at seccomp_data offsets
    jeq, ret = 0x15, 0x06  # BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    prog = [_bpf(*ld_arch), _bpf(jeq, AUDIT_ARCH_X86_64, 1, 0), _bpf(ret, SECCOMP_RET_ALLOW), _bpf(*ld_nr)]
    for nr in REFUSED_SYSCALLS.values():
        prog += [_bpf(jeq, nr, 0, 1), _bpf(ret, deny)]
    # kill(pid, sig) / tgkill(tgid, tid, sig): the first argument's low 32 bits must be this process
    allowed = (pid, 0, -pid)
    for nr in (KILL, TGKILL):
        checks = [_bpf(jeq, a, len(allowed) - j, 0) for j, a in enumerate(allowed)]
        prog += [_bpf(jeq, nr, 0, len(checks) + 3), _bpf(*ld_arg0), *checks, _bpf(ret, deny), _bpf(*ld_nr)]
    # socket(domain, ...) / socketpair(domain, ...): no Unix or IP socket of its own (a Unix socket
    # reaches the host's services, a network namespace notwithstanding); its channel to the judge
    # was made by the parent
    for nr in (SOCKET, SOCKETPAIR):
        checks = [_bpf(jeq, d, 0, 1) for d in REFUSED_SOCKET_DOMAINS]
        body = [b for check in checks for b in (check, _bpf(ret, deny))]
        prog += [_bpf(jeq, nr, 0, len(body) + 2), _bpf(*ld_arg0), *body, _bpf(*ld_nr)]
    prog.append(_bpf(ret, SECCOMP_RET_ALLOW))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _install_seccomp(libc) -> bool:
    if platform.machine() != "x86_64":
        return False
    program = seccomp_program(os.getpid())
    buffer = ctypes.create_string_buffer(program)
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0
