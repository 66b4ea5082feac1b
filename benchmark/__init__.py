"""SOLBench: a benchmark for language models that write GPU kernels.

The API a script uses (the rest of the package is internal):

    import benchmark

    suite = benchmark.load_suite()                      # the built-in suite (or a folder, or hf:ORG/NAME)
    task = suite.tasks[0]                               # a benchmark.Task, or benchmark.load_task(path)
    verdict = benchmark.evaluate_candidate(task, code, benchmark.EvalConfig(device="cuda"))
    print(verdict.status, verdict.speedup, verdict.flags)

    with benchmark.Verifier(benchmark.VerifierConfig(eval=benchmark.EvalConfig(device="cuda"))) as v:
        verdicts = [f.result() for f in [v.submit(task, code) for code in codes]]   # pooled, many at once

    summary = benchmark.run_model(benchmark.RunConfig(model="reference", out=Path("runs/ref")))

Names are imported on first use, so `import benchmark` stays light. (`evaluate_candidate` and
`run_model` are `benchmark.evaluate.harness.evaluate` and `benchmark.runner.run`, named apart from
the subpackage `benchmark.evaluate` and the command `benchmark.run`.)"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_PUBLIC = {  # name -> (the module that defines it, its name there)
    "evaluate_candidate": ("benchmark.evaluate.harness", "evaluate"),
    "EvalConfig": ("benchmark.evaluate.harness", "EvalConfig"),
    "TaskError": ("benchmark.evaluate.harness", "TaskError"),
    "TimingConfig": ("benchmark.evaluate.timing", "TimingConfig"),
    "Verifier": ("benchmark.verify.verifier", "Verifier"),
    "VerifierConfig": ("benchmark.verify.verifier", "VerifierConfig"),
    "Verdict": ("benchmark.verdict", "Verdict"),
    "Status": ("benchmark.verdict", "Status"),
    "Task": ("benchmark.task", "Task"),
    "load_task": ("benchmark.task", "load_task"),
    "Suite": ("benchmark.suite", "Suite"),
    "load_suite": ("benchmark.suite", "load_suite"),
    "RunConfig": ("benchmark.runner", "RunConfig"),
    "run_model": ("benchmark.runner", "run"),
    "summarize": ("benchmark.runner", "summarize"),
    "SamplingParams": ("benchmark.models.base", "SamplingParams"),
}
__all__ = [
    "EvalConfig",
    "RunConfig",
    "SamplingParams",
    "Status",
    "Suite",
    "Task",
    "TaskError",
    "TimingConfig",
    "Verdict",
    "Verifier",
    "VerifierConfig",
    "evaluate_candidate",
    "load_suite",
    "load_task",
    "run_model",
    "summarize",
]

if TYPE_CHECKING:
    from benchmark.evaluate.harness import EvalConfig, TaskError
    from benchmark.evaluate.harness import evaluate as evaluate_candidate
    from benchmark.evaluate.timing import TimingConfig
    from benchmark.models.base import SamplingParams
    from benchmark.runner import RunConfig, summarize
    from benchmark.runner import run as run_model
    from benchmark.suite import Suite, load_suite
    from benchmark.task import Task, load_task
    from benchmark.verdict import Status, Verdict
    from benchmark.verify.verifier import Verifier, VerifierConfig


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'benchmark' has no attribute {name!r}")
    module, defined_as = _PUBLIC[name]
    value = getattr(importlib.import_module(module), defined_as)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
