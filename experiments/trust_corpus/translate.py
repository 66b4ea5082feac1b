"""Translation of suite tasks into candidates by the dataset builder's Inductor teacher: one task at a
time in this process (`InlineTranslator`), or in spawned worker processes, each with its own teacher
and CUDA context (`PoolTranslator`). A task the translator must refuse whatever Inductor makes of it is
recognised before paying for a compile (`untranslatable`)."""

from __future__ import annotations

import gc
import logging
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future

from benchmark.task import Task
from experiments.trust_corpus.record import first_line


def translate_task(teacher, task: Task, timeout_s: float) -> dict:
    """The teacher's first candidate for `task` (or why there is none), as a plain dict."""
    from benchmark.suite.validate import TaskTimeout, deadline
    from benchmark.task import import_file

    t0 = time.monotonic()
    out = {
        "task_id": task.task_id,
        "code": None,
        "variant": "",
        "skips": [],
        "skip_reason": None,
        "error": None,
    }
    name = f"solbench_trust_{task.hash[:16]}"
    try:
        with deadline(timeout_s):
            module = import_file(task.path, name)
            candidates, skips = teacher.propose(task, module)
        out["skips"] = [f"{s.variant}: {s.reason}: {s.detail[:300]}" for s in skips]
        with_code = [c for c in candidates if c.code]
        if with_code:
            out["code"], out["variant"] = with_code[0].code, with_code[0].variant
        elif skips:
            last = skips[-1]  # what stopped the last variant tried (the retry, where there was one)
            out["skip_reason"] = last.reason
            out["error"] = first_line(last.detail)
        else:
            out["skip_reason"], out["error"] = (
                "no_candidate",
                "the teacher returned neither a candidate nor a skip",
            )
    except TaskTimeout as e:
        out["skip_reason"], out["error"] = "timeout", f"translation took longer than {timeout_s:g} s ({e})"
    except Exception as e:  # noqa: BLE001 - one task's failure is recorded, the corpus goes on
        out["skip_reason"], out["error"] = "teacher_error", first_line(f"{type(e).__name__}: {e}")
    finally:
        sys.modules.pop(name, None)
    out["seconds"] = round(time.monotonic() - t0, 3)
    return out


def untranslatable(task: Task) -> tuple[str, str] | None:
    """(reason, detail) when the translator must refuse `task` whatever Inductor makes of it: it copies
    Model.__init__ (with the constants it reads) and forward's signature from the task's source, so
    a model built from other classes or libraries is skipped here, before paying for a compile."""
    from datasets_builder.teachers.inductor_translate import InductorSkip, check_translatable

    try:
        check_translatable(task.source)
    except InductorSkip as e:
        return e.reason, e.detail
    return None


def inductor_teacher():
    """The teacher every worker builds: the default variant (retried as no_patterns where it applies)."""
    from datasets_builder.teachers.inductor import InductorTeacher

    return InductorTeacher(("default",), device="cuda", seed=0)


_worker: dict = {}


def _init_worker(factory: Callable[[], object], timeout_s: float, threads: int) -> None:
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    import torch

    torch.set_num_threads(threads)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    _worker.update(teacher=factory(), timeout_s=timeout_s)


def _translate_in_worker(task: Task) -> dict:
    try:
        return translate_task(_worker["teacher"], task, _worker["timeout_s"])
    finally:
        gc.collect()
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()


class InlineTranslator:
    """Translation in this process, one task at a time (tests, and the GPU test's small sample)."""

    capacity = 1

    def __init__(self, teacher, timeout_s: float = 0.0):
        self.teacher, self.timeout_s = teacher, timeout_s

    def submit(self, task: Task) -> Future:
        future: Future = Future()
        future.set_result(translate_task(self.teacher, task, self.timeout_s))
        return future

    def restart(self) -> None:
        pass

    def close(self, kill: bool = False) -> None:
        pass


class PoolTranslator:
    """Translation in `workers` spawned processes, each with its own teacher and CUDA context; the
    engine submits at most `workers` tasks at once, so submitting a task is starting it."""

    def __init__(
        self,
        workers: int,
        timeout_s: float,
        factory: Callable[[], object] = inductor_teacher,
        threads_per_worker: int = 2,
    ):
        if workers < 1:
            raise ValueError("a translation pool needs at least one worker; use InlineTranslator for none")
        self.capacity = workers
        self._args = (factory, timeout_s, threads_per_worker)
        self._pool = self._new_pool()

    def _new_pool(self):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(
            self.capacity,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=self._args,
        )

    def submit(self, task: Task) -> Future:
        return self._pool.submit(_translate_in_worker, task)

    def restart(self) -> None:
        self.close(kill=True)
        self._pool = self._new_pool()

    def close(self, kill: bool = False) -> None:
        """`kill`: stop compiles in progress now (at the budget) instead of waiting for them."""
        if kill:
            terminate = getattr(self._pool, "terminate_workers", None)  # Python 3.14
            if terminate is not None:
                terminate()
            else:
                for p in list((getattr(self._pool, "_processes", None) or {}).values()):
                    p.terminate()
        self._pool.shutdown(wait=not kill, cancel_futures=True)
