"""The checks a run directory passes before it becomes a leaderboard submission.

Every refusal names the exact problem (the field, the results.jsonl line, the task, the metric), so
a submitter can fix the run rather than guess. Checks, in order:

1. run.json: every field `benchmark.runner` writes, with the right type; the environment records
   gpu, driver, cuda and torch (gpu, driver and cuda may be null only when the device is cpu: such
   submissions are labelled "CPU run").
2. results.jsonl: every line is a verdict record (`benchmark.verdict.Verdict`) of this run's model
   and device, for a task the run selected, with no (task, sample, turn) twice, evaluated on the GPU
   and torch run.json records and in its anti-cheat mode (a run resumed elsewhere mixes two).
3. The suite version is known (leaderboard/suite_versions.json or the built-in suite now), every
   task exists in it, and each verdict's level and task hash agree with it.
4. Coverage: every task of each level the run touches is present (or, for a partial submission,
   every task the run selected), each with the number of samples run.json claims; a task the run
   lists as broken, or as skipped on its device (summary.json's skipped_tasks: an FP8 task on a GPU
   without FP8 tensor cores), is named as such.
5. summary.json agrees with the metrics recomputed from the verdicts by `benchmark.metrics`, its
   broken tasks counted as the runner counts them (all samples incorrect), intervals included; a
   summary written under older metrics rules is checked on the numbers the rules did not change.
6. Anti-cheat was on: a non-strict run is refused unless it is the trusted reference baseline.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark import metrics
from benchmark.models import is_trusted
from benchmark.rundir import RUN_REQUIRED, verdict_lines
from benchmark.verdict import Verdict
from leaderboard.submission import CPU_RUN, PARTIAL
from leaderboard.suites import SuiteRegistry, SuiteVersion

MAX_LISTED = 10  # problems of one kind listed before "and N more"
ENV_REQUIRED = ("gpu", "driver", "cuda", "torch")
ENV_NULLABLE_ON_CPU = ("gpu", "driver", "cuda")
BROKEN_STAGES = ("load", "reference")


class ValidationError(ValueError):
    """A run the leaderboard refuses; `problems` lists each reason."""

    def __init__(self, path: Path, problems: list[str]):
        self.problems = problems
        shown = problems[:MAX_LISTED]
        more = f"\n  ... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        super().__init__(f"{path}: refused:\n  " + "\n  ".join(shown) + more)


@dataclass(frozen=True)
class ValidatedRun:
    path: Path
    run: dict[str, Any]
    summary: dict[str, Any]
    verdicts: list[Verdict]
    suite: SuiteVersion
    tasks: list[str]  # the tasks the submission covers
    labels: list[str]


def _read_json(path: Path, problems: list[str]) -> Any:
    if not path.is_file():
        problems.append(f"{path.name} is missing")
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        problems.append(f"{path.name} is not valid JSON ({e.msg} at line {e.lineno})")
        return None


def check_run_info(run: Any) -> list[str]:
    """Problems with run.json's fields (empty when it is sound)."""
    if not isinstance(run, dict):
        return ["run.json must be a JSON object"]
    problems = []
    for name, kind in RUN_REQUIRED.items():
        if name not in run:
            problems.append(f"run.json: field '{name}' is missing")
        elif not isinstance(run[name], kind):
            problems.append(
                f"run.json: field '{name}' must be a {kind.__name__}, not {type(run[name]).__name__}"
            )
        elif kind is str and not run[name].strip():
            problems.append(f"run.json: field '{name}' is empty")
    if problems:
        return problems
    samples = run["sampling"].get("samples")
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        problems.append(f"run.json: sampling.samples must be a positive integer, not {samples!r}")
    for name in ("temperature", "top_p"):
        if not isinstance(run["sampling"].get(name), int | float):
            problems.append(f"run.json: sampling.{name} must be a number")
    if run["device"] not in ("cpu", "cuda") and not run["device"].startswith("cuda:"):
        problems.append(f"run.json: device must be 'cpu' or 'cuda', not {run['device']!r}")
    if run["baseline"] not in ("eager", "compile"):
        problems.append(f"run.json: baseline must be 'eager' or 'compile', not {run['baseline']!r}")
    if not run["tasks"] or not all(isinstance(t, str) for t in run["tasks"]):
        problems.append("run.json: tasks must be a non-empty list of task ids")
    if "timing" in run and not isinstance(run["timing"], bool):
        problems.append(f"run.json: timing must be true or false, not {run['timing']!r}")
    env = run["environment"]
    on_cpu = run["device"] == "cpu"
    for name in ENV_REQUIRED:
        if name not in env:
            problems.append(f"run.json: environment.{name} is missing")
        elif env[name] is None and on_cpu and name in ENV_NULLABLE_ON_CPU:
            continue
        elif not isinstance(env[name], str) or not env[name].strip():
            why = " (only a cpu run may leave it null)" if name in ENV_NULLABLE_ON_CPU else ""
            problems.append(f"run.json: environment.{name} must be recorded, got {env[name]!r}{why}")
    return problems


def read_results(path: Path, run: dict) -> tuple[list[Verdict], list[str]]:
    """Every verdict of results.jsonl, and the problems found, each with its line number."""
    if not path.is_file():
        return [], ["results.jsonl is missing"]
    verdicts, problems = [], []
    seen: dict[tuple[str, int, int], int] = {}
    mixed: dict[tuple[str, Any], list[int]] = defaultdict(list)  # (setting, value) -> lines
    selected = set(run["tasks"])
    samples = run["sampling"]["samples"]
    for lineno, v in verdict_lines(path):
        where = f"results.jsonl line {lineno}"
        if not isinstance(v, Verdict):
            problems.append(f"{where}: {v}")
            continue
        if v.model != run["model"]:
            problems.append(f"{where}: model {v.model!r} differs from run.json's {run['model']!r}")
        if v.device and v.device != run["device"]:
            problems.append(f"{where}: device {v.device!r} differs from run.json's {run['device']!r}")
        if v.task_id not in selected:
            problems.append(f"{where}: task {v.task_id!r} is not among run.json's tasks")
        if not 0 <= v.sample < samples:
            problems.append(
                f"{where}: sample {v.sample} is outside 0..{samples - 1} (sampling.samples = {samples})"
            )
        for setting, value in _verdict_settings(v).items():
            if value != _run_setting(run, setting):
                mixed[(setting, value)].append(lineno)
        key = (v.task_id, v.sample, v.turn)
        if key in seen:
            problems.append(f"{where}: {v.task_id} sample {v.sample} turn {v.turn} repeats line {seen[key]}")
        seen[key] = lineno
        verdicts.append(v)
    for (setting, value), lines in mixed.items():
        shown = ", ".join(map(str, lines[:5])) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
        problems.append(
            f"results.jsonl: {len(lines)} verdict(s) (line {shown}) have {setting} {value!r}, run.json "
            f"records {_run_setting(run, setting)!r}: a run resumed elsewhere mixes two experiments; "
            "submit runs made under one setting"
        )
    if not verdicts and not problems:
        problems.append("results.jsonl holds no verdicts")
    return verdicts, problems


def _verdict_settings(v: Verdict) -> dict[str, Any]:
    """The settings a verdict records of its evaluation: its GPU and torch (from the child's env,
    when recorded) and its anti-cheat mode."""
    out: dict[str, Any] = {k: v.env[k] for k in ("gpu", "torch") if v.env.get(k)}
    out["strict"] = v.strict
    return out


def _run_setting(run: dict, setting: str) -> Any:
    return run["strict"] if setting == "strict" else run["environment"].get(setting)


def check_suite(run: dict, verdicts: list[Verdict], suite: SuiteVersion) -> list[str]:
    problems = [
        f"run.json: task {t!r} is not in suite version {suite.version}"
        for t in run["tasks"]
        if t not in suite.tasks
    ]
    for v in verdicts:
        info = suite.tasks.get(v.task_id)
        if info is None:
            continue
        if v.level != info.level:
            problems.append(
                f"results: {v.task_id} sample {v.sample} says level {v.level}, the suite says {info.level}"
            )
        if v.task_hash and info.hash and v.task_hash != info.hash:
            problems.append(
                f"results: {v.task_id} sample {v.sample} was evaluated on a different task file "
                f"(hash {v.task_hash[:12]}, suite {suite.version} has {info.hash[:12]})"
            )
    return problems


def covered_tasks(run: dict, suite: SuiteVersion, partial: bool) -> list[str]:
    """The tasks the submission answers for: whole levels, or (partial) the run's own selection."""
    if partial:
        return sorted(t for t in run["tasks"] if t in suite.tasks)
    levels = {suite.tasks[t].level for t in run["tasks"] if t in suite.tasks}
    return sorted(t for lv in levels for t in suite.level_tasks(lv))


@dataclass(frozen=True)
class BrokenTask:
    """One entry of summary.json's broken_tasks."""

    stage: str | None  # "load" or "reference"; None for the old form (a bare reason string)
    level: int | None
    reason: str

    @property
    def counted(self) -> bool:
        """Whether summary.json's metrics count it: the runners that wrote the old form did not."""
        return self.stage is not None


def read_broken(summary: Any) -> tuple[dict[str, BrokenTask], list[str]]:
    """summary.json's broken tasks, in the runner's form {"stage", "level", "reason"} or the old bare
    reason string, and the problems with malformed entries."""
    raw = summary.get("broken_tasks", {}) if isinstance(summary, dict) else {}
    if not isinstance(raw, dict):
        kind = type(raw).__name__
        return {}, [f"summary.json: broken_tasks must be an object of task id -> entry, not {kind}"]
    out, problems = {}, []
    for task_id, entry in raw.items():
        where = f"summary.json: broken_tasks[{task_id!r}]"
        if isinstance(entry, str):
            out[task_id] = BrokenTask(None, None, entry)
            continue
        if not isinstance(entry, dict):
            problems.append(f"{where} must be an object with stage, level and reason")
            continue
        stage, level = entry.get("stage"), entry.get("level")
        if stage not in BROKEN_STAGES:
            problems.append(f"{where}: stage must be one of {', '.join(BROKEN_STAGES)}, not {stage!r}")
        elif level is not None and (isinstance(level, bool) or not isinstance(level, int)):
            problems.append(f"{where}: level must be an integer or null, not {level!r}")
        else:
            out[task_id] = BrokenTask(stage, level, str(entry.get("reason") or ""))
    return out, problems


def read_skipped(summary: Any) -> dict[str, str]:
    """summary.json's skipped tasks, task id -> reason (the runner's {"level", "reason"} entries)."""
    raw = summary.get("skipped_tasks") if isinstance(summary, dict) else None
    if not isinstance(raw, dict):
        return {}
    return {t: str(e.get("reason") or "no reason recorded") for t, e in raw.items() if isinstance(e, dict)}


def check_broken(run: dict, broken: Mapping[str, BrokenTask]) -> list[str]:
    """A task whose reference failed was loaded, so it must be one of run.json's tasks; one that failed
    to load never is (the runner lists loaded tasks only), so there is nothing to check it against."""
    stray = sorted(t for t, b in broken.items() if b.stage != "load" and t not in set(run["tasks"]))
    if not stray:
        return []
    return [
        f"summary.json: broken task(s) {', '.join(stray)} are not among run.json's tasks; "
        "was the run resumed with a different task selection?"
    ]


def check_coverage(
    run: dict,
    verdicts: list[Verdict],
    suite: SuiteVersion,
    tasks: list[str],
    broken: Mapping[str, BrokenTask] | None = None,
    skipped: Mapping[str, str] | None = None,
) -> list[str]:
    """`skipped`: task id -> why the run's device could not run it."""
    broken, skipped = broken or {}, skipped or {}
    samples: dict[str, set[int]] = defaultdict(set)
    for v in metrics.final_turns(verdicts):
        samples[v.task_id].add(v.sample)
    claimed = run["sampling"]["samples"]
    selected = set(run["tasks"])
    problems = []
    for t in tasks:
        level = suite.tasks[t].level
        if t not in samples:
            why = "the run did not select it" if t not in selected else "it has no results"
            if t in broken:
                b = broken[t]
                last = (b.reason.strip().splitlines() or ["no reason recorded"])[-1][:200]
                why = f"it is broken in this run ({b.stage or 'reference'} failed: {last}); fix it and resume"
            elif t in skipped:
                why = f"the run's device cannot run it ({skipped[t]}); run the level on a GPU that can"
            problems.append(f"task {t} of claimed level {level} is missing: {why}")
        elif len(samples[t]) < claimed:
            problems.append(
                f"task {t} has {len(samples[t])} sample(s), run.json claims {claimed} (sampling.samples)"
            )
    return problems


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _diff(path: str, claimed: Any, actual: Any) -> list[str]:
    if isinstance(claimed, dict) and isinstance(actual, dict):
        out = [f"{path}.{k} is absent from summary.json" for k in actual if k not in claimed]
        out += [f"{path}.{k} is in summary.json but not recomputed" for k in claimed if k not in actual]
        for k in claimed.keys() & actual.keys():
            out += _diff(f"{path}.{k}", claimed[k], actual[k])
        return out
    return (
        [] if _close(claimed, actual) else [f"{path} is {claimed!r} in summary.json, {actual!r} recomputed"]
    )


RULED = ("faster_rate", "faster_rate_compile")  # besides fast_p at p > 0 and every interval


def _rule_free(per_scope: dict) -> dict:
    """The metrics that mean the same under every version of the metrics rules: a summary.json
    written under other rules (before the noise-aware "faster" and the intervals, or after a change
    of their constants) is checked on these; its other numbers are recomputed by the site anyway."""
    out = {}
    for scope, m in per_scope.items():
        if not isinstance(m, dict):
            out[scope] = m
            continue
        kept = {k: x for k, x in m.items() if k not in RULED and not k.endswith("_ci")}
        if isinstance(kept.get("fast_p"), dict):
            kept["fast_p"] = {p: x for p, x in kept["fast_p"].items() if p == "0.0"}
        out[scope] = kept
    return out


def check_summary(summary: Any, run: dict, verdicts: list[Verdict]) -> list[str]:
    """Recompute every metric with benchmark.metrics and compare with what summary.json claims; its
    broken tasks count as the runner counted them, each as sampling.samples incorrect samples. A
    summary computed under other metrics rules (`metrics_rules`) is compared on the numbers those
    rules do not change (see `_rule_free`)."""
    if not isinstance(summary, dict) or not isinstance(summary.get("metrics"), dict):
        return ["summary.json has no 'metrics' object"]
    claimed = summary["metrics"]
    try:
        ks = sorted(int(k) for k in (claimed.get("overall") or {}).get("pass_at_k", {}))
    except (TypeError, ValueError):
        return ["summary.json: metrics.overall.pass_at_k keys must be integers k"]
    broken, problems = read_broken(summary)
    if problems:
        return problems
    problems = check_broken(run, broken)
    counted = {t: b.level for t, b in broken.items() if b.counted}
    per_level = metrics.compute_by_level(verdicts, ks or (1,), counted, run["sampling"]["samples"])
    recomputed = {name: m.to_dict() for name, m in per_level.items()}
    if summary.get("metrics_rules") != metrics.rules():
        claimed, recomputed = _rule_free(claimed), _rule_free(recomputed)
    differences = _diff("metrics", claimed, recomputed)
    problems += [f"summary.json disagrees with the results: {d}" for d in differences]
    statuses: dict[str, int] = defaultdict(int)
    for v in metrics.final_turns(verdicts):
        statuses[v.status.value] += 1
    if "statuses" in summary and not _close(summary["statuses"], dict(statuses)):
        problems.append(
            f"summary.json disagrees with the results: statuses are {summary['statuses']}, "
            f"recomputed {dict(statuses)}"
        )
    # summary.json's suite_version is the suite at the latest (resumed) invocation; each verdict's
    # task hash is checked against run.json's version instead
    if "model" in summary and summary["model"] != run["model"]:
        problems.append(f"summary.json: model {summary['model']!r} differs from run.json's {run['model']!r}")
    return problems


def validate_run_dir(
    path: str | Path, registry: SuiteRegistry | None = None, *, partial: bool = False
) -> ValidatedRun:
    """Check a run directory; return what a submission is made of, or raise ValidationError."""
    path = Path(path)
    if not path.is_dir():
        raise ValidationError(path, ["not a run directory (no such folder)"])
    registry = registry or SuiteRegistry.load()
    problems: list[str] = []
    run = _read_json(path / "run.json", problems)
    summary = _read_json(path / "summary.json", problems)
    if run is not None:
        problems += check_run_info(run)
    if problems:
        raise ValidationError(path, problems)

    verdicts, problems = read_results(path / "results.jsonl", run)
    if problems:
        raise ValidationError(path, problems)

    suite = registry.get(run["suite_version"])
    if suite is None:
        known = ", ".join(sorted(registry.versions)) or "none"
        raise ValidationError(
            path,
            [
                f"unknown suite version {run['suite_version']!r} (known: {known}); if the run used the built-in "
                "suite at a version worth keeping, record it with `python -m leaderboard.suites --record`"
            ],
        )
    problems = check_suite(run, verdicts, suite)
    tasks = covered_tasks(run, suite, partial)
    coverage = check_coverage(run, verdicts, suite, tasks, read_broken(summary)[0], read_skipped(summary))
    if not partial and set(tasks) - set(run["tasks"]):
        coverage.insert(
            0,
            "the run selected only part of its levels: submit it with --partial (labelled 'partial' on "
            "the board), or run the whole levels",
        )
    problems += coverage
    problems += check_summary(summary, run, verdicts)
    if not run["strict"] and not is_trusted(run["model"]):
        problems.append(
            "run.json: strict is false, so anti-cheat findings did not fail samples; "
            "rerun without --no-strict"
        )
    if problems:
        raise ValidationError(path, problems)
    is_partial = partial and set(tasks) != set(covered_tasks(run, suite, partial=False))
    labels = ([CPU_RUN] if run["device"] == "cpu" else []) + ([PARTIAL] if is_partial else [])
    return ValidatedRun(path, run, summary, verdicts, suite, tasks, labels)
