"""The benchmark run as a Python API: tasks x samples (x turns) through a backend and the harness
into a run directory. `python -m benchmark.run` is a thin CLI over `run()`; the multi-turn protocol
is described in benchmark.multiturn.

Every selected task is accounted for in summary.json: a task that could not be evaluated is listed
under `broken_tasks` (task id -> {"stage": "load" | "reference", "level", "reason"}: its file did not
load, or its reference raised or ran out of memory) and counts in the metrics as a task whose
samples are all incorrect, so a suite that mostly failed cannot read as a perfect score. A task
whose SOLBENCH `requires` a device of the run lacks (FP8 tensor cores on a GPU older than compute
capability 8.9) is not run: it is listed under `skipped_tasks` (task id -> {"level", "reason"})
and counted nowhere, neither in the metrics nor in their denominators.

Verdicts stream: each completion goes to the verifier as the backend yields it, and each verdict is
appended to results.jsonl the moment its evaluation finishes, in completion order, by one recorder
thread, while the backend keeps generating. A slow sample holds back no other, and a run killed
during a long generation keeps every verdict that finished; a rerun resumes from them. A backend
that generates on a GPU the verifier times on is given that GPU's lock (`generation_locks`), so
its batches and the timings take turns."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from benchmark import metrics
from benchmark.environment import host_environment
from benchmark.evaluate import activity
from benchmark.evaluate.device_check import require_device, unmet_requirement
from benchmark.evaluate.device_profile import load_profile
from benchmark.evaluate.harness import EvalConfig, TaskError
from benchmark.extract import extract_code
from benchmark.host import host_device_lock
from benchmark.models import Completion, get_backend
from benchmark.models.base import BackendOptions, GenerationRequest, SamplingParams
from benchmark.multiturn import CompletionLog, CompletionRecord, per_turn_metrics, plan_turn
from benchmark.prompts import PromptBuilder, PromptConfig
from benchmark.rundir import RunDir, RunInfo
from benchmark.suite import LoadFailure, load_suite, resolve_suite
from benchmark.suite.manifest import load_manifest, manifest_path_for
from benchmark.task import Task
from benchmark.verdict import Status, Verdict
from benchmark.verify.verifier import Request, Verifier, VerifierConfig, timed_gpus

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunConfig:
    model: str
    out: Path
    suite: str | None = None  # a folder of task files; None is the built-in suite
    levels: tuple[int, ...] = ()
    tasks: tuple[str, ...] = ()  # glob patterns on task id or file name
    tags: tuple[str, ...] = ()
    sampling: SamplingParams = field(default_factory=SamplingParams)
    eval: EvalConfig = field(default_factory=EvalConfig)
    ks: tuple[int, ...] = (1,)
    command: str = ""
    progress: bool = True
    backend: BackendOptions = field(default_factory=BackendOptions)  # endpoint, concurrency, cache, dtype
    prompt: PromptConfig = field(default_factory=PromptConfig)  # used by backends that take prompts
    turns: int = 1  # at most this many turns per sample, with harness feedback between them
    gpus: tuple[int, ...] | None = None  # devices to evaluate on (one timing lane each); None: all visible
    build_workers: int | None = None  # CPU workers compiling candidates ahead of execution
    lanes: int | None = None  # concurrent evaluations per device; None: default_lanes()

    def __post_init__(self):
        if self.turns < 1:
            raise ValueError("turns must be at least 1")
        if self.lanes is not None and self.lanes < 1:
            raise ValueError("lanes must be at least 1")


def default_lanes(device: str, gpus: int, cores: int | None = None) -> int:
    """Evaluation lanes per device when none is asked for. On CUDA, one lane per two CPU cores of
    each GPU's share of the host, at most 8: a lane's child needs a core or so for its checks, and
    the lanes' own work runs side by side while their timings queue for the exclusive lock. On CPU,
    1: lanes there share the cores that timing measures."""
    if device != "cuda":
        return 1
    cores = cores or os.cpu_count() or 1
    return min(8, max(1, cores // max(1, gpus) // 2))


def select_tasks(config: RunConfig) -> tuple[list[Task], str, list[LoadFailure]]:
    """The selected tasks, the suite version, and the selected files that could not be loaded."""
    suite = load_suite(config.suite)
    selection = (list(config.levels), list(config.tags), list(config.tasks))
    return suite.select(*selection), suite.version, suite.select_failures(*selection)


def skipped_tasks(tasks: list[Task], config: RunConfig) -> dict[str, dict]:
    """The tasks whose `requires` a device this run evaluates on lacks, task id -> {"level",
    "reason"} (benchmark.evaluate.device_check.unmet_requirement); on CUDA every GPU the run times on
    is asked, since any of them may get the task."""
    if config.eval.device == "cuda":
        devices = [f"cuda:{g}" for g in timed_gpus(config.gpus)]
    else:
        devices = [config.eval.device]
    skipped = {}
    for task in tasks:
        reason = next((r for d in devices if (r := unmet_requirement(task.requires, d)) is not None), None)
        if reason is not None:
            skipped[task.task_id] = {"level": task.level, "reason": reason}
    return skipped


def summarize(
    verdicts: list[Verdict],
    ks: tuple[int, ...],
    broken: Mapping[str, dict] | None = None,
    samples_per_task: int = 1,
    baselines: Mapping[str, tuple[str, float]] | None = None,
    baselines_on: str | None = None,
    skipped: Mapping[str, dict] | None = None,
    floors: Mapping[str, object] | None = None,
) -> dict:
    """Metrics per scope, statuses and per-turn rates; `broken` (task id -> {"stage", "level",
    "reason"}) is listed as `broken_tasks` and each entry counts as `samples_per_task` failed samples;
    `skipped` (task id -> {"level", "reason"}) is listed as `skipped_tasks` and counts nowhere.
    `baselines`: task id -> (name, speedup over eager) of its best production baseline on the GPU
    `baselines_on`, from the manifest (`best_baselines`), for the "over best" column. `floors`
    ({"gpu": name or None, "profile": whether that GPU has a device profile}) says where the SOL
    column's floors could come from, for its legend."""
    broken = dict(broken or {})
    baselines = dict(baselines or {})
    per_level = metrics.compute_by_level(
        verdicts,
        ks,
        {t: b.get("level") for t, b in broken.items()},
        samples_per_task,
        best={t: s for t, (_, s) in baselines.items()},
    )
    final = metrics.final_turns(verdicts)
    statuses: dict[str, int] = {}
    for v in final:
        statuses[v.status.value] = statuses.get(v.status.value, 0) + 1
    return {
        "metrics": {name: m.to_dict() for name, m in per_level.items()},
        "metrics_rules": metrics.rules(),
        "statuses": statuses,
        "status_examples": status_examples(final),
        "broken_tasks": broken,
        "skipped_tasks": dict(skipped or {}),
        "turns": per_turn_metrics(
            verdicts, ks, {t: b.get("level") for t, b in broken.items()}, samples_per_task
        ),
        "baselines": {
            "gpu": baselines_on,
            "tasks": {t: {"name": n, "speedup": x} for t, (n, x) in sorted(baselines.items())},
        },
        "floors": dict(floors or {"gpu": None, "profile": False}),
    }


EXAMPLE_CHARS = 200  # of an example's error line in the table


def status_examples(final: list[Verdict]) -> dict[str, str]:
    """For each status but pass among the samples' final verdicts, its first sample (by task and
    sample) and the first line of its error: what the printed table shows under the status counts,
    so a failed run says why."""
    examples: dict[str, str] = {}
    for v in sorted(final, key=lambda v: (v.task_id, v.sample)):
        if v.status is not Status.PASS and v.status.value not in examples:
            reason = v.error_line or "no error recorded"
            examples[v.status.value] = f"{v.task_id}#{v.sample}: {reason[:EXAMPLE_CHARS]}"
    return examples


def best_baselines(manifest, tasks, gpu_name: str | None) -> dict[str, tuple[str, float]]:
    """Task id -> (name, speedup over eager) of each task's best production baseline measured on
    `gpu_name` (none without a GPU)."""
    best = {}
    for task in tasks if gpu_name else []:
        found = manifest.best_baseline(task, gpu_name)
        if found is not None:
            best[task.task_id] = (found[0], found[1].speedup)
    return best


def _cell(value: float | None, width: int, missing: str = "-") -> str:
    return f"{value:>{width}.3f}" if value is not None else f"{missing:>{width}}"


def _ci_cell(value: float | None, ci: list[float] | None, missing: str) -> str:
    """A value and its 95% interval, "0.250 [0.10,0.40]", in a column of CI_WIDTH."""
    if value is None:
        return f"{missing:<{CI_WIDTH}}"
    interval = f" [{ci[0]:.2f},{ci[1]:.2f}]" if ci else ""
    return f"{f'{value:.3f}{interval}':<{CI_WIDTH}}"


CI_WIDTH = 18


def format_table(summary: dict) -> str:
    """The printed table: each rate with its 95% bootstrap interval over tasks; "n/m" marks a speed
    measure not taken (no correct sample of the scope was timed); below it, what each column means."""
    names = ("pass@1", "fast_1", "fast_1.5", "faster", "geomean")
    head = f"{'scope':<10} {'tasks':>5} {'samples':>7}  " + " ".join(f"{n:<{CI_WIDTH}}" for n in names)
    head += f" {'SOL':>5} {'over best':<{CI_WIDTH}}"
    have_baselines = bool((summary.get("baselines") or {}).get("tasks"))
    rows = [head, "-" * len(head)]
    for scope, m in summary["metrics"].items():
        timed = m["fast_p"]["1.0"] is not None
        ci = {k: m.get(f"{k}_ci") for k in ("fast_p", "pass_at_k")}
        cells = [
            _ci_cell(m["pass_at_k"].get("1"), (ci["pass_at_k"] or {}).get("1"), "-"),
            _ci_cell(m["fast_p"]["1.0"], (ci["fast_p"] or {}).get("1.0"), "n/m"),
            _ci_cell(m["fast_p"]["1.5"], (ci["fast_p"] or {}).get("1.5"), "n/m"),
            _ci_cell(m["faster_rate"], m.get("faster_rate_ci"), "n/m"),
            _ci_cell(m["geomean_speedup"], m.get("geomean_speedup_ci"), "-" if timed else "n/m"),
        ]
        sol = m.get("mean_sol_fraction")
        sol_cell = f"{100 * sol:>4.0f}%" if sol is not None else f"{'n/a':>5}"
        over = (
            _ci_cell(m.get("geomean_over_best"), m.get("geomean_over_best_ci"), "-") if have_baselines else ""
        )
        row = f"{scope:<10} {m['tasks']:>5} {m['samples']:>7}  {' '.join(cells)} {sol_cell} {over}"
        rows.append(row.rstrip())
    rows += legend(summary)
    rows.append("statuses: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["statuses"].items())))
    examples = summary.get("status_examples") or {}
    for status, example in sorted(examples.items()):
        rows.append(f"  {status}, e.g. {example}")
    if examples:
        rows.append("  (every sample's reason: results.jsonl in the run folder)")
    broken = summary.get("broken_tasks") or {}
    if broken:
        rows.append(
            f"{len(broken)} task{'s' if len(broken) != 1 else ''} broken, counted as all samples incorrect:"
        )
        for task_id, b in sorted(broken.items()):
            reason = (b.get("reason") or "").strip().splitlines()
            rows.append(
                f"  {task_id} ({b.get('stage')}): {reason[-1][:160] if reason else 'no reason recorded'}"
            )
    rows += skipped_lines(summary.get("skipped_tasks") or {})
    turns = summary.get("turns", {})
    if len(turns) > 1:
        rows.append(
            "after turn: "
            + "  ".join(
                f"{t}: pass {m['pass_rate']:.3f} fast_1 {_cell(m['fast_1'], 0, 'n/m')} ({m['evaluated']} evaluated)"
                for t, m in turns.items()
            )
        )
    if "usage" in summary:
        u = summary["usage"]
        rows.append(
            f"tokens: {u['prompt_tokens']} prompt + {u['completion_tokens']} completion over "
            f"{u['completions']} completions ({u['from_cache']} from the cache)"
        )
    return "\n".join(rows)


def skipped_lines(skipped: Mapping[str, dict]) -> list[str]:
    """The table's account of the tasks not run on this device: one line per reason, with the count,
    and the tasks' ids under it."""
    by_reason: dict[str, list[str]] = {}
    for task_id, s in sorted(skipped.items()):
        by_reason.setdefault(s.get("reason") or "no reason recorded", []).append(task_id)
    lines = []
    for reason, ids in by_reason.items():
        n = len(ids)
        lines.append(
            f"{n} task{'s' if n != 1 else ''} skipped on this device, not counted in any metric: {reason}"
        )
        lines.append("  " + ", ".join(ids))
    return lines


def legend(summary: dict) -> list[str]:
    """One line of words per column of the table, with the rules' own numbers."""
    rules = summary.get("metrics_rules") or metrics.rules()
    margin = f"speedup > p x (1 + max(the timing's own spread, {rules['spread_floor']:g}))"
    lines = [
        "pass@1    share of samples that are correct, averaged over tasks",
        f"fast_1    share of samples correct and faster than eager PyTorch beyond the noise: {margin}, p = 1",
        "fast_1.5  the same with p = 1.5",
        f"faster    the same with p = {rules['faster_rate_threshold']:g}",
        "geomean   geometric mean speedup over eager PyTorch of the correct, timed samples",
        "SOL       floor / time averaged over correct samples, 100% at the speed-of-light floor; "
        + sol_missing(summary),
        over_best_legend(summary),
        f"[lo,hi]   {100 * rules['intervals']['confidence']:g}% bootstrap interval over tasks; n/m: not "
        "measured (no correct sample was timed)",
    ]
    if summary.get("model") == "reference":
        lines.append(
            "the reference model is the baseline itself: expected pass@1 1.000, fast_1 0.000 (it "
            "cannot beat itself beyond the noise) and geomean near 1"
        )
    return lines


def sol_missing(summary: dict) -> str:
    """What an "n/a" in the SOL column means for this run: why its floors are missing."""
    f = summary.get("floors") or {}
    if not f.get("gpu"):
        return 'n/a: floors are computed on a GPU only (the README, "Verdicts and metrics", says why)'
    if not f.get("profile"):
        return (
            f"n/a: no device profile for {f['gpu']} (python -m benchmark.suite profile on that GPU "
            "measures one; floors follow from it)"
        )
    return "n/a: no correct sample of a task with a floor (the manifest counts its work)"


def over_best_legend(summary: dict) -> str:
    """The "over best" column's line: what it is, or why it is blank."""
    b = summary.get("baselines") or {}
    if not b.get("tasks"):
        where = b.get("gpu") or "this device"
        return (
            f"over best blank: the manifest has no production baselines measured on {where} "
            "(python -m benchmark.suite manifest on that GPU)"
        )
    return (
        "over best geomean of speedup over eager / the task's best production baseline's (torch.compile "
        f"max-autotune, SDPA, Liger...; {len(b['tasks'])} tasks, measured on {b.get('gpu')}); > 1 beats it"
    )


def _submit(
    completion: Completion, config: RunConfig, verifier: Verifier, sol_ms: float | None, trusted: bool
):
    """Queue one completion for evaluation: (future verdict or an immediate one, extraction reason,
    whether the extraction found code)."""
    req = completion.request
    if completion.error:
        verdict = Verdict.unmeasured(
            Status.NO_CODE,
            completion.error,
            task_id=req.task.task_id,
            sample=req.sample,
            turn=req.turn,
            level=req.task.level,
            model=config.model,
            device=config.eval.device,
        )
        return verdict, "backend error", True
    extraction = extract_code(completion.text)
    future = verifier.submit_request(
        Request(
            req.task,
            extraction.code,
            sample=req.sample,
            turn=req.turn,
            model=config.model,
            sol_ms=sol_ms,
            trusted=trusted,
        )
    )
    return future, extraction.reason, extraction.code is not None


def _record(completion: Completion, extraction: str) -> CompletionRecord:
    req = completion.request
    return CompletionRecord(
        task_id=req.task.task_id,
        sample=req.sample,
        turn=req.turn,
        text=completion.text,
        extraction=extraction,
        error=completion.error,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        finish_reason=completion.meta.get("finish_reason"),
        cached=bool(completion.meta.get("cached")),
    )


class _Recorder:
    """Appends each verdict to the run directory as soon as it is known, on a thread of its own, and
    keeps the verdict list, the broken tasks and the progress bar. Why a thread: a backend may block
    for minutes before its next completion (a slow API request, a long batch), and verdicts that
    finish meanwhile must reach results.jsonl, and the bar, without waiting for it. Every write to
    results.jsonl and the bar happens here, in the order evaluations finish."""

    def __init__(
        self,
        rundir: RunDir,
        verdicts: list[Verdict],
        broken: dict[str, dict],
        bar: tqdm,
        slow_note: str | None = None,
    ):
        self.rundir, self.verdicts, self.broken, self.bar = rundir, verdicts, broken, bar
        latest = metrics.final_turns(verdicts)
        self.correct = sum(v.correct for v in latest)
        self.faster = sum(_faster(v) for v in latest)
        self.turn = 1
        self.slow_note = slow_note  # said once, of the first sample in flight longer than SLOW_S
        self.failure: BaseException | None = None  # the first error this thread met, raised by check()
        self._events: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._pending = 0  # events announced and not yet handled
        self._idle = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name="solbench-recorder", daemon=True)
        self._thread.start()
        self._stopping = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="solbench-progress", daemon=True)
        self._ticker.start()

    def expect(self, req: GenerationRequest, outcome: Verdict | Future, no_code: str | None) -> None:
        """Record `outcome` (a verdict, or a future of one) once it is known; `no_code` is why the
        completion held no code, which becomes its no_code verdict's error."""
        self._announce()
        if isinstance(outcome, Verdict):
            self._events.put(lambda: self._record(req, outcome, no_code))
        else:
            outcome.add_done_callback(lambda f: self._events.put(lambda: self._record(req, f, no_code)))

    def skip(self) -> None:
        """A request that gets no verdict (its task broke meanwhile): it still counts as done."""
        self.call(lambda: self.bar.update(1))

    def grow(self, n: int) -> None:
        """Another turn adds `n` requests to the bar's total."""

        def add() -> None:
            self.bar.total += n
            self.bar.refresh()

        self.call(add)

    def call(self, fn: Callable[[], None]) -> None:
        self._announce()
        self._events.put(fn)

    def wait_idle(self) -> None:
        """Block until every announced outcome is recorded; raise what went wrong meanwhile."""
        with self._idle:
            while self._pending and self.failure is None:
                self._idle.wait(0.5)
        self.check()

    def check(self) -> None:
        if self.failure is not None:
            raise self.failure

    def stop(self) -> None:
        """Handle what is queued, then end the thread; outcomes that finish later are not recorded
        (a rerun evaluates them again)."""
        self._stopping.set()
        self._ticker.join()
        self._events.put(None)
        self._thread.join()

    def _tick(self) -> None:
        """Every TICK_S, show what the samples in flight are doing (so a slow one can be told from
        a hung one), and once, why the first slow one is slow."""
        while not self._stopping.wait(TICK_S):
            self.call(self._show)

    def _show(self) -> None:
        doing = activity.in_flight()
        now = time.monotonic()
        if self.slow_note and doing and now - doing[0].started > SLOW_S:
            first = doing[0]
            log.warning(
                "sample %s has run %.0f s (now: %s): %s",
                first.label,
                now - first.started,
                activity.SHORT.get(first.phase, first.phase),
                self.slow_note,
            )
            self.slow_note = None
        if not self.bar.disable:
            self._postfix(doing, now)
            self.bar.refresh()

    def _postfix(self, doing: list[activity.Sample], now: float) -> None:
        shown = {"pass": self.correct, "faster": self.faster, "turn": self.turn}
        if doing:
            more = f" (+{len(doing) - SHOWN_IN_FLIGHT})" if len(doing) > SHOWN_IN_FLIGHT else ""
            shown["now"] = ", ".join(d.describe(now) for d in doing[:SHOWN_IN_FLIGHT]) + more
        self.bar.set_postfix(shown, refresh=False)

    def _announce(self) -> None:
        with self._idle:
            self._pending += 1

    def _loop(self) -> None:
        while (event := self._events.get()) is not None:
            try:
                event()
            except BaseException as e:  # noqa: BLE001 - handed to the main thread by check()
                self.failure = self.failure or e
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def _record(self, req: GenerationRequest, outcome: Verdict | Future, no_code: str | None) -> None:
        task = req.task
        if isinstance(outcome, Future):
            if outcome.cancelled():
                return
            error = outcome.exception()
            if isinstance(error, TaskError):
                if task.task_id not in self.broken:
                    self.broken[task.task_id] = {
                        "stage": "reference",
                        "level": task.level,
                        "reason": str(error),
                    }
                    log.error(
                        "task %s (%s) is broken, skipping its samples: %s", task.task_id, task.path, error
                    )
                self.bar.update(1)
                return
            if error is not None:
                raise error
            verdict = outcome.result()
        else:
            verdict = outcome
        if verdict.status is Status.NO_CODE and no_code is not None:
            verdict = replace(verdict, error=no_code)  # say why no code was found
        self.rundir.append(verdict)
        self.verdicts.append(verdict)
        self.correct += verdict.correct
        self.faster += _faster(verdict)
        self.bar.set_description(task.task_id, refresh=False)
        self.turn = verdict.turn
        self._postfix(activity.in_flight(), time.monotonic())
        if not self.bar.update(1):  # True when it drew; within tqdm's mininterval it does not
            self.bar.refresh()  # every verdict is shown


TICK_S = 1.0  # how often the bar shows the samples in flight
SHOWN_IN_FLIGHT = 2  # the longest-running samples the bar names
SLOW_S = 120.0  # a sample in flight this long gets the run's slow note, once


def cpu_slow_note(measure: bool) -> str:
    """Why the first slow sample on the CPU is slow, naming the phases this run has."""
    phases = (
        "the reference, the correctness trials, then both timed side by side"
        if measure
        else "the reference, then the correctness trials"
    )
    return (
        "the suites' inputs are sized for a data-centre GPU, so on the CPU one sample takes minutes "
        f"({phases}); the bar names each sample's phase. Fewer tasks: --tasks NAME or --level N; "
        "a GPU: --device cuda"
    )


def _faster(v: Verdict) -> bool:
    """What the bar's "faster" counts: what the results table's "faster" column is the rate of."""
    return metrics.is_faster(v, metrics.FASTER_RATE_THRESHOLD)


def evaluation_settings(cfg: EvalConfig) -> dict:
    """What run.json records of the evaluation: every setting that can change a verdict (the cache
    folder and the device are recorded elsewhere or change none)."""
    return {
        "trials": cfg.trials,
        "seed": cfg.seed,
        "baseline": cfg.baseline,
        "strict": cfg.strict,
        "timeout_s": cfg.timeout_s,
        "build_timeout_s": cfg.build_timeout_s,
        "timing": asdict(cfg.timing),
    }


def _device_count(config: RunConfig) -> int:
    if config.eval.device != "cuda":
        return 1
    return max(1, len(timed_gpus(config.gpus)))


def generation_locks(config: RunConfig) -> tuple[tuple[int, str], ...]:
    """(GPU, lock path) of each GPU the verifier times on, the lock its children take there
    (benchmark.host.host_device_lock): a local backend generating on one holds it shared around each batch,
    since the contention check does not look at the run's own process. Empty on CPU."""
    if config.eval.device != "cuda":
        return ()
    return tuple((g, host_device_lock(g)) for g in timed_gpus(config.gpus))


def run(config: RunConfig) -> dict:
    """Evaluate every (task, sample, turn) not already in the run directory; return the summary."""
    require_device(config.eval.device)
    tasks, suite_version, failures = select_tasks(config)
    if not tasks and not failures:
        raise ValueError("no task matches the selection")
    skipped = skipped_tasks(tasks, config)
    if skipped:
        tasks = [t for t in tasks if t.task_id not in skipped]
        for line in skipped_lines(skipped):
            log.warning("%s", line)
        if not tasks and not failures:
            raise ValueError(
                "every selected task is skipped on this device: " + next(iter(skipped.values()))["reason"]
            )
    broken: dict[str, dict] = {}
    for f in failures:
        log.error("task %s is broken (it did not load), counted as failed: %s", f.task_id, f.reason)
        broken[f.task_id] = {"stage": "load", "level": f.level, "reason": f.reason}
    backend_options = replace(config.backend, device_locks=generation_locks(config))
    backend = get_backend(config.model, config.sampling, backend_options)
    unused = backend.unused_records([t.task_id for t in tasks], [t.name for t in tasks])
    if unused:
        log.warning(
            "%d task(s) in the recorded completions are not in this run's selection (not in the suite, or "
            "left out by --level/--tag/--tasks); their completions are not evaluated: %s",
            len(unused),
            ", ".join(unused[:10]) + (f" and {len(unused) - 10} more" if len(unused) > 10 else ""),
        )
    prompts = PromptBuilder(config.prompt) if backend.uses_prompts else None
    rundir = RunDir(config.out)
    new_run = not rundir.has_run_info()
    lanes = config.lanes or default_lanes(config.eval.device, _device_count(config))
    rundir.write_run_info(
        RunInfo(
            command=config.command or " ".join(sys.argv),
            started=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            model=config.model,
            backend=backend.describe(),
            sampling=asdict(config.sampling),
            turns=config.turns,
            prompt=prompts.describe() if prompts else None,
            device=config.eval.device,
            baseline=config.eval.baseline,
            timing=config.eval.measure,
            evaluation=evaluation_settings(
                replace(config.eval, strict=config.eval.strict and not backend.trusted)
            ),
            lanes=lanes,
            strict=config.eval.strict and not backend.trusted,
            suite=config.suite or "builtin",
            suite_version=suite_version,
            tasks=[t.task_id for t in tasks],
            environment=host_environment(),
        ).to_dict()
    )
    existing = rundir.load_verdicts()
    completions = CompletionLog(rundir.path)
    eval_cfg = replace(config.eval, strict=config.eval.strict and not backend.trusted)
    manifest = load_manifest(manifest_path_for(resolve_suite(config.suite)))
    gpu_name = (host_environment().get("gpu") or None) if eval_cfg.device == "cuda" else None
    sol = {t.task_id: manifest.sol_ms(t, gpu_name) for t in tasks} if gpu_name else {}
    floors = {"gpu": gpu_name, "profile": gpu_name is not None and load_profile(gpu_name) is not None}
    verifier_cfg = VerifierConfig(eval=eval_cfg, gpus=config.gpus, lanes_per_device=lanes)
    if config.build_workers:
        verifier_cfg = replace(verifier_cfg, build_workers=config.build_workers)
    verifier = Verifier(verifier_cfg)
    verdicts = list(existing)
    k = config.sampling.samples
    requests = plan_turn(1, tasks, k, verdicts, completions, prompts, config.turns)
    bar = tqdm(
        total=len(tasks) * k,
        initial=len(tasks) * k - len(requests),
        disable=not config.progress,
        unit="sample",
    )
    slow_note = cpu_slow_note(eval_cfg.measure) if eval_cfg.device == "cpu" else None
    recorder = _Recorder(rundir, verdicts, broken, bar, slow_note)
    finished = False
    logs = contextlib.ExitStack()
    if config.progress:
        logs.enter_context(logging_redirect_tqdm())  # log lines print above the bar, not into it
    try:
        for turn in range(1, config.turns + 1):
            if turn > 1:
                requests = plan_turn(turn, tasks, k, verdicts, completions, prompts, config.turns, broken)
                recorder.grow(len(requests))
                if requests:
                    log.info("turn %d: %d sample(s) get another try with feedback", turn, len(requests))
            for completion in backend.generate(requests):
                recorder.check()
                req = completion.request
                if req.task.task_id in broken:
                    recorder.skip()
                    continue
                outcome, how, found = _submit(
                    completion, config, verifier, sol.get(req.task.task_id), backend.trusted
                )
                completions.append(_record(completion, how))
                recorder.expect(req, outcome, None if found else how)
            recorder.wait_idle()  # the next turn is planned from this one's verdicts
        finished = True
    finally:
        verifier.close(cancel_pending=True)  # evaluations already running finish, and are recorded
        recorder.stop()
        bar.close()
        logs.close()
        if recorder.failure is not None and not finished:
            log.error("a verdict could not be recorded while the run stopped: %r", recorder.failure)
        if not finished and not verdicts and not completions.records and new_run:
            rundir.discard()  # a run that failed before its first verdict leaves no run directory behind
        else:
            summary = summarize(
                verdicts,
                config.ks,
                broken,
                k,
                best_baselines(manifest, tasks, gpu_name),
                gpu_name,
                skipped,
                floors,
            )
            summary.update(
                model=config.model,
                suite_version=suite_version,
                finished=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            )
            usage = completions.usage()
            if usage:
                summary["usage"] = usage
            rundir.write_summary(summary)
    recorder.check()
    return summary
