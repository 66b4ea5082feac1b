"""Warm, still isolated workers: a zygote process that has imported torch and the worker once, and
forks one fresh child per sample.

Why: a spawned `python -m benchmark.evaluate.worker` spends about 2 s of every sample importing torch. The
zygote pays that once per evaluating process; a sample then starts in milliseconds as a fork of
it. Each child is a fresh fork of the same clean zygote, which never runs task or candidate code
and never initializes CUDA (it checks), so nothing of one sample survives into the next.

Why a separate process: the evaluating process is multi-threaded (the verifier's pools) and must
never fork itself. The zygote is single-purpose: it imports (PRELOAD), then forks on request, and
only while it has one thread (`fork_alone`; the pool OpenBLAS would start at import is kept to its
calling thread, SINGLE_THREADED_ENV). The parent asks over a socket pair, passing the result pipe's
write end, the log file, the job's stdin and (for the judge and the candidate's process) their
channel's end with SCM_RIGHTS, and a reply socket on which the zygote answers the child's pid and,
once it has reaped the child, its exact exit status. Each sample is two children: the judge and the
candidate's process (benchmark.evaluate.sandbox.run_pair).

The forked child becomes what a spawned worker is: its own session and process group (the
parent's kill of the group still kills everything it started), stdout and stderr on the log,
stdin the job, the job's directory as cwd and sys.path[0], the environment the parent computed
(os.environ and the C environment), and none of the zygote's descriptors; then it runs
`benchmark.evaluate.worker.serve`, which confines it (its death signal armed against the zygote, which
itself dies with the evaluating process) exactly as a spawned worker confines itself.

What a fork cannot change is what a library read at import: the zygote serves only jobs whose
environment equals its own outside PER_JOB_ENV (variables read when used, not at import);
others are spawned (benchmark.evaluate.sandbox). A few libraries keep a value from import time that the
child cannot refresh (dill.session's TEMPDIR); tempfile's cached directory is reset."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from benchmark.evaluate import confine
from benchmark.evaluate.confine import Limits

log = logging.getLogger(__name__)

PRELOAD = (
    "benchmark.evaluate.worker",
    "benchmark.evaluate.sol",
    "benchmark.evaluate.device_profile",
    "benchmark.cuda_raw",
    "benchmark.evaluate.judge",
    "benchmark.evaluate.candidate_server",
)
OPTIONAL_PRELOAD = ("triton", "triton.language")  # imported where installed (Triton candidates)
# Read when used, so they may differ per job: a fork honours them. Any other variable must match
# the zygote's own environment (OMP_NUM_THREADS, LD_LIBRARY_PATH, CUDA_HOME, ... are read at import).
PER_JOB_ENV = frozenset(
    {
        "TMPDIR",
        "CUDA_VISIBLE_DEVICES",
        "TRITON_CACHE_DIR",
        "HELION_AUTOTUNE_EFFORT",  # read when a Helion kernel is decorated
        "SOLBENCH_CACHE",
        "TORCH_CUDA_ARCH_LIST",
        "TORCH_EXTENSIONS_DIR",
        "SOLBENCH_PCH",
        "SOLBENCH_LIGHT_CU",
        "MAX_JOBS",  # the last three: read when a build runs
    }
)
START_TIMEOUT_S = 300.0  # the zygote's imports, on a busy host
REPLY_TIMEOUT_S = 60.0  # from a fork request to the child's pid
MAX_MESSAGE = 1 << 20
SETUP_FAILED = 70  # exit status of a child whose set-up failed before the worker ran


@dataclass(frozen=True)
class ForkRequest:
    cwd: str  # the job's directory (also its TMPDIR)
    env: dict[str, str]  # the job's whole environment
    limits: Limits  # the worker's limits; the zygote names itself as the parent to die with


@dataclass(frozen=True)
class Descriptors:
    result: int  # write end of the result pipe
    log: int  # the log file: the child's stdout and stderr
    stdin: int  # read end of the pipe the job is written to
    link: int | None = None  # the judge's or the candidate's end of their channel (benchmark.evaluate.link)

    def passed(self) -> list[int]:
        return [self.result, self.log, self.stdin] + ([] if self.link is None else [self.link])


def _recv_json(sock: socket.socket) -> dict | None:
    data = sock.recv(MAX_MESSAGE)
    return json.loads(data) if data else None


def _send_json(sock: socket.socket, msg: dict) -> None:
    with contextlib.suppress(OSError):  # the other side is gone: nobody to tell
        sock.send(json.dumps(msg).encode())


class ForkedChild:
    """A worker the zygote forked, seen from the parent: a pid, and an exit status only the zygote
    can reap, read from the reply socket (as `subprocess.Popen.wait` would give it)."""

    def __init__(self, pid: int, reply: socket.socket):
        self.pid = pid
        self.reply = reply

    def wait(self) -> int | None:
        """The exit status, negative for a signal; None when the zygote died before telling."""
        self.reply.settimeout(None)
        try:
            msg = _recv_json(self.reply)
        except OSError:
            msg = None
        finally:
            self.reply.close()
        return msg.get("returncode") if msg else None


class ZygoteGone(Exception):
    """The zygote died or stopped answering: a new one may serve the job."""


@dataclass
class _Running:
    """One started zygote: its process, the parent's end of its control socket, its environment."""

    proc: subprocess.Popen
    control: socket.socket
    env: dict[str, str]
    dead: threading.Event

    def accepts(self, env: dict[str, str]) -> bool:
        keys = (set(env) | set(self.env)) - PER_JOB_ENV
        return all(env.get(k) == self.env.get(k) for k in keys)

    def fork(self, request: ForkRequest, fds: Descriptors) -> ForkedChild | None:
        """Ask for one child; None when the zygote refused (it could not fork)."""
        if self.dead.is_set():
            raise ZygoteGone("the zygote exited")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        body = {"cwd": request.cwd, "env": request.env, "limits": request.limits.to_arg()}
        try:
            socket.send_fds(self.control, [json.dumps(body).encode()], [theirs.fileno(), *fds.passed()])
            ours.settimeout(REPLY_TIMEOUT_S)
            msg = _recv_json(ours)
        except TimeoutError as e:
            ours.close()
            self.kill()
            raise ZygoteGone("the zygote did not answer a fork request") from e
        except OSError as e:
            ours.close()
            raise ZygoteGone(f"the zygote's socket failed: {e!r}") from e
        finally:
            theirs.close()
        if msg is None:
            ours.close()
            raise ZygoteGone("the zygote died before answering")
        if "pid" not in msg:
            ours.close()
            log.warning("the zygote refused a fork: %s", msg.get("error"))
            return None
        return ForkedChild(msg["pid"], ours)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.control.close()


class Zygote:
    """The parent's handle on its zygote: started on first use (or `prestart`), shared by every
    thread, restarted when it has died. One that never became ready is not tried again."""

    def __init__(self, env: Callable[[], dict[str, str]]):
        self._env = env  # the zygote's environment, computed when it starts
        self._lock = threading.Lock()
        self._running: _Running | None = None
        self._starting = threading.Event()  # a thread is starting it (its imports take seconds)
        self.broken: str | None = None  # why no zygote is started any more
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        """A forked copy of the parent starts its own zygote: this one dies with the original."""
        self._lock = threading.Lock()
        self._running = None

    @property
    def pid(self) -> int | None:
        running = self._running
        return running.proc.pid if running and not running.dead.is_set() else None

    def ready(self) -> bool:
        """Start the zygote unless it runs; whether one is ready now."""
        return self._current() is not None

    def retry(self) -> None:
        """Forget a failed start, so the next use starts another zygote: for a caller that killed this
        process's children on purpose (a benchmark arm cut mid-flight), which a starting zygote was."""
        with self._lock:
            self.broken = None

    def prestart(self) -> None:
        """Start the zygote in the background, so the first sample does not wait for its imports."""
        threading.Thread(target=self.ready, name="solbench-zygote-start", daemon=True).start()

    def fork(self, request: ForkRequest, fds: Descriptors) -> ForkedChild | None:
        """A child forked for `request`, or None: then the caller spawns one. While another thread is
        starting the zygote, None at once: a lane spawns its child rather than wait for the imports."""
        if self._starting.is_set():
            return None
        for _ in range(2):  # a zygote found dead is replaced once
            running = self._current()
            if running is None or not running.accepts(request.env):
                return None
            try:
                return running.fork(request, fds)
            except ZygoteGone as e:
                log.warning("%s; starting another", e)
                self._discard(running)
        return None

    def _current(self) -> _Running | None:
        with self._lock:
            if self._running is not None and self._running.dead.is_set():
                self._running = None
            if self._running is None and self.broken is None:
                self._starting.set()
                try:
                    self._running = self._start()
                finally:
                    self._starting.clear()
            return self._running

    def _discard(self, running: _Running) -> None:
        with self._lock:
            if self._running is running:
                self._running = None
        running.kill()

    def _start(self) -> _Running | None:
        """Launch `python -m benchmark.evaluate.zygote` from a keeper thread that lives as long as the zygote:
        its death signal follows the thread that started it, which must not be a pool's."""
        env = self._env()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        home = tempfile.mkdtemp(prefix="solbench-zygote-")  # its cwd: an empty sys.path[0]
        launched: list[subprocess.Popen | Exception] = []
        dead, started = threading.Event(), threading.Event()

        def keep() -> None:
            try:
                proc = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "benchmark.evaluate.zygote",
                        str(theirs.fileno()),
                        str(os.getpid()),
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    pass_fds=(theirs.fileno(),),
                    cwd=home,
                    env=env,
                    start_new_session=True,
                )
            except Exception as e:  # noqa: BLE001 - handed to the starting thread, which spawns instead
                launched.append(e)
            else:
                launched.append(proc)
                started.set()
                proc.wait()
            finally:
                started.set()
                dead.set()
                shutil.rmtree(home, ignore_errors=True)

        threading.Thread(target=keep, name="solbench-zygote", daemon=True).start()
        started.wait()
        theirs.close()
        proc = launched[0]
        if isinstance(proc, Exception):
            ours.close()
            self.broken = f"the zygote could not start: {proc!r}"
            log.warning("%s; workers are spawned", self.broken)
            return None
        ours.settimeout(START_TIMEOUT_S)
        t0 = time.monotonic()
        failure = None
        try:
            hello = _recv_json(ours)
        except (OSError, ValueError) as e:  # ValueError: a message that is not JSON
            hello, failure = None, e
        if not hello or hello.get("ready") != proc.pid:
            running = _Running(proc, ours, env, dead)
            exit_code = proc.poll()  # None: still importing when its parent gave up on it
            running.kill()
            # the reason (end of stream or an error) and the exact wait tell a crash from a slow start
            self.broken = (
                f"the zygote did not become ready ({hello if failure is None else repr(failure)}; "
                f"after {time.monotonic() - t0:.2f} s of {START_TIMEOUT_S:g}, exit code {exit_code})"
            )
            log.warning("%s; workers are spawned", self.broken)
            return None
        ours.settimeout(None)
        return _Running(proc, ours, env, dead)


# The zygote's side.


PROBE_TIMEOUT_S = 60.0  # a probe child that has not exited by then hung at the fork
TRACE_ENV = "SOLBENCH_ZYGOTE_TRACE"  # "1": the zygote writes each start-up step to its stderr


def trace(step: str, t0: float) -> None:
    if os.environ.get(TRACE_ENV) == "1":
        print(f"zygote {os.getpid()}: {step} at {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)


def probe_exit_code(pid: int) -> int:
    """The exit code of a probe child; one still running after PROBE_TIMEOUT_S is killed and named,
    so a zygote that never becomes ready says so."""
    deadline = time.monotonic() + PROBE_TIMEOUT_S
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise RuntimeError(
                f"a forked probe child did not exit in {PROBE_TIMEOUT_S:g} s (it hung at the fork)"
            )
        time.sleep(0.01)


def thread_names() -> list[str]:
    """The names of this process's OS threads (Linux; one entry, this one, elsewhere)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return [threading.current_thread().name]
    names = []
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            names.append("?")
    return names


def fork_alone() -> int:
    """os.fork, refused while this process has another thread: a fork copies only the calling
    thread, and whatever the others held (a lock, a half-made pool) would be held forever in the child."""
    names = thread_names()
    if len(names) > 1:
        raise RuntimeError(f"not forking with {len(names)} threads ({', '.join(sorted(names))})")
    return os.fork()


def probe(question: Callable[[], bool]) -> bool:
    """`question` answered in a throwaway forked child; a child that raises or hangs says yes."""
    pid = fork_alone()
    if pid == 0:
        try:
            os._exit(1 if question() else 0)
        except BaseException:  # noqa: BLE001 - any doubt counts as yes
            os._exit(2)
    return probe_exit_code(pid) != 0


def fork_poisoned() -> bool:
    """Whether a child forked now could not use CUDA: torch arms an at-fork hook that marks every
    later child "bad" once this process has asked the CUDA runtime anything (a device count, say)."""

    def in_bad_fork() -> bool:
        import torch

        return torch.cuda._is_in_bad_fork()

    return probe(in_bad_fork)


def warm_flop_counter() -> None:
    """Count one CPU forward with torch's FLOP counter: its first use imports torch._dynamo and
    sympy (800 modules, 2 s on the development machine), which each child's speed-of-light floor
    and profile pass would otherwise pay again."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False), torch.no_grad():
        torch.nn.Linear(4, 4)(torch.zeros(1, 4))


WARM_UPS: tuple[Callable[[], None], ...] = (warm_flop_counter,)


def poisons_fork(action: Callable[[], None]) -> bool:
    """Whether a child forked after `action` could not use CUDA, tried in a throwaway child first,
    since torch's fork poison cannot be disarmed once armed."""

    def poisoned_after() -> bool:
        action()
        return fork_poisoned()

    return probe(poisoned_after)


NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"
# Libraries that start a pool of threads at import (numpy's OpenBLAS does): one thread each in the
# zygote, so that it forks alone (its children never run numpy's BLAS in anger).
SINGLE_THREADED_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "GOTO_NUM_THREADS": "1",
}  # torch.cuda.is_available() through NVML: no runtime call


def preload() -> None:
    """Import what every worker imports, and what Triton candidates do, then run the warm-ups
    (WARM_UPS); refuse a CUDA context, and name the import after which a forked child could no
    longer use CUDA. Meanwhile torch answers availability through NVML, so an import that asks
    leaves fork usable."""
    t0 = time.monotonic()
    previous = os.environ.get(NVML_CHECK)
    os.environ[NVML_CHECK] = "1"
    import torch

    # torch.utils.cpp_extension asks torch.cuda.is_available() at import (where it finds CUDA_HOME):
    # answered through NVML, whose library then keeps a thread of its own, and a zygote with a
    # thread may not fork. So the
    # imports are told what torch was built for, and the function is restored after them.
    is_available = torch.cuda.is_available
    torch.cuda.is_available = torch.cuda._is_compiled
    try:
        steps = [
            ("torch", True),
            *((name, True) for name in PRELOAD),
            *((name, False) for name in OPTIONAL_PRELOAD),
        ]
        loaded = []
        for name, required in steps:
            try:
                importlib.import_module(name)
            except ImportError:
                if required:
                    raise
                continue
            loaded.append(name)
            trace(f"imported {name}", t0)
            if fork_poisoned():
                raise RuntimeError(
                    f"after importing {loaded}, a forked child can no longer use CUDA "
                    f"(torch's fork poison, armed by the import of {name})"
                )
        for warm in WARM_UPS:  # optional: one that would poison fork is skipped
            if poisons_fork(warm):
                log.warning("%s would leave forked children unable to use CUDA; skipped", warm.__name__)
            else:
                warm()
            trace(f"ran {warm.__name__}", t0)
    finally:
        torch.cuda.is_available = is_available
        if previous is None:
            os.environ.pop(NVML_CHECK, None)
        else:
            os.environ[NVML_CHECK] = previous

    if torch.cuda.is_initialized():
        raise RuntimeError(f"importing {loaded} initialized CUDA: a fork would inherit the context")


class Server:
    """The zygote's loop: fork on request, reap children and report their exit, stop with the parent."""

    def __init__(self, control: socket.socket):
        self.control = control
        self.children: dict[int, socket.socket] = {}  # pid -> reply socket
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes select through the wakeup fd

    def own(self) -> list[socket.socket | int]:
        """The zygote's sockets and descriptors, which no child may keep."""
        return [self.control, self.wake_r, self.wake_w, *self.children.values()]

    def run(self) -> None:
        while True:
            ready, _, _ = select.select([self.control, self.wake_r], [], [])
            if self.wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    while os.read(self.wake_r, 4096):
                        pass
                self.reap()
            if self.control in ready:
                data, fds, flags, _ = socket.recv_fds(self.control, MAX_MESSAGE, 5)
                if not data and not fds:  # the parent is gone: so are its samples
                    self.stop()
                    return
                self.handle(data, fds, flags)

    def handle(self, data: bytes, fds: list[int], flags: int) -> None:
        if len(fds) not in (4, 5) or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            for fd in fds:
                os.close(fd)
            return
        reply = socket.socket(fileno=fds[0])
        given = Descriptors(*fds[1:])
        try:
            body = json.loads(data)
            request = ForkRequest(body["cwd"], body["env"], Limits.from_arg(body["limits"]))
            pid = self.fork(request, given, reply)
        except Exception as e:  # noqa: BLE001 - a bad request or a failed fork is answered, not fatal
            _send_json(reply, {"error": f"{e!r}"})
            reply.close()
            return
        finally:
            for fd in fds[1:]:
                os.close(fd)
        self.children[pid] = reply
        _send_json(reply, {"pid": pid})

    def fork(self, request: ForkRequest, fds: Descriptors, reply: socket.socket) -> int:
        """Fork the child; return once it has its own session, so a kill of its group reaches it."""
        limits = dataclasses.replace(request.limits, parent_pid=os.getpid())
        ready_r, ready_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = fork_alone()
        if pid == 0:
            become_worker(request, limits, fds, ready_w, [*self.own(), reply, ready_r])
        os.close(ready_w)
        os.read(ready_r, 1)  # EOF once the child has called setsid (or died)
        os.close(ready_r)
        return pid

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            reply = self.children.pop(pid, None)
            if reply is not None:
                _send_json(reply, {"returncode": os.waitstatus_to_exitcode(status)})
                reply.close()

    def stop(self) -> None:
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


def become_worker(
    request: ForkRequest, limits: Limits, fds: Descriptors, ready_w: int, closing: list[socket.socket | int]
) -> None:
    """In the forked child: become what a spawned worker is, then serve the job. Never returns."""
    try:
        os.setsid()
        os.close(ready_w)  # the zygote answers the parent now
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for own in closing:  # a socket through its object, which then never closes a reused number
            if isinstance(own, socket.socket):
                own.close()
            else:
                os.close(own)
        os.dup2(fds.stdin, 0)
        os.dup2(fds.log, 1)
        os.dup2(fds.log, 2)
        os.close(fds.stdin)
        os.close(fds.log)
        if fds.link is not None:
            os.set_inheritable(fds.link, False)
        if sys.path and sys.path[0] == os.getcwd():  # as `python -m` started in the job's directory
            sys.path[0] = request.cwd
        os.chdir(request.cwd)
        os.environ.clear()
        os.environ.update(request.env)
        tempfile.tempdir = None  # cached at import: TMPDIR is read again
        from benchmark.evaluate import worker

        sys.argv = [worker.__file__, str(fds.result), limits.to_arg()]
        worker.serve(fds.result, limits, fds.link)
    except BaseException:  # noqa: BLE001 - whatever happens, this child never returns to the zygote's loop
        with contextlib.suppress(BaseException):
            traceback.print_exc()
            sys.stderr.flush()
    os._exit(SETUP_FAILED)


def main() -> None:
    """`python -m benchmark.evaluate.zygote FD PARENT_PID`, started by Zygote: die with the parent, import,
    say ready on the control socket FD, then serve fork requests until the parent goes."""
    control = socket.socket(fileno=int(sys.argv[1]))
    control.set_inheritable(False)
    confine.die_with_parent(int(sys.argv[2]))
    confine.protect()  # its memory holds nothing secret, but its children inherit the setting
    os.environ.update(SINGLE_THREADED_ENV)  # before any import: a pool thread would forbid every fork
    try:
        preload()
    except Exception as e:  # noqa: BLE001 - the parent logs why and spawns every worker
        _send_json(control, {"error": f"{type(e).__name__}: {e}"})
        raise
    server = Server(control)
    _send_json(control, {"ready": os.getpid()})
    server.run()


if __name__ == "__main__":
    main()
