"""The verifier: the harness at scale, and the one path every consumer evaluates through
(benchmark.run, the dataset builder's rejection filter, RL rewards, leaderboard verification).

Two pools, as MooreEval separates them: a build pool of CPU workers compiles candidates' extensions
into the shared, content-keyed build cache (with the GPUs hidden), and an execution pool with a
fixed number of lanes per device runs correctness and timing, each sample still in a fresh
sandboxed child with every strict check. Builds run ahead of execution, so compile and execution
overlap; identical extension code is built once per host, whichever run or worker asks first.
Builds run under the build limit and executions under the run limit (EvalConfig), each clock
started when its child starts, so waiting for a pool's slot costs a sample nothing. The reference's
outputs and timings are computed once per task, seed, device and settings and handed to later
samples of that task (benchmark.evaluate.reference_store, in this process's memory).

    with Verifier(VerifierConfig(eval=EvalConfig(device="cuda"))) as v:
        futures = [v.submit(task, code) for task, code in batch]
        rewards = [v.reward(f.result()) for f in futures]
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Self

from benchmark.evaluate import activity
from benchmark.evaluate.boundary import MEMORY_ENV, ROOM_ENV
from benchmark.evaluate.harness import (
    BuildOutcome,
    EvalConfig,
    Prepared,
    TaskError,
    build,
    build_verdict,
    evaluate,
    execute,
    prepare,
    prepare_headers,
)
from benchmark.evaluate.reference_store import DEFAULT_ENTRY_BYTES, DEFAULT_STORE_BYTES, ReferenceStore
from benchmark.evaluate.sandbox import ZYGOTE, warm_up, zygote_enabled
from benchmark.task import Task, sha256_text
from benchmark.verdict import Status, Verdict
from benchmark.verify.reward import RewardConfig, shaped_reward

log = logging.getLogger(__name__)


def visible_gpus() -> list[int]:
    """Device indices this process may use (CUDA_VISIBLE_DEVICES is honoured by the children)."""
    import torch

    return list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []


def timed_gpus(gpus: Sequence[int] | None) -> list[int]:
    """The GPUs a CUDA verifier times on: those asked for, else every visible one."""
    return list(gpus if gpus is not None else visible_gpus())


def default_build_cores() -> int:
    """The cores builds may keep busy: those this process may run on (a container's cpuset narrows
    them, which os.cpu_count ignores), less one for the parent and the execution lanes."""
    return max(1, len(os.sched_getaffinity(0)) - 1)


MAX_BUILD_JOBS = 2  # a load_inline build compiles at most main.cpp and cuda.cu at once


@dataclass(frozen=True)
class VerifierConfig:
    eval: EvalConfig = field(default_factory=EvalConfig)
    build_cores: int = field(default_factory=default_build_cores)  # cores the build pool keeps busy
    build_workers: int | None = None  # concurrent builds; None: one per build core
    gpus: tuple[int, ...] | None = None  # devices to execute on; None: every visible one
    lanes_per_device: int = 1  # concurrent executions per device; above 1 they share it through a
    # reader-writer lock: checks run side by side, timing runs alone (benchmark.evaluate.gpu_lock)
    reward: RewardConfig = field(default_factory=RewardConfig)
    reference_store_bytes: int = (
        DEFAULT_STORE_BYTES  # reference work kept for later samples of a task; 0: off
    )
    reference_entry_bytes: int = DEFAULT_ENTRY_BYTES  # largest reference outputs kept for one task

    def __post_init__(self):
        if self.build_cores < 1 or self.builds_at_once < 1 or self.lanes_per_device < 1:
            raise ValueError("build_cores, build_workers and lanes_per_device must be at least 1")
        if self.reference_store_bytes < 0 or self.reference_entry_bytes < 0:
            raise ValueError(
                "reference_store_bytes and reference_entry_bytes cannot be negative (0 turns the store off)"
            )

    @property
    def builds_at_once(self) -> int:
        return self.build_cores if self.build_workers is None else self.build_workers

    @property
    def build_jobs(self) -> int:
        """ninja's jobs per build (MAX_JOBS): the build cores shared out among the builds, so that
        builds x jobs never exceeds build_cores (ninja's own default is every core plus two, per
        build); more builds than cores, a caller's choice, get one job each."""
        return max(1, min(MAX_BUILD_JOBS, self.build_cores // self.builds_at_once))


@dataclass(frozen=True)
class Request:
    task: Task
    code: str | None
    sample: int = 0
    turn: int = 1
    model: str = ""
    sol_ms: float | None = None
    trusted: bool = False


def _sample(req: Request) -> dict:
    """A request's sample as the harness's stages take it (keywords)."""
    return dict(sample=req.sample, turn=req.turn, model=req.model, sol_ms=req.sol_ms, trusted=req.trusted)


def evaluate_request(req: Request, cfg: EvalConfig, **where) -> Verdict:
    """`harness.evaluate` on a request, every stage in turn; `where` is how this executor runs it
    (gpu, device_lock, built, reference_store)."""
    return evaluate(req.task, req.code, cfg, **_sample(req), **where)


def prepare_request(req: Request, cfg: EvalConfig) -> Prepared | Verdict:
    """`harness.prepare` on a request: its verdict where no build and no device are needed."""
    return prepare(req.task, req.code, cfg, **_sample(req))


ROOM_SHARE = 0.9  # of the room the judges read, what the lanes' learned needs may add up to
PROBE_WAIT_S = 15.0  # the longest a task's samples wait for its first sample's reading (it may hang)


class DeviceShare:
    """The lanes of one device. A sample starts when its task's device memory fits beside the
    samples running, or when none runs; among the samples that could start, in the order they asked
    (so a large sample is not passed by small ones forever). A task's need is learned from its
    samples' readings (`learn`); a task not measured yet counts as what measured tasks take. With
    `probe` (a GPU), a task's first sample finds its need out: the task's other samples wait for its
    reading (PROBE_WAIT_S at most), the other tasks' samples do not. And a way for one sample to
    have the device alone: a sample whose device memory ran out while other lanes held theirs is run
    again once they have finished, with no new one started meanwhile, so its verdict is the one
    `benchmark.check` gives it on an idle GPU. Waiting here is before the sample's clocks start: it
    costs the sample nothing."""

    def __init__(self, probe: bool = False) -> None:
        self.probe = probe
        self._cond = threading.Condition()
        self._running = 0
        self._alone_waiting = 0
        self._alone = False
        self._held = 0  # bytes the running samples' learned needs add up to
        # ticket -> (task key, until when it waits for its task's probe) of each sample waiting to start, oldest first
        self._waiting: dict[int, tuple[str, float]] = {}
        self._tickets = itertools.count()
        self._needs: dict[str, int] = {}  # task key -> the most device memory one of its samples held
        self._seen: set[str] = set()  # task keys a sample of which has finished
        self._probing: set[str] = set()  # task keys whose first sample runs now
        self.room: int | None = None  # bytes the lanes may hold together (the latest reading)

    def need(self, key: str) -> int:
        with self._cond:
            return self._need(key)

    def _need(self, key: str) -> int:
        """`key`'s learned need; for a task not measured yet, the median of the tasks measured (0
        before any), so a run of many distinct tasks is admitted by what such tasks take."""
        if key in self._needs:
            return self._needs[key]
        return int(statistics.median(self._needs.values())) if self._needs else 0

    def learn(self, key: str, verdict: Verdict | None) -> None:
        """A sample of `key` has finished: take its reading (benchmark.evaluate.boundary.MEMORY_ENV,
        ROOM_ENV; None or no reading: its need stays unknown, so nothing waits for it)."""
        env = verdict.env if verdict is not None else {}
        pair, room = _mib(env.get(MEMORY_ENV)), _mib(env.get(ROOM_ENV))
        with self._cond:
            if pair is None and verdict is not None and verdict.status is Status.PASS:
                self.probe = False  # a judge that ran to the end read nothing: no reading will come
            if pair is not None:
                self._needs[key] = max(pair, self._needs.get(key, 0))
            if room is not None:
                self.room = room
            self._seen.add(key)
            self._probing.discard(key)
            self._cond.notify_all()

    def _behind_probe(self, ticket: int, now: float) -> bool:
        key, until = self._waiting[ticket]
        return key in self._probing and now < until

    def _may_start(self, ticket: int, now: float) -> bool:
        if self._alone or self._alone_waiting or self._behind_probe(ticket, now):
            return False
        head = next(t for t in self._waiting if not self._behind_probe(t, now))
        if head != ticket:
            return False
        need = self._need(self._waiting[ticket][0])
        return self._running == 0 or self.room is None or self._held + need <= ROOM_SHARE * self.room

    @contextlib.contextmanager
    def lane(self, key: str = "") -> Iterator[None]:
        with self._cond:
            ticket = next(self._tickets)
            until = time.monotonic() + PROBE_WAIT_S
            self._waiting[ticket] = (key, until)
            try:
                while not self._may_start(ticket, now := time.monotonic()):
                    self._cond.wait(until - now if self._behind_probe(ticket, now) else None)
            finally:
                del self._waiting[ticket]
                self._cond.notify_all()
            if self.probe and key not in self._seen:
                self._probing.add(key)
            need = self._need(key)
            self._running += 1
            self._held += need
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._held -= need
                self._cond.notify_all()

    def run(self, evaluate: Callable[[], Verdict], shared: bool, key: str = "") -> tuple[Verdict, bool]:
        """`evaluate` in a lane (admitted by `key`'s learned need), and once more alone where its device
        memory ran out while other lanes may have held theirs (`shared`): the candidate's (an
        out-of-memory verdict) or the reference's (a TaskError, raised again where it recurs alone).
        The verdict, and whether it was run again."""
        verdict = None
        try:
            with self.lane(key):
                try:
                    verdict = evaluate()
                    again = shared and verdict.out_of_memory
                except TaskError as e:
                    if not (shared and e.out_of_memory):
                        raise
                    again = True
            if again:
                with self.alone():
                    verdict = evaluate()
            return verdict, again
        finally:
            self.learn(key, verdict)

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        with self._cond:
            self._alone_waiting += 1
            self._cond.wait_for(lambda: self._running == 0 and not self._alone)
            self._alone_waiting -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._cond:
                self._alone = False
                self._cond.notify_all()


def _mib(value: str | None) -> int | None:
    """Bytes from a verdict's MiB entry; None for none or a malformed one."""
    try:
        return int(value) * 2**20 if value is not None else None
    except ValueError:
        return None


class VerifierBase:
    """The API every verifier offers (this process's pools, Ray, a remote service) over its own
    `submit_request` and `close`: what the runner and the trainers call, and a context manager."""

    config: VerifierConfig

    def submit_request(self, req: Request) -> Future[Verdict]:
        raise NotImplementedError

    def close(self, cancel_pending: bool = False) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close(cancel_pending=exc[0] is not None)

    def submit(self, task: Task, code: str | None, **kw) -> Future[Verdict]:
        """Queue one (task, code) pair; the future resolves to its Verdict (or raises TaskError)."""
        return self.submit_request(Request(task, code, **kw))

    def verify(self, requests: Iterable[Request]) -> list[Verdict]:
        futures = [self.submit_request(r) for r in requests]
        return [f.result() for f in futures]

    def reward(self, verdict: Verdict) -> float:
        return shaped_reward(verdict, self.config.reward)


class Verifier(VerifierBase):
    def __init__(self, config: VerifierConfig = VerifierConfig()):
        self.config = config
        cuda = config.eval.device == "cuda"
        devices: list[int | None] = list(timed_gpus(config.gpus)) if cuda else []
        if cuda and not devices:
            raise RuntimeError("device is cuda but no GPU is visible")
        self.devices: list[int | None] = devices or [None]
        self._lanes: queue.Queue[int | None] = queue.Queue()
        self._shares = {device: DeviceShare(probe=device is not None) for device in self.devices}
        for device in self.devices:
            for _ in range(config.lanes_per_device):
                self._lanes.put(device)
        self._builds = ThreadPoolExecutor(config.builds_at_once, thread_name_prefix="solbench-build")
        self._execs = ThreadPoolExecutor(self._lanes.qsize(), thread_name_prefix="solbench-exec")
        self._built: dict[str, Future] = {}  # code hash -> build future, so each code is built once
        self._lock = threading.Lock()
        self._stats_lock = threading.Lock()  # the pools' threads all count
        self.reference_store = (
            ReferenceStore(config.reference_store_bytes, config.reference_entry_bytes)
            if config.reference_store_bytes
            else None
        )
        self.stats = {"submitted": 0, "built": 0, "build_cache_hits": 0, "executed": 0, "run_alone": 0}
        warm_up()  # the zygote imports while the first builds run (benchmark.evaluate.zygote)

    # lifecycle
    def warm(self, headers: bool = True) -> dict[str, float]:
        """Pay the one-time costs now, for a consumer whose clock starts after them (an RL run, a
        throughput benchmark): the zygote's start, and (`headers`) torch's extension header
        precompiled for load_inline's default flags, once per installation and build cache. Their
        seconds, measured side by side (the header in a build child, the zygote in this thread)."""
        seconds: dict[str, float] = {}
        maker = None
        if headers:
            maker = self._builds.submit(prepare_headers, self.config.eval)
        t0 = time.monotonic()
        if zygote_enabled():
            ZYGOTE.ready()
            seconds["zygote_s"] = time.monotonic() - t0
        if maker is not None:
            made = maker.result()
            seconds["headers_s"] = time.monotonic() - t0
            if not made.ok:
                log.warning("torch's header was not precompiled: %s", made.error)
        return seconds

    def close(self, cancel_pending: bool = False) -> None:
        self._builds.shutdown(wait=True, cancel_futures=cancel_pending)
        self._execs.shutdown(wait=True, cancel_futures=cancel_pending)

    # the API (with VerifierBase's)
    def submit_request(self, req: Request) -> Future[Verdict]:
        self._count("submitted")
        result: Future[Verdict] = Future()
        prepared = prepare_request(req, self.config.eval)
        if isinstance(prepared, Verdict):
            result.set_result(prepared)
            return result
        label = activity.label(prepared.task.task_id, prepared.base["sample"])
        self._build_future(prepared.code, label).add_done_callback(
            lambda b: self._after_build(prepared, b, result)
        )
        return result

    # internals
    def _count(self, key: str) -> None:
        with self._stats_lock:
            self.stats[key] += 1

    def _build_future(self, code: str, label: str) -> Future:
        key = sha256_text(code)
        with self._lock:
            fut = self._built.get(key)
            if fut is not None:
                self._count("build_cache_hits")
                return fut
            fut = self._builds.submit(self._build, code, label)
            self._built[key] = fut
            return fut

    def _build(self, code: str, label: str) -> BuildOutcome:
        with activity.track(label, "compile"):
            return build(code, self.config.eval, {"MAX_JOBS": str(self.config.build_jobs)})

    def _after_build(self, prepared: Prepared, build_future: Future, result: Future) -> None:
        if build_future.cancelled():  # the verifier was closed before this build started
            result.cancel()
            return
        try:
            outcome = build_future.result()
        except BaseException as e:  # noqa: BLE001 - a broken build worker must not lose the sample
            log.warning("build worker failed for %s: %r; executing anyway", prepared.task.task_id, e)
            outcome = BuildOutcome(False, f"build worker failed: {e!r}")  # the candidate's process builds
        self._count("built")
        verdict = build_verdict(outcome, prepared)
        if verdict is not None:
            result.set_result(verdict)
            return
        try:
            self._execs.submit(self._execute, prepared, result, outcome)
        except RuntimeError as e:  # the verifier was closed with this sample still queued
            result.set_exception(e)

    def _execute(self, prepared: Prepared, result: Future, built: BuildOutcome) -> None:
        device = self._lanes.get()
        try:
            lock = None  # on CUDA the harness takes the host's lock of the device
            if self.config.lanes_per_device > 1 and self.config.eval.device != "cuda":
                lock = str(self.config.eval.cache_dir / "locks" / "device-cpu")
            verdict, again = self._shares[device].run(
                lambda: execute(
                    prepared,
                    self.config.eval,
                    built,
                    gpu=device,
                    device_lock=lock,
                    reference_store=self.reference_store,
                ),
                shared=self.config.lanes_per_device > 1,
                key=prepared.task.hash,
            )
            if again:
                self._count("run_alone")
            self._count("executed")
            result.set_result(verdict)
        except TaskError as e:
            result.set_exception(e)
        except BaseException as e:  # noqa: BLE001 - every submitted sample gets an answer
            result.set_result(
                Verdict.unmeasured(Status.RUNTIME_ERROR, f"harness error: {e!r}", **prepared.base)
            )
        finally:
            self._lanes.put(device)


def serial_verify(requests: Iterable[Request], config: EvalConfig) -> list[Verdict]:
    """The one-at-a-time baseline the throughput benchmark compares the pools with."""
    return [evaluate_request(r, config) for r in requests]
