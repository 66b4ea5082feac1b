"""Synthetic verdicts, run.json records and submissions for the leaderboard tests: a three-task
suite version and models whose speed is scaled by a factor, written the way benchmark.runner
writes real ones."""

from __future__ import annotations

import hashlib

from benchmark.verdict import Correctness, Status, TimingStats, Verdict
from leaderboard.submission import Submission
from leaderboard.suites import SuiteRegistry, SuiteVersion, TaskInfo

SUITE_VERSION = "feedc0de00000001"
TASKS = {
    "level1/relu": (1, ("activation", "elementwise")),
    "level1/row_sum": (1, ("reduction",)),
    "level2/gemm_bias": (2, ("gemm", "fusion")),
}


def task_hash(task_id: str) -> str:
    return hashlib.sha256(task_id.encode()).hexdigest()


def code_hash(task_id: str, sample: int, model: str) -> str:
    return hashlib.sha256(f"{task_id}:{sample}:{model}".encode()).hexdigest()


def registry() -> SuiteRegistry:
    tasks = {t: TaskInfo(level, tags, task_hash(t)) for t, (level, tags) in TASKS.items()}
    return SuiteRegistry({SUITE_VERSION: SuiteVersion(SUITE_VERSION, "test", "2026-11-01", tasks)})


def _timing(ms: float) -> TimingStats:
    return TimingStats(
        runs=20, median_ms=ms, mean_ms=ms, std_ms=0.01 * ms, min_ms=0.95 * ms, max_ms=1.1 * ms, rel_err=0.004
    )


def make_verdict(
    task_id: str,
    sample: int = 0,
    status: Status = Status.PASS,
    speedup: float | None = 1.0,
    model: str = "m",
    device: str = "cuda",
    **kw,
) -> Verdict:
    passed = status is Status.PASS
    fields = dict(
        task_id=task_id,
        status=status,
        sample=sample,
        level=TASKS[task_id][0],
        model=model,
        correctness=Correctness(trials=6, passed=6 if passed else 2),
        reference_time=_timing(1.0),
        candidate_time=_timing(1.0 / speedup) if passed and speedup else None,
        speedup=speedup if passed else None,
        speedup_spread=0.0 if passed and speedup else None,  # the margin is then the 2% floor
        sol_fraction=min(0.3 * speedup, 0.95) if passed and speedup else None,
        sol_ms=0.4 if passed else None,
        error=None if passed else f"{status.value}: something went wrong",
        task_hash=task_hash(task_id),
        code_hash=code_hash(task_id, sample, model) if status is not Status.NO_CODE else "",
        device=device,
        strict=True,
    )
    fields.update(kw)
    return Verdict(**fields)


def run_info(model: str, device: str, samples: int, tasks: list[str]) -> dict:
    gpu = device != "cpu"
    return {
        "command": f"python -m benchmark.run --model {model} --samples {samples}",
        "started": "2026-11-20T10:00:00+00:00",
        "model": model,
        "backend": {"backend": "replay"},
        "sampling": {"samples": samples, "temperature": 0.7, "top_p": 0.95, "max_tokens": 8192, "seed": None},
        "device": device,
        "baseline": "eager",
        "strict": True,
        "suite": "builtin",
        "suite_version": SUITE_VERSION,
        "tasks": tasks,
        "environment": {
            "torch": "2.11.0",
            "cuda": "13.0" if gpu else None,
            "python": "3.11.7",
            "host": "box",
            "gpu": "NVIDIA H200" if gpu else None,
            "driver": "580.65" if gpu else None,
        },
    }


def default_verdicts(
    model: str = "m", device: str = "cuda", samples: int = 2, speed: float = 1.0
) -> list[Verdict]:
    """Every task, `samples` samples each: passing except one incorrect, speedups scaled by `speed`."""
    out = []
    for i, task in enumerate(TASKS):
        for s in range(samples):
            status = Status.INCORRECT if (i, s) == (1, 1) else Status.PASS
            out.append(
                make_verdict(
                    task, s, status, speedup=speed * (0.8 + 0.3 * i + 0.1 * s), model=model, device=device
                )
            )
    return out


def make_submission(
    name: str,
    verdicts: list[Verdict],
    *,
    samples: int = 2,
    device: str = "cuda",
    labels: list[str] | None = None,
) -> Submission:
    return Submission(
        slug=name.lower().replace(" ", "-"),
        name=name,
        org="Test Lab",
        notes=f"notes for {name}",
        labels=labels or [],
        submitted="2026-11-21T09:00:00+00:00",
        run=run_info(verdicts[0].model, device, samples, list(TASKS)),
        summary={},
        verdicts=verdicts,
        tasks={t: {"level": lv, "tags": list(tags)} for t, (lv, tags) in TASKS.items()},
        code={v.code_hash: "class ModelNew: pass\n" for v in verdicts if v.correct},
    )


def three_submissions() -> list[Submission]:
    """Three models with clearly different speed, in file order slow, fast, medium."""
    return [
        make_submission("Slow Model", default_verdicts("slow", speed=0.5)),
        make_submission("Fast Model", default_verdicts("fast", speed=2.5)),
        make_submission("Medium Model", default_verdicts("medium", speed=1.2)),
    ]
