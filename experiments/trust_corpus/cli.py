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


def main(argv: list[str] | None = None, *, translator=None, verifier=None) -> int:
    """`translator` and `verifier` replace the real ones (the tests' fakes); otherwise this needs CUDA."""
    args = build_parser().parse_args(argv)
    if args.workers is None:
        args.workers = max(1, len(os.sched_getaffinity(0)) - 2) if args.translate_only else 7
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, format="%(message)s")
    from benchmark.suite import load_suite

    t_start = time.monotonic()
    suite = load_suite(args.suite)
    tasks = order_tasks(suite.select(args.levels, None, args.tasks), args.seed)
    if args.limit is not None:
        tasks = tasks[: args.limit]
    if not tasks:
        print("trust_corpus: no task matches the selection", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(args.out / "results.jsonl", key=lambda r: r["task_id"])
    selected = {t.task_id for t in tasks}
    todo = [] if args.report_only else [t for t in tasks if t.task_id not in journal]
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
        "workers": args.workers,
        "lanes": 0 if args.translate_only else args.lanes,
        "verifier": "none (--translate-only)" if args.translate_only else describe_verifier(),
    }
    log.info("%d tasks selected, %d to do, budget %.0f s", len(tasks), len(todo), args.budget_s)
    outcome = None
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if todo:
            if own_translator:
                translator = (
                    PoolTranslator(args.workers, args.task_timeout_s)
                    if args.workers > 0
                    else InlineTranslator(inductor_teacher(), args.task_timeout_s)
                )
            if args.translate_only:
                verifier = None
            elif own_verifier:
                verifier = make_verifier(args.lanes, args.build_workers, args.cache)
            corpus = Corpus(
                translator,
                verifier,
                journal,
                args.out,
                reserve_s=args.reserve_s,
                budget_s=args.budget_s - (time.monotonic() - t_start),
                backlog=2 * args.lanes,
                source_bytes=args.max_source_kb << 10,
                precheck=untranslatable,
            )
            outcome = corpus.run(todo)
            context["stopped"] = outcome.stopped or "every task finished"
            context["wall_s"] = round(time.monotonic() - t_start, 1)
        rows = [Row.from_dict(r) for r in journal.values() if r["task_id"] in selected]
        not_run = [t.task_id for t in tasks if t.task_id not in journal]
        summary = report(rows, not_run, args.out, context)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if own_translator and translator is not None:
            translator.close(kill=True)
        if own_verifier and verifier is not None:
            verifier.close(cancel_pending=True)  # after the report: samples still running cannot lose it
    return 0 if summary["tried"] else 1
