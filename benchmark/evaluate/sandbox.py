"""Run one evaluation job in a fresh worker process and get its result back safely.

The worker is a fresh fork of the warm zygote (benchmark.evaluate.zygote: torch already imported, no
state of any other sample), or, where the zygote is off (SOLBENCH_ZYGOTE=0), cannot start or
cannot serve the job's environment, a fresh `python -m benchmark.evaluate.worker`. Both run the same
`benchmark.evaluate.worker.serve` under the same limits, clocks and result channel.

What this contains: crashes (segfault, abort, CUDA context corruption), hangs (wall-clock timeout,
the whole process group is killed), host out-of-memory kills, and output spam (stdout and stderr
go to a log file whose tail is kept). The child runs in its own temporary directory (also its
TMPDIR) with an environment scrubbed of secrets, in a process group of its own; it confines itself
first thing (benchmark.evaluate.confine: no core dumps, limits on CPU time, file size and processes, death
with its parent, and a network namespace of its own where the OS allows it), since `preexec_fn` is
unsafe in a threaded parent, which never forks itself.
Its result travels over a private pipe, signed with a per-job nonce the child receives on stdin, so
printing a fake verdict achieves nothing.

Limits are per clock: a child's time counts against the limit of the clock it names over the same
pipe ("build" while compiling, "run" for checks and timing), and waiting for another process's
build of the same extension counts against none, up to an absolute cap. So a verdict does not
depend on what else was compiling at that moment.

This is NOT a security boundary against a determined attacker with code execution; the
anti-cheat checks and the audit hooks narrow what a candidate can do, see docs/anti-cheat.md."""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from benchmark.evaluate import gpu_lock
from benchmark.evaluate.activity import Sample
from benchmark.evaluate.boundary import CandidateJob, Envelope, JudgeJob, encode
from benchmark.evaluate.candidate import WAIT_CLOCK as WAIT  # the clock charged to no limit
from benchmark.evaluate.channel import CLOCK_PREFIX, PHASE_PREFIX, sign
from benchmark.evaluate.confine import Limits
from benchmark.evaluate.zygote import Descriptors, ForkedChild, ForkRequest, Zygote

PROJECT_ROOT = Path(__file__).resolve().parents[2]
KEEP_ENV = {
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "TERM",
    "TMPDIR",
    "SHELL",
    "LD_LIBRARY_PATH",
    "CC",
    "CXX",
    "CFLAGS",
    "CXXFLAGS",
    "LDFLAGS",
    "MAX_JOBS",
    "OMP_NUM_THREADS",
    "VIRTUAL_ENV",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "CONDA_PREFIX",
    "SOLBENCH_ZYGOTE_TRACE",  # benchmark.evaluate.zygote.TRACE_ENV
    "SOLBENCH_TIMING_TRACE",  # benchmark.evaluate.timing.TRACE_ENV
}
KEEP_PREFIXES = (
    "LC_",
    "CUDA",
    "NVIDIA_",
    "TORCH_CUDA_ARCH",
    "PYTORCH_CUDA_ALLOC",
    "TRITON_",
    "NCCL_",
    "MKL_",
)
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
    limit: str | None = None  # with a timeout: the limit that ran out ("build", "run", ...)
    limits: dict[str, float] = field(default_factory=dict)  # the child's limits, in seconds
    charged_s: dict[str, float] = field(default_factory=dict)  # its time, per limit (and "wait")
    capped: bool = False  # stopped by the absolute cap, whatever its clocks said
    started_by: str = "spawn"  # "zygote": forked from the warm zygote; "spawn": a new interpreter
    phase: str | None = None  # the last phase the child named (benchmark.evaluate.judge.PHASES)

    @property
    def crash_reason(self) -> str:
        if self.timed_out:
            return self.timeout_reason
        rc = self.returncode
        if rc is not None and rc < 0:
            name = signal.Signals(-rc).name if -rc in signal.valid_signals() else str(-rc)
            return f"worker killed by {name}"
        if rc is None:
            return "worker lost: the zygote that forked it died before reporting its exit"
        return f"worker exited with status {rc} before reporting a result"

    @property
    def timeout_reason(self) -> str:
        """'build timed out after 912.3 s (build limit 900 s)', and what waiting was not counted."""
        waited = self.charged_s.get(WAIT, 0.0)
        if self.capped:
            return (
                f"{self.limit} timed out after {self.wall_s:.1f} s of wall time, the cap of {CAP_FACTOR}x "
                f"its limits ({CAP_FACTOR * sum(self.limits.values()):g} s); {waited:.1f} s of it was "
                f"reported as waiting for another build"
            )
        spent = self.charged_s.get(self.limit, self.wall_s)
        text = f"{self.limit} timed out after {spent:.1f} s ({self.limit} limit {self.limits.get(self.limit, 0):g} s)"
        if waited >= 0.05:
            text += f"; {waited:.1f} s waiting for another build of the same extension not counted"
        return text


CPU_FACTOR = 4  # CPU seconds allowed per second of limit (several threads), plus CPU_SLACK_S
CPU_SLACK_S = 60
CAP_FACTOR = 3  # however much waiting a child reports, it never runs longer than this x its limits


def child_limits(limits: Mapping[str, float]) -> Limits:
    """What the child applies to itself (benchmark.evaluate.confine): CPU time scaled from its wall limits.
    A forked child dies with the zygote instead, which dies with this process."""
    return Limits(cpu_s=int(CPU_FACTOR * sum(limits.values())) + CPU_SLACK_S, parent_pid=os.getpid())


ZYGOTE_SWITCH = "SOLBENCH_ZYGOTE"  # "0": every worker is spawned
ZYGOTE = Zygote(scrubbed_env)  # this process's zygote, started on first use


def zygote_enabled() -> bool:
    return os.environ.get(ZYGOTE_SWITCH, "1") != "0"


def warm_up() -> None:
    """Start the zygote in the background (the Verifier does, so its first samples need not wait)."""
    if zygote_enabled():
        ZYGOTE.prestart()


_PROBE = (
    "import socket, sys\n"
    "from benchmark.evaluate import confine\n"
    "confine.apply(confine.Limits.from_arg(sys.argv[1]))\n"
    "socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
)


def network_isolated() -> bool:
    """Whether a child can get a network namespace of its own here (what every worker attempts)."""
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE, Limits(cpu_s=30, parent_pid=os.getpid()).to_arg()],
        capture_output=True,
        text=True,
        timeout=60,
        env=scrubbed_env(),
    )
    return "Network is unreachable" in probe.stderr


class Clocks:
    """The child's time, split by the limit it counts against. The child names its clock over the
    result channel (a build inside the execution child counts against the build limit; waiting for
    another process's build of the same extension counts against none); `deadline` is when the
    current clock runs out, or the absolute cap (CAP_FACTOR x the limits together) comes first."""

    def __init__(self, limits: Mapping[str, float], initial: str, t0: float):
        if initial not in limits:
            raise ValueError(f"the child's first clock {initial!r} has no limit (limits: {sorted(limits)})")
        self.limits = dict(limits)
        self.initial = initial
        self.current = initial
        self.since = t0
        self.charged = {name: 0.0 for name in [*limits, WAIT]}
        self.cap = t0 + CAP_FACTOR * sum(limits.values())

    def switch(self, name: str, now: float) -> None:
        if name not in self.charged:  # not a clock of this child: ignored
            return
        self.charged[self.current] += now - self.since
        self.current, self.since = name, now

    def spent(self, name: str, now: float) -> float:
        return self.charged[name] + (now - self.since if name == self.current else 0.0)

    def deadline(self) -> float:
        if self.current == WAIT:
            return self.cap
        return min(self.cap, self.since + self.limits[self.current] - self.charged[self.current])

    def overrun(self, now: float) -> tuple[str, bool] | None:
        """(the limit hit, whether it was the cap) once the deadline has passed, else None."""
        if now < self.deadline():
            return None
        capped = now >= self.cap
        return (self.initial if capped or self.current == WAIT else self.current), capped


class Pipe:
    """A child's result pipe, read as it comes: its clock messages followed as they arrive, the rest
    kept for the signed result at the end."""

    def __init__(
        self,
        fd: int,
        nonce: str,
        on_clock: Callable[[str], None],
        keep: bool = True,
        on_phase: Callable[[str], None] | None = None,
    ):
        self.fd, self.nonce, self.on_clock, self.on_phase = fd, nonce, on_clock, on_phase
        self.phase: str | None = None  # the last phase the child named (the judge names its phases)
        self.keep = keep  # False: only clock messages matter (the candidate's process): nothing is kept
        self.chunks: list[bytes] = []
        self.partial: list[bytes] = []  # the line being received, in pieces: joined once, when it ends
        self.closed = False

    def read(self) -> None:
        data = os.read(self.fd, 1 << 16)
        if not data:
            self.closed = True
            return
        if self.keep:
            self.chunks.append(data)
        if b"\n" not in data:
            if self.keep or sum(map(len, self.partial)) <= CLOCK_LINE_MAX:
                self.partial.append(data)  # a line longer than a clock message is not one: not kept
            return
        head, _, rest = data.rpartition(b"\n")
        lines = (b"".join(self.partial) + head).split(b"\n")
        self.partial = [rest] if rest else []
        for line in lines:
            kind, name = _note(line, self.nonce)
            if kind == "clock":
                self.on_clock(name)
            elif kind == "phase":
                self.phase = name
                if self.on_phase is not None:
                    self.on_phase(name)

    def result(self) -> dict | None:
        return _verified(b"".join(self.chunks), self.nonce)


def _read_until(pipes: list[Pipe], done: Pipe, clocks: Clocks) -> tuple[str, bool] | None:
    """Read the pipes until `done` closes (its child finished) or a limit runs out; the overrun or None."""
    while True:
        now = time.monotonic()
        over = clocks.overrun(now)
        if over is not None:
            return over
        open_pipes = {p.fd: p for p in pipes if not p.closed}
        ready, _, _ = select.select(list(open_pipes), [], [], min(max(clocks.deadline() - now, 0.0), 1.0))
        for fd in ready:
            open_pipes[fd].read()
        if done.closed:
            return None


CLOCK_LINE_MAX = 1024  # a clock message is short; longer lines (the result) are not parsed for one


NOTES = {"clock": CLOCK_PREFIX, "phase": PHASE_PREFIX}


def _note(line: bytes, nonce: str) -> tuple[str | None, str | None]:
    """(kind, name) of a signed clock or phase message, else (None, None)."""
    if len(line) > CLOCK_LINE_MAX:
        return None, None
    try:
        msg = json.loads(line)
        for kind, prefix in NOTES.items():
            if kind in msg:
                name = msg[kind]
                if secrets.compare_digest(msg["mac"], sign(nonce, prefix + name)):
                    return kind, name
    except (ValueError, KeyError, TypeError):
        pass
    return None, None


def _verified(raw: bytes, nonce: str) -> dict | None:
    for line in reversed(raw.decode(errors="replace").splitlines()):
        try:
            msg = json.loads(line)
            if secrets.compare_digest(msg["mac"], sign(nonce, msg["body"])):
                return json.loads(msg["body"])
        except (ValueError, KeyError, TypeError):
            continue
    return None


def _start(
    cwd: str, env: dict[str, str], limits: Limits, fds: Descriptors
) -> tuple[subprocess.Popen | ForkedChild, str]:
    """The worker, forked from the zygote where it serves this environment, else spawned."""
    if zygote_enabled():
        forked = ZYGOTE.fork(ForkRequest(cwd, env, limits), fds)
        if forked is not None:
            return forked, "zygote"
    link = [] if fds.link is None else [str(fds.link)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmark.evaluate.worker", str(fds.result), limits.to_arg(), *link],
        stdin=fds.stdin,
        stdout=fds.log,
        stderr=subprocess.STDOUT,
        pass_fds=tuple(fd for fd in (fds.result, fds.link) if fd is not None),
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    return proc, "spawn"


def session_members(sid: int) -> list[int]:
    """Every process of session `sid` (Linux /proc; empty elsewhere)."""
    members = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rfind(")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp session ...
        if len(fields) > 3 and int(fields[3]) == sid:
            members.append(int(entry))
    return members


def kill_session(sid: int) -> None:
    """SIGKILL the worker's process group and every other process of its session: ninja starts each
    compiler in a process group of its own, so killing the group alone left compilers running after a
    build limit ran out. A process that left the session (setsid) is beyond reach, as before."""
    try:
        os.killpg(sid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for _ in range(3):  # members that forked while being killed
        members = [pid for pid in session_members(sid) if pid != os.getpid()]
        if not members:
            return
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@dataclass
class _Child:
    """One started worker as the parent sees it."""

    role: str
    proc: subprocess.Popen | ForkedChild
    started_by: str
    pipe: Pipe
    log_path: Path
    stdin_w: int

    def send(self, envelope: Envelope) -> None:
        try:
            with open(self.stdin_w, "wb") as stdin:
                stdin.write(encode(envelope).encode())
        except BrokenPipeError:
            pass


def _launch(
    role: str,
    job: object,
    clock: str,
    folder: Path,
    env: dict[str, str],
    limits: Limits,
    on_clock: Callable[[str], None],
    link: socket.socket | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> _Child:
    """Start one worker in `folder` (its cwd and TMPDIR) and hand it its envelope on stdin."""
    nonce = secrets.token_hex(32)
    log_path = folder / f"{role}.log"
    read_fd, write_fd = os.pipe()
    stdin_r, stdin_w = os.pipe()
    link_fd = None if link is None else link.fileno()
    with open(log_path, "wb") as log_file:
        proc, started_by = _start(
            str(folder),
            scrubbed_env({**env, "TMPDIR": str(folder)}),
            limits,
            Descriptors(result=write_fd, log=log_file.fileno(), stdin=stdin_r, link=link_fd),
        )
    os.close(write_fd)
    os.close(stdin_r)
    # The candidate's process sends clock messages only: whatever else it writes is read and dropped,
    # so a flood of its result pipe costs this process no memory.
    pipe = Pipe(read_fd, nonce, on_clock, keep=role != "candidate", on_phase=on_phase)
    child = _Child(role, proc, started_by, pipe, log_path, stdin_w)
    child.send(Envelope(role, _plain_job(job), nonce, clock))
    return child


def _plain_job(job: object) -> dict:
    return json.loads(encode(job))


def _finish(
    children: list[_Child], over: tuple[str, bool] | None, clocks: Clocks, t0: float
) -> list[ChildOutcome]:
    """Kill every child's session, reap them, and describe each."""
    stopped = time.monotonic()  # what the clocks charge: killing and reaping are not the children's
    for child in children:
        os.close(child.pipe.fd)
        kill_session(child.proc.pid)  # the worker and anything it started
    returncodes = [child.proc.wait() for child in children]
    end = time.monotonic()
    charged = {name: clocks.spent(name, stopped) for name in clocks.charged}
    outcomes = []
    for child, rc in zip(children, returncodes, strict=True):
        tail = child.log_path.read_text(errors="replace")[-3000:] if child.log_path.exists() else ""
        outcomes.append(
            ChildOutcome(
                None if over else child.pipe.result(),
                rc,
                over is not None,
                end - t0,
                tail,
                limit=over[0] if over else None,
                limits=dict(clocks.limits),
                charged_s=charged,
                capped=bool(over and over[1]),
                started_by=child.started_by,
                phase=child.pipe.phase,
            )
        )
    return outcomes


def run_job(
    role: str,
    job: object,
    limits: float | Mapping[str, float],
    workdir: Path | None = None,
    env: dict[str, str] | None = None,
    clock: str = "run",
) -> ChildOutcome:
    """Run one worker of `role` on `job` (a boundary record), its time counted against `limits`
    (seconds per clock; a number is the limit of `clock`, the child's first clock); kill its whole
    process group when a clock runs out. The clocks start when the child does, never while it
    waits to be run."""
    limits = {clock: float(limits)} if isinstance(limits, int | float) else dict(limits)
    following = Following(initial=clock)
    with tempfile.TemporaryDirectory(prefix="solbench-", dir=workdir) as tmp:
        child = _launch(role, job, clock, Path(tmp), env or {}, child_limits(limits), following.says)
        t0 = time.monotonic()  # after the start: a wait for the zygote to become ready is not the child's
        clocks = following.start(Clocks(limits, clock, t0))
        over = None
        try:
            over = _read_until([child.pipe], child.pipe, clocks)
        finally:
            (outcome,) = _finish([child], over, clocks, t0)
    return outcome


class Following:
    """The clocks a child's messages switch (`says`), once they exist (`start`)."""

    def __init__(self, initial: str):
        self.clocks: Clocks | None = None
        self.current = initial

    def start(self, clocks: Clocks) -> Clocks:
        self.clocks = clocks
        return clocks

    def says(self, name: str) -> None:
        self.current = name
        if self.clocks is not None:
            self.clocks.switch(name, time.monotonic())


@dataclass(frozen=True)
class PairOutcome:
    """The judge's outcome (its result the report) and the candidate's process's (no result)."""

    judge: ChildOutcome
    candidate: ChildOutcome


class PairClock:
    """Which limit a sample's time counts against while two children work on it: none while the
    judge waits for the device lock, the build limit (or none) while the candidate's process builds
    (or waits for another process's build), else the run limit."""

    def __init__(self, sample: Sample | None = None) -> None:
        self.clocks: Clocks | None = None
        self.judge = self.candidate = "run"
        self.sample = sample

    def judge_says(self, name: str) -> None:
        self.judge = name
        if self.sample is not None:
            self.sample.wait(name == WAIT)
        self._switch()

    def candidate_says(self, name: str) -> None:
        self.candidate = name
        self._switch()

    def _switch(self) -> None:
        if self.clocks is not None:
            name = WAIT if self.judge == WAIT else self.candidate
            self.clocks.switch(name, time.monotonic())


def run_pair(
    judge_job: JudgeJob,
    candidate_job: CandidateJob,
    limits: Mapping[str, float],
    workdir: Path | None = None,
    env: dict[str, str] | None = None,
    sample: Sample | None = None,
) -> PairOutcome:
    """One sample in two workers: the candidate's process, started first (its import runs while the
    judge computes the reference), and the judge, joined by a socket pair (benchmark.evaluate.link).
    Both are killed, with everything they started, when the judge has reported or a limit runs out;
    the sample's clocks follow both (`PairClock`), and `sample` the judge's phase, for display."""
    limits = dict(limits)
    pair = PairClock(sample)
    judge_end, candidate_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with tempfile.TemporaryDirectory(prefix="solbench-", dir=workdir) as tmp:
        folder, children, over = Path(tmp), [], None
        try:
            with candidate_end:
                children.append(
                    _launch(
                        "candidate",
                        candidate_job,
                        "run",
                        folder,
                        env or {},
                        child_limits(limits),
                        pair.candidate_says,
                        candidate_end,
                    )
                )
            # a lock member from its start: its context's making is no neighbour's timing to wait out
            gpu_lock.admit(judge_job.device_lock, children[0].proc.pid)
            judge_job = replace(judge_job, candidate_pid=children[0].proc.pid)
            with judge_end:
                children.append(
                    _launch(
                        "judge",
                        judge_job,
                        "run",
                        folder,
                        env or {},
                        child_limits(limits),
                        pair.judge_says,
                        judge_end,
                        on_phase=None if sample is None else sample.enter,
                    )
                )
            t0 = time.monotonic()  # after the starts: waiting for the zygote is not the sample's
            clocks = Clocks(limits, "run", t0)
            pair.clocks = clocks
            over = _read_until([c.pipe for c in children], children[-1].pipe, clocks)
        finally:
            if len(children) < 2:  # a start failed: nothing to wait for
                for child in children:
                    os.close(child.pipe.fd)
                    kill_session(child.proc.pid)
                    child.proc.wait()
        candidate, judge = _finish(children, over, clocks, t0)
        gpu_lock.dismiss(judge_job.device_lock, children[0].proc.pid)  # admitted at its start
    return PairOutcome(judge, candidate)
