"""A process pool that survives the death of its workers.

A task that crashes its worker (a segfault in a compiler, the kernel's OOM killer) breaks a
`ProcessPoolExecutor` and fails every item in flight with it. `RestartingPool` puts the lost items
back at the front of the queue, starts a fresh pool and goes on; an item in flight during
`max_crashes` such deaths is given up (reported as crashed), so a task that always kills its worker
cannot stall the build. Which item killed the worker is not known: every item in flight when the
pool broke is charged the crash.

Workers are spawned, never forked (the builder's process runs threads: verifier callbacks,
progress bars)."""

from __future__ import annotations

import logging
import multiprocessing
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What became of one item: its result, the exception it raised, or `crashed` when its worker
    died `max_crashes` times with it in flight."""

    key: Hashable
    result: Any = None
    error: Exception | None = None
    crashed: bool = False


class RestartingPool:
    """`workers` spawned processes, each set up once by `initializer(*initargs)`; at most `window`
    items in flight (default twice the workers). Use as a context manager: leaving it shuts the
    pool down and cancels what was not started."""

    def __init__(
        self,
        workers: int,
        initializer: Callable[..., None] | None = None,
        initargs: tuple = (),
        *,
        max_crashes: int = 2,
        window: int | None = None,
    ):
        if workers < 1:
            raise ValueError(f"a pool needs at least one worker, got {workers}")
        self.workers = workers
        self.initializer = initializer
        self.initargs = initargs
        self.max_crashes = max_crashes
        self.window = window or 2 * workers
        self.restarts = 0  # pools started again after a worker died
        self._context = multiprocessing.get_context("spawn")
        self._pool: ProcessPoolExecutor | None = None

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers, mp_context=self._context, initializer=self.initializer, initargs=self.initargs
        )

    def __enter__(self) -> RestartingPool:
        self._pool = self._start()
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def run(
        self,
        fn: Callable[..., Any],
        keys: Iterable[Hashable],
        args: Callable[[Hashable], tuple],
        should_stop: Callable[[], bool] = lambda: False,
    ) -> Iterator[Outcome]:
        """Run `fn(*args(key))` for every key, in order, and yield each outcome as it is known.
        `should_stop` is asked before each submission: once true, nothing new starts and the items
        in flight finish. `fn` must be importable by the spawned workers (a module-level function)."""
        if self._pool is None:
            raise RuntimeError("RestartingPool.run needs the pool entered (use it in a with block)")
        queue = list(reversed(list(keys)))  # popped from the end: the next item is queue[-1]
        crashes: dict[Hashable, int] = defaultdict(int)
        pending: dict[Future, Hashable] = {}
        while queue or pending:
            while queue and len(pending) < self.window and not should_stop():
                key = queue.pop()
                pending[self._pool.submit(fn, *args(key))] = key
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                key = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken = True
                    crashes[key] += 1
                    if crashes[key] >= self.max_crashes:
                        yield Outcome(key, crashed=True)
                    else:
                        queue.append(key)
                except Exception as e:  # noqa: BLE001 - the caller decides what a failed item means
                    yield Outcome(key, error=e)
                else:
                    yield Outcome(key, result=result)
            if broken:
                for key in list(pending.values()):
                    crashes[key] += 1
                    queue.append(key)
                pending.clear()
                self._pool.shutdown(wait=False, cancel_futures=True)
                log.warning("a worker process died; restarting the pool")
                self._pool = self._start()
                self.restarts += 1
