"""The command of the trust corpus (`python -m experiments.trust_corpus`): which tasks, the budget, the
parallelism and the output, then `main`, which selects and orders the tasks, resumes OUT/results.jsonl,
runs the corpus and writes the table."""

from __future__ import annotations

import argparse
import datetime
import logging
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmark.environment import gpu_name, package_versions
from datasets_builder.state import Journal
from experiments import trust_corpus
from experiments.trust_corpus.engine import Corpus, Interrupted, order_tasks
from experiments.trust_corpus.record import Row
from experiments.trust_corpus.report import report
from experiments.trust_corpus.translate import (
    InlineTranslator,
    PoolTranslator,
    inductor_teacher,
    untranslatable,
)
from experiments.trust_corpus.verification import describe_verifier, make_verifier

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.trust_corpus",
        description=trust_corpus.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_argument_group("which tasks")
    g.add_argument("--suite", default=None, help="suite folder (default: the built-in suite)")
    g.add_argument("--levels", type=int, nargs="+", help="only these levels")
    g.add_argument(
        "--tasks", action="append", metavar="GLOB", help="only task ids or names matching (repeatable)"
    )
    g.add_argument("--limit", type=int, help="at most this many tasks, taken from the front of the order")
    g.add_argument("--seed", type=int, default=0, help="seed of the order within each level")
    g = p.add_argument_group("time")
    g.add_argument("--budget-s", type=float, default=330.0, help="wall time of the whole run; then it stops")
    g.add_argument(
        "--reserve-s", type=float, default=40.0, help="no task starts in the last this many seconds"
    )
    g.add_argument("--task-timeout-s", type=float, default=120.0, help="limit on one task's translation")
    g = p.add_argument_group("parallelism (16 cores: 7 translating, 5 verifying, 2 building, this one)")
    g.add_argument(
        "--workers",
        type=int,
        default=None,
        help="translation processes (0: in this process); default 7, or with --translate-only every core "
        "this process may use but two (one for this process, one for Triton's ptxas and the system): "
        "no lane or build competes for them",
    )
    g.add_argument("--lanes", type=int, default=5, help="verifier execution lanes on the GPU")
    g.add_argument(
        "--build-workers", type=int, default=2, help="verifier build workers (Triton builds are cheap)"
    )
    g = p.add_argument_group("output")
    g.add_argument(
        "--out",
        type=Path,
        default=Path("runs/trust"),
        help="results.jsonl, corpus.md, summary.json, failures/",
    )
    g.add_argument("--cache", type=Path, default=None, help="verifier cache (default: $SOLBENCH_CACHE)")
    g.add_argument("--max-source-kb", type=int, default=3072, help="cap on the failure sources kept")
    g.add_argument("--quiet", action="store_true", help="no line per finished task")
    g.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: tabulate OUT/results.jsonl (works without a GPU, e.g. on fetched results)",
    )
    g.add_argument(
        "--translate-only",
        action="store_true",
        help="build no verifier: write every translation to OUT/completions.jsonl unjudged, for "
        "`python -m benchmark.run --model replay:OUT/completions.jsonl` run alone on the GPU",
    )
    return p


def _on_sigterm(signum, frame):
    raise Interrupted("stopped by SIGTERM (the stage's time limit)")


@dataclass(frozen=True)
class Options:
    """One call of the trust corpus: the flags of `build_parser`, which holds their help."""

    # which tasks
    suite: str | None = None  # None: the built-in suite
    levels: list[int] | None = None
    tasks: list[str] | None = None  # globs of task ids or names
    limit: int | None = None
    seed: int = 0
    # time
    budget_s: float = 330.0
    reserve_s: float = 40.0
    task_timeout_s: float = 120.0
    # parallelism
    workers: int | None = None  # None: 7, or with translate_only every core this process may use but two
    lanes: int = 5
    build_workers: int = 2
    # output
    out: Path = Path("runs/trust")
    cache: Path | None = None
    max_source_kb: int = 3072
    quiet: bool = False
    report_only: bool = False
    translate_only: bool = False

    def __post_init__(self):
        if self.workers is None:
            workers = max(1, len(os.sched_getaffinity(0)) - 2) if self.translate_only else 7
            object.__setattr__(self, "workers", workers)


def main(argv: list[str] | None = None, *, translator=None, verifier=None) -> int:
    """The command: `run` with the options of the flags."""
    return run(Options(**vars(build_parser().parse_args(argv))), translator=translator, verifier=verifier)


def run(options: Options, *, translator=None, verifier=None) -> int:
    """Select and order the tasks, run those OUT/results.jsonl lacks, write the table; the exit status
    (0, 1 where no task has a row, 2 where none is selected or CUDA is missing). `translator` and
    `verifier` replace the real ones (the tests' fakes); otherwise this needs CUDA."""
    logging.basicConfig(level=logging.WARNING if options.quiet else logging.INFO, format="%(message)s")
    from benchmark.suite import load_suite

    t_start = time.monotonic()
    suite = load_suite(options.suite)
    tasks = order_tasks(suite.select(options.levels, None, options.tasks), options.seed)
    if options.limit is not None:
        tasks = tasks[: options.limit]
    if not tasks:
        print("trust_corpus: no task matches the selection", file=sys.stderr)
        return 2
    options.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(options.out / "results.jsonl", key=lambda r: r["task_id"])
    selected = {t.task_id for t in tasks}
    todo = [] if options.report_only else [t for t in tasks if t.task_id not in journal]
    own_translator, own_verifier = translator is None, verifier is None
    if todo and own_translator:
        try:
            inductor_teacher()  # refuses without CUDA, with the reason
        except RuntimeError as e:
            print(
                f"trust_corpus: {e}. Run it on a machine with a CUDA GPU (scripts/gpu_checks.sh trust), "
                "or use --report-only to tabulate an earlier run's results.jsonl.",
                file=sys.stderr,
            )
            return 2
    versions = package_versions(("torch", "triton"))
    context = {
        "suite": f"{suite.root} (version {suite.version})",
        "selected": len(tasks),
        "done before this run": sum(t.task_id in journal for t in tasks),
        "date": datetime.date.today().isoformat(),
        "torch": versions["torch"],
        "triton": versions["triton"] or "not installed",
        "gpu": gpu_name() or "none",
        "workers": options.workers,
        "lanes": 0 if options.translate_only else options.lanes,
        "verifier": "none (--translate-only)" if options.translate_only else describe_verifier(),
    }
    log.info("%d tasks selected, %d to do, budget %.0f s", len(tasks), len(todo), options.budget_s)
    outcome = None
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if todo:
            if own_translator:
                translator = (
                    PoolTranslator(options.workers, options.task_timeout_s)
                    if options.workers > 0
                    else InlineTranslator(inductor_teacher(), options.task_timeout_s)
                )
            if options.translate_only:
                verifier = None
            elif own_verifier:
                verifier = make_verifier(options.lanes, options.build_workers, options.cache)
            corpus = Corpus(
                translator,
                verifier,
                journal,
                options.out,
                reserve_s=options.reserve_s,
                budget_s=options.budget_s - (time.monotonic() - t_start),
                backlog=2 * options.lanes,
                source_bytes=options.max_source_kb << 10,
                precheck=untranslatable,
            )
            outcome = corpus.run(todo)
            context["stopped"] = outcome.stopped or "every task finished"
            context["wall_s"] = round(time.monotonic() - t_start, 1)
        rows = [Row.from_dict(r) for r in journal.values() if r["task_id"] in selected]
        not_run = [t.task_id for t in tasks if t.task_id not in journal]
        summary = report(rows, not_run, options.out, context)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if own_translator and translator is not None:
            translator.close(kill=True)
        if own_verifier and verifier is not None:
            verifier.close(cancel_pending=True)  # after the report: samples still running cannot lose it
    return 0 if summary["tried"] else 1
