"""The task validator: a task enters the suite only if its reference is sound as a test.

For each task it checks that the program loads and runs with finite outputs; that two runs with
the same seeds agree even when the global RNG is disturbed before the forward (so the output does
not depend on hidden randomness or the clock); that a zero output, a constant output (the mean),
an input returned as the output and random noise of the output's scale each FAIL the task's
tolerance check (with benchmark.evaluate.correctness, the very checker the harness uses); that the inputs
and the weights matter (a second seed for either changes the output); that the alternate shapes
run; and, on the GPU with full shapes, that the reference takes 0.1-50 ms and at most 8 GiB.
A task whose SOLBENCH `requires` the device does not meet (FP8 tensor cores on a GPU older than
compute capability 8.9) is skipped with the reason: its report is not ok, names why in `skipped`,
and counts as neither passed nor failed.

Tasks run in this process with the harness's seeding and device conventions (benchmark.evaluate.program's
TaskProgram): tasks are trusted code, and this is not the candidate sandbox. A task that raises,
or runs past its deadline, is reported with the reason and the others still run. A task that
breaks the CUDA context itself (a device-side assert) takes the rest of the run with it."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from tqdm import tqdm

from benchmark.evaluate import sol
from benchmark.evaluate.correctness import compare_outputs, flatten_outputs, tolerance
from benchmark.evaluate.device_check import unmet_requirement
from benchmark.evaluate.program import TaskProgram, clone_args, detach_outputs, pin_precision, time_model
from benchmark.evaluate.timing import Timer, TimingConfig
from benchmark.suite.baselines import BaselineReport, measure_baselines
from benchmark.suite.manifest import BaselineTiming
from benchmark.task import Task, import_file
from benchmark.verdict import TimingStats

CHECKS = (
    "load",
    "run",
    "finite",
    "deterministic",
    "not_zero",
    "not_constant",
    "not_input",
    "not_noise",
    "inputs_matter",
    "weights_matter",
    "alt_shapes",
    "time",
    "memory",
)
_CONTEXT_KILLERS = ("device-side assert", "illegal memory access", "CUDA error: unspecified launch failure")
log = logging.getLogger(__name__)


def validation_timing() -> TimingConfig:
    """A short timing budget: enough for a stable median of the reference across ~320 tasks."""
    return TimingConfig(
        warmup_calls=3,
        warmup_seconds=0.02,
        steady_max_seconds=0.0,
        min_runs=5,
        min_seconds=0.0,
        max_runs=200,
        max_seconds=0.3,
    )


@dataclass(frozen=True)
class ValidationConfig:
    device: str = "cpu"
    fast: bool = False  # the largest alternate (small) input set where declared; no time or memory bounds
    seed: int = 0  # models are built with `seed`, inputs drawn with seed + 1000 and up (as the harness does)
    measure: bool = True  # time the reference and count FLOPs and bytes (full shapes only)
    min_ms: float = 0.1  # reference time bounds, checked on CUDA with full shapes
    max_ms: float = 50.0
    max_memory_bytes: int = 8 * 2**30  # peak allocated during one forward, inputs and weights included
    task_timeout_s: float = 300.0  # wall clock per task (0: none)
    # Production baselines (benchmark.suite.baselines): checked and timed against the reference after
    # the task passed every check, within a deadline of their own (0: none), so a slow autotuning
    # compile never fails a task; the manifest pass turns them on.
    baselines: bool = False
    baseline_timeout_s: float = 900.0
    timing: TimingConfig = field(default_factory=validation_timing)

    @property
    def cuda(self) -> bool:
        return torch.device(self.device).type == "cuda"

    @property
    def bounds(self) -> bool:
        """Time and memory bounds apply on the GPU with full shapes only."""
        return self.cuda and not self.fast


@dataclass(frozen=True)
class TaskReport:
    task_id: str
    ok: bool
    checks: dict[str, str]  # check -> "pass" | "fail" | "skip"
    failures: tuple[str, ...] = ()  # "check: reason"
    warnings: tuple[str, ...] = ()
    shapes: str = "full"  # "full", or "alt<j>" when --fast used an alternate input set
    reference: TimingStats | None = None
    peak_memory_bytes: int | None = None
    flops: int | None = None  # matrix FLOPs of one forward (full shapes)
    bytes: int | None = None  # least bytes of one forward (full shapes)
    seconds: float = 0.0  # wall time of the validation itself
    baselines: BaselineReport | None = None  # None: not measured
    skipped: str | None = None  # why the task was not validated on this device (then ok is False)

    @property
    def failed(self) -> bool:
        """Validated and found unsound: not ok, and not skipped."""
        return not self.ok and self.skipped is None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> TaskReport:
        d = dict(d)
        d["failures"], d["warnings"] = tuple(d.get("failures", ())), tuple(d.get("warnings", ()))
        d["reference"] = TimingStats.from_dict(d.get("reference"))
        b = d.get("baselines")
        if b is not None:
            timed = {n: BaselineTiming(**t) for n, t in b.get("timed", {}).items()}
            d["baselines"] = BaselineReport(timed, dict(b.get("dropped", {})))
        return cls(**d)


class TaskTimeout(BaseException):
    """Raised by the alarm; a BaseException so that a task's own `except Exception` cannot eat it."""


@contextlib.contextmanager
def deadline(seconds: float):
    if (
        seconds <= 0
        or threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "setitimer")
    ):
        yield
        return

    def expire(signum, frame):
        raise TaskTimeout(f"took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Record:
    """Collects check outcomes; `stage` names the check that an exception would fail."""

    def __init__(self):
        self.checks: dict[str, str] = {}
        self.failures: list[str] = []
        self.warnings: list[str] = []
        self.stage = "load"

    def passed(self, check: str) -> None:
        if self.checks.get(check) != "fail":
            self.checks[check] = "pass"

    def fail(self, check: str, reason: str) -> None:
        self.checks[check] = "fail"
        self.failures.append(f"{check}: {reason}")

    def skip(self, check: str, why: str | None = None) -> None:
        self.checks.setdefault(check, "skip")
        if why:
            self.warnings.append(f"{check}: {why}")

    def expect_fail(self, check: str, ref: torch.Tensor, probe: torch.Tensor, atol, rtol, what: str) -> None:
        """A probe that passes the tolerance check means the task cannot tell it from the reference."""
        if compare_outputs(ref, probe, atol, rtol).ok:
            a, r = tolerance(ref.dtype, atol, rtol)
            self.fail(check, f"{what} passes the tolerance check (atol={a:g}, rtol={r:g})")
        else:
            self.passed(check)


def _forward(model, args: list):
    """One reference call on cloned inputs (a task may write into its inputs), outputs detached."""
    with torch.no_grad():
        return detach_outputs(model(*clone_args(args)))


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _widened(t: torch.Tensor) -> torch.Tensor:
    """An fp8 tensor as fp32 (exactly): torch has no equal, isclose or isfinite for fp8 on the CPU."""
    return t.float() if t.is_floating_point() and t.element_size() == 1 else t


def _same_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and torch.equal(_widened(a), _widened(b))


def _bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.is_floating_point() and a.shape == b.shape and a.dtype == b.dtype:
        return bool(torch.isclose(_widened(a), _widened(b), rtol=0.0, atol=0.0, equal_nan=True).all())
    return torch.equal(a, b)


def _constant_like(ref: torch.Tensor) -> torch.Tensor:
    values = ref.float()
    values = values[torch.isfinite(values)]
    mean = float(values.mean()) if values.numel() else 0.0
    if ref.dtype == torch.bool:
        return torch.full_like(ref, mean >= 0.5)
    if not (ref.is_floating_point() or ref.is_complex()):
        return torch.full_like(ref, round(mean))
    return torch.full_like(ref, mean)


def _noise_like(ref: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Gaussian noise with the output's mean and spread; integer outputs are shuffled instead."""
    if not ref.is_floating_point():
        perm = torch.randperm(ref.numel(), generator=gen, device=ref.device)
        return ref.flatten()[perm].view_as(ref).clone()
    values = ref.float()
    finite = values[torch.isfinite(values)]
    mean, std = (float(finite.mean()), float(finite.std())) if finite.numel() > 1 else (0.0, 1.0)
    noise = torch.randn(ref.shape, generator=gen, device=ref.device) * std + mean
    return noise.to(ref.dtype)


def _check_noise(
    rec: _Record, ref: torch.Tensor, gen: torch.Generator, atol, rtol, name: str, draws: int = 5
) -> None:
    """Noise fails the task only if every draw passes: a small integer output (an argmax over three
    rows) can match one shuffle by chance, but not five."""
    for _ in range(draws):
        if not compare_outputs(ref, _noise_like(ref, gen), atol, rtol).ok:
            rec.passed("not_noise")
            return
    a, r = tolerance(ref.dtype, atol, rtol)
    rec.fail(
        "not_noise", f"random noise of the {name}'s scale passes the tolerance check (atol={a:g}, rtol={r:g})"
    )


def _describe_output(out) -> str | None:
    """Why an output is unusable as a reference, or None when it is fine."""
    leaves = flatten_outputs(out)
    odd = sorted(
        {type(x).__qualname__ for x in leaves if not isinstance(x, torch.Tensor | int | float | bool)}
    )
    if odd:
        return f"forward returned {', '.join(odd)}; return a tensor or a tuple/list of tensors"
    if not any(isinstance(x, torch.Tensor) for x in leaves):
        return "forward returned no tensor"
    return None


def _non_finite(out) -> str | None:
    for i, x in enumerate(flatten_outputs(out)):
        if (
            isinstance(x, torch.Tensor)
            and x.is_floating_point()
            and not bool(torch.isfinite(_widened(x)).all())
        ):
            n = int((~torch.isfinite(_widened(x))).sum())
            return f"output leaf {i} has {n} non-finite values of {x.numel()}"
    return None


def _check_probes(rec: _Record, out, inputs: list, atol, rtol, device: torch.device, seed: int) -> None:
    """Each degenerate stand-in for each output tensor must fail the tolerance check."""
    leaves = [x for x in flatten_outputs(out) if isinstance(x, torch.Tensor)]
    gen = torch.Generator(device=device).manual_seed(seed + 4242)
    for i, ref in enumerate(leaves):
        name = "output" if len(leaves) == 1 else f"output[{i}]"
        if ref.numel() == 0:
            rec.fail("run", f"{name} is empty")
            continue
        rec.expect_fail("not_zero", ref, torch.zeros_like(ref), atol, rtol, f"an all-zero {name}")
        if ref.numel() >= 2:
            rec.expect_fail(
                "not_constant", ref, _constant_like(ref), atol, rtol, f"a constant {name} (its mean)"
            )
            _check_noise(rec, ref, gen, atol, rtol, name)
        else:
            rec.skip("not_constant")
            rec.skip("not_noise")
        same_shape = [j for j, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.shape == ref.shape]
        for j in same_shape:
            rec.expect_fail(
                "not_input", ref, inputs[j].to(ref.dtype), atol, rtol, f"input {j} returned as the {name}"
            )
        if not same_shape:
            rec.skip("not_input")


def _check_inputs_matter(rec: _Record, model, out_a, x_a: list, x_b: list, atol, rtol) -> None:
    tensors = [i for i, v in enumerate(x_a) if isinstance(v, torch.Tensor)]
    if not tensors:
        rec.fail("inputs_matter", "get_inputs() returns no tensors")
        return
    varying = [
        i
        for i in tensors
        if i < len(x_b)
        and isinstance(x_b[i], torch.Tensor)
        and (x_a[i].shape != x_b[i].shape or not _same_values(x_a[i], x_b[i]))
    ]
    if not varying:
        rec.fail(
            "inputs_matter",
            "get_inputs() returns the same tensors for every seed, so the output can be precomputed",
        )
        return
    for i in sorted(set(tensors) - set(varying)):
        rec.warnings.append(f"inputs_matter: input {i} is the same for every seed")
    out_b = _forward(model, x_b)
    if compare_outputs(out_a, out_b, atol, rtol).ok:
        rec.fail("inputs_matter", "the output does not change when the inputs are drawn with another seed")
        return
    if len(varying) > 1:
        for i in varying:
            mixed = list(x_a)
            mixed[i] = x_b[i]
            try:
                out_i = _forward(model, mixed)
            except Exception as e:  # inputs drawn together may be inconsistent when mixed
                rec.warnings.append(
                    f"inputs_matter: input {i} not checked alone ({type(e).__name__}: {e})"[:300]
                )
                continue
            if compare_outputs(out_a, out_i, atol, rtol).ok:
                rec.fail("inputs_matter", f"input {i} does not change the output")
    rec.passed("inputs_matter")


def _check_weights_matter(
    rec: _Record, program: TaskProgram, model, out_a, x_a: list, seed: int, atol, rtol
) -> None:
    state = model.state_dict() if isinstance(model, torch.nn.Module) else {}
    state = {k: v for k, v in state.items() if isinstance(v, torch.Tensor)}
    if not state:
        rec.skip("weights_matter")
        return
    other = program.build(program.module.Model, seed + 1)
    other_state = other.state_dict()
    if all(k in other_state and _same_values(v, other_state[k]) for k, v in state.items()):
        rec.skip(
            "weights_matter", "parameters do not depend on the init seed (a candidate could hard-code them)"
        )
        return
    if compare_outputs(out_a, _forward(other, x_a), atol, rtol).ok:
        rec.fail(
            "weights_matter",
            "the output does not change when the parameters are initialised with another seed",
        )
    else:
        rec.passed("weights_matter")


def _largest_alt(program: TaskProgram) -> int:
    """The alternate input set with the most elements: still cheap, and the statistical checks
    (is the output constant, does each input matter) are least likely to be fooled by a tiny sample."""
    torch.manual_seed(0)
    with program.device:
        sets = program.module.get_alt_inputs()
    sizes = [sum(v.numel() for v in s if isinstance(v, torch.Tensor)) for s in sets]
    return max(range(len(sizes)), key=sizes.__getitem__)


def _run_checks(
    task: Task, config: ValidationConfig, rec: _Record, timer_box: list, module_name: str
) -> dict:
    """Runs every check in order; returns the measurements. Raises on the first broken stage."""
    found: dict = {}
    device = torch.device(config.device)
    atol, rtol, seed = task.atol, task.rtol, config.seed
    rec.stage = "load"
    module = import_file(task.path, module_name)
    program = TaskProgram(module, device)
    n_alt = program.n_alt()
    alt = _largest_alt(program) if (config.fast and n_alt) else None
    found["shapes"] = "full" if alt is None else f"alt{alt}"
    rec.passed("load")

    rec.stage = "run"
    if config.cuda:
        _sync(device)
        torch.cuda.reset_peak_memory_stats(device)
        base = torch.cuda.memory_allocated(device)
    # The first call runs on uncloned inputs so that the peak counts exactly weights, inputs,
    # intermediates and outputs; the inputs are drawn again afterwards in case it wrote into them.
    model = program.build(module.Model, seed)
    with torch.no_grad():
        raw = model(*program.inputs(seed + 1000, alt))
    _sync(device)
    if config.cuda:
        found["peak_memory_bytes"] = torch.cuda.max_memory_allocated(device) - base
    out_a = detach_outputs(raw)
    del raw
    x_a = program.inputs(seed + 1000, alt)
    problem = _describe_output(out_a)
    if problem:
        rec.fail("run", problem)
        return found
    rec.passed("run")
    bad = _non_finite(out_a)
    if bad:
        rec.fail("finite", bad)
    rec.passed("finite")

    rec.stage = "deterministic"
    twin = program.build(module.Model, seed)
    x_twin = program.inputs(seed + 1000, alt)
    torch.manual_seed(seed + 7919)  # the forward must not read the global RNG
    out_twin = _forward(twin, x_twin)
    if config.measure and alt is None:
        # Counted on a forward of its own: under the counter's dispatch mode a fused op may run as its
        # decomposition, rounded otherwise (a bf16 SiLU's backward on the GPU), which is no task's fault.
        counts, _ = sol.count(twin, clone_args(x_twin))
        found.update(flops=counts.flops, bytes=counts.bytes)
    del twin
    cmp = compare_outputs(out_a, out_twin, atol, rtol)
    if not cmp.ok:
        rec.fail("deterministic", f"two runs with the same seeds differ: {cmp.detail}")
    else:
        rec.passed("deterministic")
        exact = all(
            _bitwise_equal(a, b) if isinstance(a, torch.Tensor) else a == b
            for a, b in zip(flatten_outputs(out_a), flatten_outputs(out_twin), strict=True)
        )
        if not exact:
            rec.warnings.append("deterministic: two runs agree within tolerance but not bit for bit")
    del out_twin, x_twin

    rec.stage = "not_zero"
    _check_probes(rec, out_a, x_a, atol, rtol, device, seed)

    rec.stage = "inputs_matter"
    _check_inputs_matter(rec, model, out_a, x_a, program.inputs(seed + 1001, alt), atol, rtol)

    rec.stage = "weights_matter"
    _check_weights_matter(rec, program, model, out_a, x_a, seed, atol, rtol)

    rec.stage = "alt_shapes"
    others = [j for j in range(n_alt) if j != alt]
    for j in others:
        out_j = _forward(model, program.inputs(seed + 2000 + j, j))
        bad = _describe_output(out_j) or _non_finite(out_j)
        if bad:
            rec.fail("alt_shapes", f"alternate input set {j}: {bad}")
    if others:
        rec.passed("alt_shapes")
    else:
        rec.skip("alt_shapes")

    rec.stage = "time"
    if config.measure and alt is None:
        if not timer_box:
            timer_box.append(Timer(config.device, config.timing))
        stats = time_model(timer_box[0], program, model, seed)
        found["reference"] = stats
        if config.bounds and not config.min_ms <= stats.median_ms <= config.max_ms:
            rec.fail(
                "time",
                f"reference takes {stats.median_ms:.3g} ms; the bounds are {config.min_ms:g}-{config.max_ms:g} ms",
            )
    if config.bounds and "reference" in found:
        rec.passed("time")
    else:
        rec.skip("time")

    rec.stage = "memory"
    peak = found.get("peak_memory_bytes")
    if config.bounds and peak is not None:
        if peak > config.max_memory_bytes:
            rec.fail(
                "memory",
                f"peak memory {peak / 2**30:.2f} GiB exceeds {config.max_memory_bytes / 2**30:g} GiB",
            )
        rec.passed("memory")
    else:
        rec.skip("memory")
    return found


def _cleanup(device: torch.device, default_dtype: torch.dtype) -> None:
    """Undo what a task may have changed in this process before the next one runs."""
    torch.set_default_dtype(default_dtype)
    pin_precision()
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def validate_task(task: Task, config: ValidationConfig, timer_box: list | None = None) -> TaskReport:
    """Validate one task; never raises for a broken task (the report says why it failed).
    `timer_box` shares one Timer between tasks (a list holding it, filled on first use)."""
    skipped = unmet_requirement(task.requires, config.device)
    if skipped is not None:
        return TaskReport(task.task_id, ok=False, checks=dict.fromkeys(CHECKS, "skip"), skipped=skipped)
    device = torch.device(config.device)
    pin_precision()
    default_dtype = torch.get_default_dtype()
    rec = _Record()
    found: dict = {}
    module_name = f"solbench_validate_{task.hash[:16]}"
    t0 = time.monotonic()
    try:
        with deadline(config.task_timeout_s):
            found = _run_checks(task, config, rec, timer_box if timer_box is not None else [], module_name)
    except TaskTimeout as e:
        rec.fail(rec.stage, f"timeout: {e}")
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure of a task is reported, not raised
        rec.fail(rec.stage, f"{type(e).__name__}: {e}"[:1000])
    finally:
        sys.modules.pop(module_name, None)
        _cleanup(device, default_dtype)
    if config.baselines and config.measure and not config.fast and not rec.failures:
        found["baselines"] = _baselines(
            task, config, timer_box if timer_box is not None else [], default_dtype
        )
    checks = {c: rec.checks.get(c, "skip") for c in CHECKS}
    return TaskReport(
        task_id=task.task_id,
        ok=not rec.failures,
        checks=checks,
        failures=tuple(rec.failures),
        warnings=tuple(rec.warnings),
        seconds=time.monotonic() - t0,
        **found,
    )


def _baselines(task: Task, config: ValidationConfig, timer_box: list, default_dtype) -> BaselineReport:
    """The task's production baselines checked and timed against its reference (full shapes, the
    validator's seeds and timing budget); a run past the deadline or a failure keeps what was timed."""
    device = torch.device(config.device)
    module_name = f"solbench_baselines_{task.hash[:16]}"
    report = BaselineReport({}, {})
    try:
        with deadline(config.baseline_timeout_s):
            program = TaskProgram(import_file(task.path, module_name), device)
            model = program.build(program.module.Model, config.seed)
            if not timer_box:
                timer_box.append(Timer(config.device, config.timing))
            report = measure_baselines(
                task.name, program, model, config.seed, task.atol, task.rtol, timer_box[0], into=report
            )
    except (TaskTimeout, Exception) as e:  # noqa: BLE001 - a baseline never fails the task
        report.dropped["*"] = f"baselines stopped: {type(e).__name__}: {e}"[:300]
    finally:
        sys.modules.pop(module_name, None)
        _cleanup(device, default_dtype)
    return report


def load_error_report(message: str) -> TaskReport:
    """A report for a file the suite could not even read (message from Suite.errors)."""
    path = message.split(": ", 1)[0]
    return TaskReport(
        task_id=path,
        ok=False,
        checks={c: "fail" if c == "load" else "skip" for c in CHECKS},
        failures=(f"load: {message}",),
    )


def validate_tasks(
    tasks: list[Task],
    config: ValidationConfig,
    progress: bool = True,
    on_report: Callable[[TaskReport], object] | None = None,
) -> list[TaskReport]:
    """Validate tasks one after another; `on_report` sees each report as it is made (to checkpoint)."""
    timer_box: list = []
    reports = []
    bar = tqdm(tasks, disable=not progress, unit="task")
    failed = 0
    context_broken = False
    for task in bar:
        bar.set_description(task.task_id)
        report = validate_task(task, config, timer_box)
        if report.skipped is not None:
            log.info("%s skipped on %s: %s", task.task_id, config.device, report.skipped)
        elif not report.ok:
            failed += 1
            log.warning("%s failed: %s", task.task_id, "; ".join(report.failures))
            if not context_broken and any(m in f for f in report.failures for m in _CONTEXT_KILLERS):
                context_broken = True
                log.error(
                    "%s may have broken the CUDA context: failures of the tasks after it may be "
                    "collateral; rerun them without it (--tasks)",
                    task.task_id,
                )
        reports.append(report)
        if on_report is not None:
            on_report(report)
        bar.set_postfix(failed=failed)
    return reports


def format_table(reports: list[TaskReport]) -> str:
    head = f"{'task':<48} {'ok':<4} {'ref ms':>8} {'mem MiB':>8} {'GFLOP':>8} {'MB':>8}  reason"
    rows = [head, "-" * len(head)]
    for r in reports:
        ms = f"{r.reference.median_ms:.3f}" if r.reference else "-"
        mem = f"{r.peak_memory_bytes / 2**20:.0f}" if r.peak_memory_bytes is not None else "-"
        gf = f"{r.flops / 1e9:.2f}" if r.flops is not None else "-"
        mb = f"{r.bytes / 1e6:.1f}" if r.bytes is not None else "-"
        reason = (r.failures[0] if r.failures else r.skipped or "")[:120]
        status = "ok" if r.ok else "skip" if r.skipped is not None else "FAIL"
        rows.append(f"{r.task_id:<48} {status:<4} {ms:>8} {mem:>8} {gf:>8} {mb:>8}  {reason}")
    n_bad = sum(r.failed for r in reports)
    skipped = [r.skipped for r in reports if r.skipped is not None]
    footer = f"{len(reports)} tasks, {sum(r.ok for r in reports)} passed, {n_bad} failed"
    if skipped:
        why = "; ".join(sorted(set(skipped)))
        footer += f", {len(skipped)} skipped on this device (neither passed nor failed: {why})"
    rows.append(footer)
    return "\n".join(rows)
