"""Regenerate the example submissions from real runs on this machine's CPU.

    python -m leaderboard.examples [--runs runs/examples] [--out FOLDER]

Two runs of `benchmark.run` on the built-in suite, each over the two example tasks, then submitted
(partial, labelled "example" and "CPU run") into tests/leaderboard/data/submissions/ of this
checkout, apart from the real board: their timings are CPU noise, so they show the format, not a
result:

- the `reference` baseline: each task's own PyTorch program served as the candidate;
- `replay:leaderboard/example_completions.jsonl`: four recorded completions, two samples per task: a
  correct C++ GELU kernel (load_inline, cpp_sources), the same kernel with the exact-erf formula
  where the task asks for the tanh approximation, a plain-PyTorch softmax (which anti-cheat
  refuses as a PyTorch fallback) and a completion without code.

The suite version each run used is recorded in leaderboard/suite_versions.json, so the submissions
validate after later tasks change the suite. Takes several minutes on two cores, mostly
computing and timing the reference programs; run it again whenever the suite version changes."""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmark.evaluate.harness import EvalConfig
from benchmark.flags import add_out, add_quiet
from benchmark.models.base import BackendOptions, SamplingParams
from benchmark.rundir import RunDir
from benchmark.runner import RunConfig, run
from benchmark.suite import load_suite
from leaderboard.submission import EXAMPLE
from leaderboard.submit import submit
from leaderboard.suites import SUITE_VERSIONS_PATH, SuiteRegistry, SuiteVersion, add

EXAMPLE_TASKS = ("gelu_tanh_fp32", "softmax_rows_bf16")
COMPLETIONS = Path(__file__).parent / "example_completions.jsonl"
EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "tests" / "leaderboard" / "data" / "submissions"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Example:
    name: str
    folder: str  # run directory name under --runs
    model: str
    samples: int
    notes: str


def _display_path(path: Path) -> str:
    """Relative to the working directory when inside it, so run.json shows a portable command."""
    try:
        return (
            os.path.relpath(path.resolve(), Path.cwd())
            if path.resolve().is_relative_to(Path.cwd())
            else str(path)
        )
    except ValueError:
        return str(path)


EXAMPLES = (
    Example(
        name="Reference baseline (CPU example)",
        folder="reference-cpu",
        model="reference",
        samples=1,
        notes="The task's own PyTorch program served as ModelNew, run on a CPU by `python -m leaderboard.examples` "
        "to show the submission format. Its speedups are CPU timing noise, and its anti-cheat flags are "
        "reported, not enforced: the reference is the trusted baseline.",
    ),
    Example(
        name="Replayed completions (CPU example)",
        folder="replay-cpu",
        model=f"replay:{_display_path(COMPLETIONS)}",
        samples=2,
        notes="Four hand-written completions replayed from leaderboard/example_completions.jsonl on a CPU: "
        "a C++ GELU kernel, the same kernel with the wrong formula, a plain-PyTorch softmax (a PyTorch "
        "fallback, which anti-cheat refuses) and a completion without code.",
    ),
)


def run_config(example: Example, out: Path, progress: bool = True) -> RunConfig:
    """Two correctness trials and a long timeout: the tasks are GPU-sized, and a shared CPU is slow.
    The config records the `benchmark.run` command that gives the same run."""
    ks = tuple(sorted({1, example.samples}))
    argv = [
        "--model",
        example.model,
        "--device",
        "cpu",
        "--samples",
        str(example.samples),
        "--trials",
        "2",
        "--timeout",
        "1800",
        "--out",
        str(out),
    ]
    for task in EXAMPLE_TASKS:
        argv += ["--tasks", task]
    for k in ks:
        argv += ["--k", str(k)]
    return RunConfig(
        model=example.model,
        out=out,
        tasks=EXAMPLE_TASKS,
        sampling=SamplingParams(samples=example.samples),
        eval=EvalConfig(device="cpu", trials=2, timeout_s=1800.0),
        ks=ks,
        command=shlex.join(["python", "-m", "benchmark.run", *argv, *([] if progress else ["--quiet"])]),
        progress=progress,
        backend=BackendOptions(device="cpu"),
    )


def regenerate(
    runs: Path,
    out_dir: Path = EXAMPLES_DIR,
    versions_file: Path = SUITE_VERSIONS_PATH,
    resume: bool = False,
    progress: bool = True,
) -> list[Path]:
    """Run every example and submit it; return the submission files. Other people may be editing
    tasks meanwhile, so the suite is read before and after each run and whichever snapshot has the
    version the run stamped is recorded."""
    written = []
    for example in EXAMPLES:
        rundir = runs / example.folder
        if rundir.exists() and not resume:
            shutil.rmtree(rundir)
        config = run_config(example, rundir, progress)
        before = SuiteVersion.from_suite(load_suite())
        log.info("running: %s", config.command)
        run(config)
        used = RunDir(rundir).run_info()["suite_version"]
        snapshot = before if used == before.version else SuiteVersion.from_suite(load_suite())
        if snapshot.version == used:
            add(snapshot, versions_file)
        elif SuiteRegistry.load(versions_file, include_builtin=False).get(used) is None:
            raise RuntimeError(
                f"{rundir} used suite version {used}, which is neither recorded nor the suite now; "
                "run again without --resume"
            )
        written.append(
            submit(
                rundir,
                example.name,
                out_dir=out_dir,
                replace=True,
                notes=example.notes,
                labels=(EXAMPLE,),
                partial=True,
                registry=SuiteRegistry.load(versions_file),
            )
        )
    return written


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m leaderboard.examples",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--runs",
        type=Path,
        default=Path("runs/examples"),
        help="where the run folders go (default: runs/examples)",
    )
    add_out(
        p,
        "where the example submissions go (default: the tests' fixtures, tests/leaderboard/data/submissions)",
        default=EXAMPLES_DIR,
        old=("--out-dir",),
    )
    p.add_argument("--resume", action="store_true", help="keep existing run folders and finish them")
    add_quiet(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        paths = regenerate(args.runs, args.out, resume=args.resume, progress=not args.quiet)
    except (RuntimeError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"submission written: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
