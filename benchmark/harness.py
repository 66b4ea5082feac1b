"""The evaluation API: one (task, candidate code) pair in, one Verdict out.

Everything that runs candidate code happens in a child process (benchmark.sandbox); this module
only prepares the job and turns the child's report, or its absence, into a Verdict."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.anticheat import static
from benchmark.files import atomic_write_text
from benchmark.sandbox import run_job
from benchmark.task import Task, sha256_text
from benchmark.timing import TimingConfig
from benchmark.verdict import Correctness, Phases, Status, TimingStats, Verdict

DEFAULT_MAGNITUDE = 100.0  # input scale of the extra fp32 trial that exposes precision downgrades
SOL_MARGIN = 0.9  # a median below this fraction of the speed-of-light floor is impossible


def default_cache_dir() -> Path:
    return Path(os.environ.get("SOLBENCH_CACHE", Path.home() / ".cache" / "solbench"))


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@dataclass(frozen=True)
class EvalConfig:
    device: str = "cpu"
    trials: int = 5  # correctness trials with fresh seeds, before alternate shapes
    seed: int = 0
    baseline: str = "eager"  # "compile" also times torch.compile of the reference
    measure: bool = True  # time reference and candidate (off for correctness-only checks)
    strict: bool = True  # anti-cheat flags fail the sample (off: flags are reported only)
    timeout_s: float = 300.0  # wall clock for the whole sample: build, checks and timing
    timing: TimingConfig = field(default_factory=TimingConfig)
    cache_dir: Path = field(default_factory=default_cache_dir)

    def __post_init__(self):
        if self.baseline not in ("eager", "compile"):
            raise ValueError(f"baseline must be 'eager' or 'compile', not {self.baseline!r}")
        if self.trials < 1:
            raise ValueError("trials must be at least 1")


def _stats(d: dict | None) -> TimingStats | None:
    return TimingStats(**d) if d else None


def _ratio(num: TimingStats | None, den: TimingStats | None) -> float | None:
    if num is None or den is None or den.median_ms <= 0:
        return None
    return num.median_ms / den.median_ms


def _phases(child: dict, wall_s: float) -> Phases:
    """The child's phases; what its own clock did not see (its start) is the rest of the wall time."""
    worker_s = child.get("total_s", wall_s)
    return Phases(**{**child, "total_s": wall_s, "startup_s": max(wall_s - worker_s, 0.0)})


class TaskError(Exception):
    """The task itself (not the candidate) failed: it does not import or its reference raises."""


def child_env(config: EvalConfig) -> dict[str, str]:
    """Where the child's compilers cache their output: all under the shared cache."""
    return {"TRITON_CACHE_DIR": str(config.cache_dir / "triton"), "SOLBENCH_CACHE": str(config.cache_dir)}


def stage_source(code: str, cache_dir: Path) -> Path:
    """The candidate as a real file in the shared cache, named by its hash, written atomically."""
    src_dir = cache_dir / "sources"
    src_dir.mkdir(parents=True, exist_ok=True)
    path = src_dir / f"candidate_{sha256_text(code)[:24]}.py"
    if not path.exists():
        atomic_write_text(path, code)
    return path


@dataclass(frozen=True)
class BuildOutcome:
    """Result of building a candidate ahead of execution. `final` errors (syntax, compiler) decide the
    verdict; others (an import that needs the GPU, say) are left for the execution worker to judge."""

    ok: bool
    error: str | None = None
    final: bool = False
    seconds: float = 0.0


def build(code: str, config: EvalConfig, env: dict[str, str] | None = None) -> BuildOutcome:
    """Import the candidate in a child with no GPU, so its load_inline extensions are compiled into
    the shared build cache; the execution worker then loads them without compiling."""
    job = dict(
        mode="build",
        candidate_path=str(stage_source(code, config.cache_dir)),
        builds_root=str(config.cache_dir / "builds"),
    )
    outcome = run_job(job, config.timeout_s, env={**child_env(config), **(env or {})})
    r = outcome.result
    if r is None:
        return BuildOutcome(False, outcome.crash_reason, final=False, seconds=outcome.wall_s)
    return BuildOutcome(r["status"] == "built", r.get("error"), r.get("final", False), r.get("compile_s", 0.0))


def evaluate(
    task: Task,
    code: str | None,
    config: EvalConfig = EvalConfig(),
    *,
    sample: int = 0,
    turn: int = 1,
    model: str = "",
    sol_ms: float | None = None,
    trusted: bool = False,
    gpu: int | None = None,
    device_lock: str | None = None,
) -> Verdict:
    """Evaluate candidate source against a task in a fresh child process. `trusted` code (the
    reference baseline) carries no flags. `gpu` pins the child to one device of a multi-GPU host;
    `device_lock` (a path) lets several children share that device without timing each other."""
    base = dict(
        task_id=task.task_id, sample=sample, turn=turn, level=task.level, model=model,
        task_hash=task.hash, code_hash=sha256_text(code or ""), device=config.device,
        strict=config.strict, sol_ms=sol_ms,
    )
    early = precheck(code, config, base, trusted)
    if early is not None:
        return early
    static_flags = [] if trusted else static_details(code)
    candidate_path = stage_source(code, config.cache_dir)
    job = dict(
        task_path=str(task.path),
        candidate_path=str(candidate_path),
        builds_root=str(config.cache_dir / "builds"),
        device=config.device,
        trials=config.trials,
        seed=config.seed,
        baseline=config.baseline,
        measure=config.measure,
        strict=config.strict,
        atol=task.atol,
        rtol=task.rtol,
        magnitude=task.meta.get("magnitude_scale", DEFAULT_MAGNITUDE if task.dtype == "float32" else 0.0),
        write_dirs=[str(config.cache_dir / d) for d in ("builds", "triton", "pycuda")],
        device_lock=device_lock,
        timing=dataclasses.asdict(config.timing),
    )
    env = child_env(config)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    outcome = run_job(job, config.timeout_s, env=env)
    r = outcome.result
    if r is None:
        status = Status.TIMEOUT if outcome.timed_out else Status.RUNTIME_ERROR
        tail = "\n".join(outcome.log_tail.strip().splitlines()[-15:])
        error = outcome.crash_reason + (f"\n{tail}" if tail else "")
        return finalize_verdict(status, error, static_flags, base, phases=Phases(total_s=outcome.wall_s))
    if r["status"] == "task_error":
        raise TaskError(r["error"])
    cand, ref, comp = _stats(r.get("candidate_time")), _stats(r.get("reference_time")), _stats(r.get("compile_time"))
    flags = [] if trusted else static_flags + r.get("flag_details", [])
    if sol_ms and cand and cand.median_ms < SOL_MARGIN * sol_ms:
        flags.append(f"faster_than_light: {cand.median_ms:.4f} ms is below the floor of {sol_ms:.4f} ms")
    status = Status(r["status"])
    ok = status is Status.PASS and not (flags and config.strict)
    return finalize_verdict(
        status,
        r.get("error"),
        flags,
        base,
        correctness=Correctness(**r.get("correctness", {})),
        candidate_time=cand,
        reference_time=ref,
        compile_time=comp,
        speedup=_ratio(ref, cand) if ok else None,
        speedup_compile=_ratio(comp, cand) if ok else None,
        sol_fraction=(sol_ms / cand.median_ms) if (ok and sol_ms and cand) else None,
        phases=_phases(r.get("phases", {}), outcome.wall_s),
        env=r.get("env", {}),
    )


def static_details(code: str) -> list[str]:
    return [f"{f.flag}: line {f.line}: {f.detail}" for f in static.analyze(code)]


def precheck(code: str | None, config: EvalConfig, base: dict, trusted: bool = False) -> Verdict | None:
    """The verdicts that need no build and no device: no code, or (strict) static findings."""
    if not code or not code.strip():
        return Verdict(status=Status.NO_CODE, error="no code to evaluate", **base)
    if config.strict and not trusted:
        details = static_details(code)
        if details:
            return finalize_verdict(Status.CHEAT, None, details, base)
    return None


def finalize_verdict(status: Status, error: str | None, flag_details: list[str], base: dict, **fields) -> Verdict:
    """Strict mode turns any flag into the `cheat` verdict; the details lead the error text."""
    names = tuple(dict.fromkeys(d.split(":", 1)[0] for d in flag_details))
    if names and base["strict"] and status is not Status.NO_CODE:
        status = Status.CHEAT
        error = "\n".join(flag_details) + (f"\n{error}" if error else "")
    return Verdict(status=status, error=error, flags=names, **base, **fields)
