"""The evaluation API: one (task, candidate code) pair in, one Verdict out, in three stages:
`prepare` (the checks that need no build and no device), `build` (a build child compiles the
candidate's extensions) and `execute` (the judge and the candidate's process, benchmark.evaluate.sandbox.run_pair);
`evaluate` runs them in turn, the verifier pipelines them.

Nothing here runs candidate code: this module prepares the jobs and turns the judge's report, or its
absence, into a Verdict."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import secrets
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.evaluate import activity
from benchmark.evaluate.anticheat import static
from benchmark.evaluate.boundary import (
    PHASES,
    REFERENCE_PHASES,
    TASK_ERROR,
    BuildJob,
    BuildReport,
    CandidateJob,
    JudgeJob,
    JudgeReport,
    decode,
)
from benchmark.evaluate.candidate import BUILD_CLOCK, LIGHT_CU_ENV, PCH_ENV
from benchmark.evaluate.reference_store import ReferenceStore, StoreKey
from benchmark.evaluate.sandbox import ChildOutcome, run_job, run_pair
from benchmark.evaluate.timing import REFERENCE_DRIFT_CAP, TRACE_ENV, TimingConfig, write_trace
from benchmark.host import default_cache_dir, host_device_lock, source_path
from benchmark.records import atomic_write_text
from benchmark.task import Task, sha256_text
from benchmark.verdict import Phases, Status, TimingStats, Verdict, says_out_of_memory

INPUT_SALT = secrets.randbits(62)  # this process's; see input_seed
DEFAULT_MAGNITUDE = 100.0  # input scale of the extra fp32 trial that exposes precision downgrades
SOL_MARGIN = 0.9  # a median below this fraction of the speed-of-light floor is impossible


@dataclass(frozen=True)
class EvalConfig:
    device: str = "cpu"
    trials: int = 5  # correctness trials with fresh seeds, before alternate shapes
    seed: int = 0
    baseline: str = "eager"  # "compile" also times torch.compile of the reference
    measure: bool = True  # time reference and candidate (off for correctness-only checks)
    strict: bool = True  # anti-cheat flags fail the sample (off: flags are reported only)
    timeout_s: float = 300.0  # the run limit: the execution child's checks and timing, in seconds
    build_timeout_s: float = 900.0  # the build limit: compiling the candidate's extensions
    precompiled_header: bool = (
        True  # load_inline's main.cpp from a shared .gch (benchmark.evaluate.candidate)
    )
    lighter_cuda_header: bool = True  # a .cu tried with lighter torch headers first (same verdicts)
    timing: TimingConfig = field(default_factory=TimingConfig)
    cache_dir: Path = field(default_factory=default_cache_dir)

    def __post_init__(self):
        if self.baseline not in ("eager", "compile"):
            raise ValueError(f"baseline must be 'eager' or 'compile', not {self.baseline!r}")
        if self.trials < 1:
            raise ValueError("trials must be at least 1")
        if self.timeout_s <= 0 or self.build_timeout_s <= 0:
            raise ValueError(
                f"timeout_s (run limit, {self.timeout_s}) and build_timeout_s (build limit, "
                f"{self.build_timeout_s}) must be positive"
            )

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> EvalConfig:
        """An EvalConfig from plain values (a section of a config file, JSON on a command line):
        `timing` a mapping of TimingConfig fields, `cache_dir` a path. An unknown name is an error
        that lists the known ones: a misspelt setting must not fall back to its default silently."""
        kw = dict(_known(cls, values, "evaluation setting"))
        if isinstance(kw.get("timing"), Mapping):
            kw["timing"] = TimingConfig(**_known(TimingConfig, kw["timing"], "timing setting"))
        if kw.get("cache_dir") is not None:
            kw["cache_dir"] = Path(kw["cache_dir"])
        return cls(**kw)

    @property
    def limits(self) -> dict[str, float]:
        """The execution child's clocks: it runs under the run limit, and any extension it has to
        compile itself (one the build child could not reach) counts against the build limit."""
        return {"run": self.timeout_s, BUILD_CLOCK: self.build_timeout_s}


def _known(cls: type, values: Mapping[str, Any], what: str) -> Mapping[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ValueError(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    return values


def _ratio(num: TimingStats | None, den: TimingStats | None) -> float | None:
    if num is None or den is None or den.median_ms <= 0:
        return None
    return num.median_ms / den.median_ms


def speedup(
    ref: TimingStats | None,
    ref_alone: TimingStats | None,
    cand: TimingStats | None,
    paired: float | None = None,
) -> float | None:
    """Reference over candidate, both timed interleaved in one loop, so drift between timings
    cancels: the median over rounds of the two calls' ratio (`paired`, `timing.paired_ratio`), else
    the ratio of their medians. The reference also ran alone before the candidate was imported;
    where the interleaved one is slower than that by more than REFERENCE_DRIFT_CAP, the cap stands in
    for it, so a candidate that slows the reference while it is loaded gains at most 10% (the worker
    times again first where the cap binds, `timing.least_drifted`)."""
    if ref is None or cand is None or cand.median_ms <= 0:
        return None
    capped = 1.0 if ref_alone is None else min(1.0, REFERENCE_DRIFT_CAP * ref_alone.median_ms / ref.median_ms)
    return (ref.median_ms / cand.median_ms if paired is None else paired) * capped


def _phases(judge: dict[str, float], wall_s: float, built: BuildOutcome, compiled_s: float) -> Phases:
    """The judge's phases; what its own clock did not see (its start) is the rest of the wall time.
    The build child adds its compile time to `compile_s`, its start to `startup_s`, its life to the
    total; the candidate's process, the time it compiled itself (`compiled_s`, its build clock)."""
    worker_s = judge.get("total_s", wall_s)
    startup = max(wall_s - worker_s, 0.0) + max(built.wall_s - built.seconds, 0.0)
    known = {f.name for f in dataclasses.fields(Phases)}
    return Phases(
        **{
            **{k: v for k, v in judge.items() if k in known},
            "total_s": wall_s + built.wall_s,
            "startup_s": startup,
            "compile_s": built.seconds + max(compiled_s, 0.0),
        }
    )


class TaskError(Exception):
    """The task itself (not the candidate) failed: it does not import or its reference raises."""

    @property
    def out_of_memory(self) -> bool:
        """Whether the reference ran out of device memory: on a device shared by several lanes,
        perhaps the neighbours' doing."""
        return says_out_of_memory(str(self))


@functools.cache
def cuda_arch_list() -> str | None:
    """Compute capability of the first GPU ("9.0"), so GPU-less build children target the right chip."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.split()
        return out[0] if out else None
    except (OSError, subprocess.SubprocessError):
        return None


def child_env(config: EvalConfig) -> dict[str, str]:
    """Where the child's compilers cache their output (all under the shared cache; Helion's generated
    code goes to the job's TMPDIR, inside its own folder), that Helion never autotunes (its
    autotuner starts processes, which the sandbox refuses), whether builds
    take the precompiled header and the lighter CUDA header, and on CUDA the one target
    architecture: the GPU's own, even where the environment names several (as some images do; nvcc
    would compile each), and the same for the build and the execution child, so that the execution
    child finds the build's commands unchanged and compiles nothing."""
    env = {
        "TRITON_CACHE_DIR": str(config.cache_dir / "triton"),
        "HELION_AUTOTUNE_EFFORT": "none",  # a Helion kernel without a config takes the default one
        "SOLBENCH_CACHE": str(config.cache_dir),
        PCH_ENV: "1" if config.precompiled_header else "0",
        LIGHT_CU_ENV: "1" if config.lighter_cuda_header else "0",
    }
    arch = cuda_arch_list() if config.device == "cuda" else None
    if arch:
        env["TORCH_CUDA_ARCH_LIST"] = arch
    return env


def build_env(config: EvalConfig) -> dict[str, str]:
    """A build child's environment: no GPU visible, so a build never holds or disturbs a device."""
    return {**child_env(config), **({"CUDA_VISIBLE_DEVICES": ""} if config.device == "cuda" else {})}


def needs_build(code: str) -> bool:
    """Whether the code may compile a torch extension: only then is a build child worth starting
    (raw CUDA and Triton compile in under a second, inside the execution child)."""
    return "load_inline" in code or "cpp_extension" in code


def stage_source(code: str, cache_dir: Path) -> Path:
    """The candidate as a real file in the shared cache, named by its hash, written atomically."""
    path = source_path(sha256_text(code), cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
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
    seconds: float = 0.0  # the child's own import and compile time
    timed_out: bool = False  # the build limit ran out (a `timeout` verdict, limit "build")
    wall_s: float = 0.0  # the build child's whole life, start-up and waits included


def build(code: str, config: EvalConfig, env: dict[str, str] | None = None) -> BuildOutcome:
    """Import the candidate in a child with no GPU, under the build limit, so its load_inline
    extensions are compiled into the shared build cache; the candidate's process then loads them
    without compiling. Waiting for another process's build of the same extension is not charged.
    Code that builds no extension needs no build child: its outcome is decided at once."""
    if not needs_build(code):
        return BuildOutcome(True)
    job = BuildJob(str(config.cache_dir / "builds"), str(stage_source(code, config.cache_dir)))
    outcome = run_job(
        "build", job, config.build_timeout_s, env={**build_env(config), **(env or {})}, clock=BUILD_CLOCK
    )
    if outcome.result is None:
        error = outcome.crash_reason + _log_excerpt(outcome.log_tail)
        seconds = outcome.charged_s.get(BUILD_CLOCK, outcome.wall_s)
        return BuildOutcome(
            False, error, final=False, seconds=seconds, timed_out=outcome.timed_out, wall_s=outcome.wall_s
        )
    r = decode(BuildReport, outcome.result)
    return BuildOutcome(r.status == "built", r.error, r.final, r.compile_s, wall_s=outcome.wall_s)


def prepare_headers(config: EvalConfig) -> BuildOutcome:
    """Precompile torch's extension header for load_inline's default flags in a build child (its
    flags are the builds'), so that a long run's first cold builds use it too: for a consumer that
    pays its one-time costs before its clock starts (Verifier.warm)."""
    job = BuildJob(str(config.cache_dir / "builds"))
    outcome = run_job("build", job, config.build_timeout_s, env=build_env(config), clock=BUILD_CLOCK)
    if outcome.result is None:
        return BuildOutcome(False, outcome.crash_reason, seconds=outcome.wall_s, wall_s=outcome.wall_s)
    r = decode(BuildReport, outcome.result)
    made = r.status == "built" and all(r.ready.values())
    return BuildOutcome(
        made, None if made else f"not made: {r.ready or r.error}", seconds=r.compile_s, wall_s=outcome.wall_s
    )


def build_verdict(built: BuildOutcome, prepared: Prepared) -> Verdict | None:
    """The verdict a build decides on its own: a compile error, or the build limit running out."""
    phases = Phases(compile_s=built.seconds, total_s=built.wall_s)
    flags = list(prepared.static_flags)
    if built.timed_out:
        return Verdict.flagged(
            Status.TIMEOUT, built.error, flags, **prepared.base, limit=BUILD_CLOCK, phases=phases
        )
    if not built.ok and built.final:
        return Verdict.flagged(Status.COMPILE_ERROR, built.error, flags, **prepared.base, phases=phases)
    return None


def _log_excerpt(log_tail: str, lines: int = 15) -> str:
    tail = "\n".join(log_tail.strip().splitlines()[-lines:])
    return f"\n{tail}" if tail else ""


@dataclass(frozen=True)
class Prepared:
    """A sample past the checks that need no build and no device: its verdict fields and its static
    findings, made once (a strict sample with findings never gets here)."""

    task: Task
    code: str
    base: dict
    static_flags: tuple[str, ...] = ()
    trusted: bool = False


def prepare(
    task: Task,
    code: str | None,
    config: EvalConfig,
    *,
    sample: int = 0,
    turn: int = 1,
    model: str = "",
    sol_ms: float | None = None,
    trusted: bool = False,
) -> Prepared | Verdict:
    """The first stage: the verdict at once for no code, or (strict) for static findings; otherwise
    the sample, ready to build. `trusted` code (the reference baseline) carries no flags."""
    base = sample_fields(task, code, config, sample, turn, model, sol_ms)
    if not code or not code.strip():
        return Verdict.unmeasured(Status.NO_CODE, "no code to evaluate", **base)
    findings = () if trusted else tuple(static_details(code))
    if findings and config.strict:
        return Verdict.flagged(Status.CHEAT, None, list(findings), **base)
    return Prepared(task, code, base, findings, trusted)


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
    built: BuildOutcome | None = None,
    reference_store: ReferenceStore | None = None,
) -> Verdict:
    """Evaluate candidate source against a task, stage by stage: `prepare`, `build` (its extensions
    compiled in a build child under the build limit, unless `built` says that was done already, as
    the verifier's build pool does) and `execute`."""
    prepared = prepare(
        task, code, config, sample=sample, turn=turn, model=model, sol_ms=sol_ms, trusted=trusted
    )
    if isinstance(prepared, Verdict):
        return prepared
    if built is None:
        built = build(prepared.code, config)
    decided = build_verdict(built, prepared)
    if decided is not None:
        return decided
    return execute(prepared, config, built, gpu=gpu, device_lock=device_lock, reference_store=reference_store)


def input_seed(seed: int) -> int:
    """The secret seed every input set of a sample derives from: the evaluation's seed mixed with this
    process's INPUT_SALT, so no candidate can know an input before it is handed one (it never sees a
    seed) while samples of one task in one process share inputs (the reference store's entries)."""
    digest = hashlib.sha256(f"{INPUT_SALT}:{seed}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def execute(
    prepared: Prepared,
    config: EvalConfig,
    built: BuildOutcome,
    *,
    gpu: int | None = None,
    device_lock: str | None = None,
    reference_store: ReferenceStore | None = None,
) -> Verdict:
    """The last stage: the judge and the candidate's process (benchmark.evaluate.sandbox.run_pair)
    under the run limit. `gpu` pins both to one device of a multi-GPU host; `device_lock` (a path; on
    CUDA, the host's lock of that device by default) lets several samples share the device without
    timing each other. With a `reference_store`, the reference's outputs and timings an earlier sample
    of this task computed are handed to the judge (which checks they match), and what it computes is
    kept for the next (benchmark.evaluate.reference_store)."""
    task, base = prepared.task, dict(prepared.base)
    candidate_job = CandidateJob(
        candidate_path=str(stage_source(prepared.code, config.cache_dir)),
        builds_root=str(config.cache_dir / "builds"),
        device=config.device,
        write_dirs=tuple(str(config.cache_dir / d) for d in ("builds", "triton", "pycuda")),
    )
    judge_job = JudgeJob(
        task_path=str(task.path),
        device=config.device,
        trials=config.trials,
        seed=config.seed,
        input_seed=input_seed(config.seed),
        baseline=config.baseline,
        measure=config.measure,
        magnitude=task.meta.get("magnitude_scale", DEFAULT_MAGNITUDE if task.dtype == "float32" else 0.0),
        timing=config.timing,
        atol=task.atol,
        rtol=task.rtol,
        dtype=task.dtype,
        device_lock=device_lock or (host_device_lock(gpu) if config.device == "cuda" else None),
        evaluator_pid=os.getpid(),
    )
    env = child_env(config)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    if reference_store is not None:
        key = StoreKey.for_job(task.hash, judge_job, gpu)
        judge_job = dataclasses.replace(judge_job, **reference_store.job_fields(key))
    with activity.track(activity.label(task.task_id, base["sample"]), "setup") as doing:
        pair = run_pair(judge_job, candidate_job, config.limits, env=env, sample=doing)
    outcome = pair.judge
    r = decode(JudgeReport, outcome.result) if outcome.result is not None else None
    if reference_store is not None and r is not None and r.reference_offer is not None:
        reference_store.put(key, r.reference_offer)
    static_flags = list(prepared.static_flags)
    built_compile = built.seconds + outcome.charged_s.get(
        BUILD_CLOCK, 0.0
    )  # what the candidate's process compiled
    if r is None:
        killed = outcome.returncode is not None and outcome.returncode < 0
        if killed and not outcome.timed_out and outcome.phase in (None, *REFERENCE_PHASES):
            # the judge died before the candidate ran (killed, most likely by the host's out-of-memory
            # killer): the task's own work failed, never the candidate
            raise TaskError(
                f"the reference's process ended during {PHASES.get(outcome.phase or 'setup')}: "
                f"{outcome.crash_reason}{_MEMORY_HINT if outcome.returncode == -9 else ''}"
                + _log_excerpt(outcome.log_tail)
            )
        status = Status.TIMEOUT if outcome.timed_out else Status.RUNTIME_ERROR
        if outcome.timed_out:
            error = outcome.crash_reason + _log_excerpt(pair.candidate.log_tail)
        else:
            error = f"the judge failed during {PHASES.get(outcome.phase or 'setup')}: {outcome.crash_reason}"
            error += (_MEMORY_HINT if outcome.returncode == -9 else "") + _log_excerpt(outcome.log_tail)
        phases = Phases(compile_s=built_compile, total_s=built.wall_s + outcome.wall_s)
        return Verdict.flagged(status, error, static_flags, **base, limit=outcome.limit, phases=phases)
    if r.status == TASK_ERROR:
        raise TaskError(r.error)
    if r.timing_trace and os.environ.get(TRACE_ENV):
        write_trace({**r.timing_trace, "task": task.task_id, "sample": prepared.base["sample"]})
    error = r.error
    if r.candidate_lost is not None:
        error = _candidate_end(pair.candidate, r.candidate_lost)
    flags = [] if prepared.trusted else static_flags + list(r.flag_details)
    sol_ms = base["sol_ms"] or r.sol_ms  # the manifest's floor, else the one the judge computed
    base["sol_ms"] = sol_ms
    cand, ref, comp, ref_alone = r.candidate_time, r.reference_time, r.compile_time, r.reference_alone_time
    if sol_ms and cand and cand.median_ms < SOL_MARGIN * sol_ms:
        flags.append(f"faster_than_light: {cand.median_ms:.4f} ms is below the floor of {sol_ms:.4f} ms")
    status = Status(r.status)
    ok = status is Status.PASS and not (flags and config.strict) and not r.contended
    return Verdict.flagged(
        status,
        error,
        flags,
        **base,
        correctness=r.correctness,
        candidate_time=cand,
        reference_time=ref,
        reference_alone_time=ref_alone,
        compile_time=comp,
        speedup=speedup(ref, ref_alone, cand, r.paired_speedup) if ok else None,
        speedup_spread=r.speedup_spread if ok else None,
        speedup_compile=_ratio(comp, cand) if ok else None,
        sol_fraction=(sol_ms / cand.median_ms) if (ok and sol_ms and cand) else None,
        phases=_phases(r.phases, outcome.wall_s, built, outcome.charged_s.get(BUILD_CLOCK, 0.0)),
        env=r.env,
        contended=r.contended,
    )


_MEMORY_HINT = " (SIGKILL: the host's out-of-memory killer, most likely)"


def _candidate_end(candidate: ChildOutcome, during: str) -> str:
    """Why the candidate's process went away during `during`, from what the parent saw of it."""
    if candidate.returncode is not None and candidate.returncode < 0:
        reason = candidate.crash_reason.replace("worker", "the candidate's process")
        if candidate.returncode == -9:  # it is first in line for the OOM killer (confine.harden)
            reason += _MEMORY_HINT
    elif candidate.returncode not in (None, 0):
        reason = f"the candidate's process exited with status {candidate.returncode}"
    else:
        reason = "the candidate's process closed the channel"
    return f"{reason} during {during}" + _log_excerpt(candidate.log_tail)


def sample_fields(
    task: Task,
    code: str | None,
    config: EvalConfig,
    sample: int = 0,
    turn: int = 1,
    model: str = "",
    sol_ms: float | None = None,
) -> dict:
    """The fields every verdict on this sample carries, however it is decided."""
    return dict(
        task_id=task.task_id,
        sample=sample,
        turn=turn,
        level=task.level,
        model=model,
        task_hash=task.hash,
        code_hash=sha256_text(code or ""),
        device=config.device,
        strict=config.strict,
        sol_ms=sol_ms,
    )


def static_details(code: str) -> list[str]:
    return [f"{f.flag}: line {f.line}: {f.detail}" for f in static.analyze(code)]
