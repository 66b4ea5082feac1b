"""The command of the RL demonstration (`python -m experiments.rl_demo`): its flags, and `main`, which
builds the task family, the corpus, the tokenizer and the reward source, then runs the RL arms or the
SFT arms, or merges earlier calls, and writes rl_demo.json, rl_demo.md and learning_curves.svg."""

from __future__ import annotations

import argparse
import logging
import platform
from pathlib import Path

import torch

from benchmark.environment import gpu_name
from benchmark.metrics import rules
from benchmark.prompts import PromptBuilder, PromptConfig
from experiments import rl_demo
from experiments.rl_demo import arms, budget, merge, report, rewards
from experiments.rl_demo.corpus import SFT_ROWS_PER_TASK, sft_corpus
from experiments.rl_demo.family import SFT_VALUES, family, write_tasks
from experiments.rl_demo.state import ARMS, SFT_ARMS, Run, Settings
from experiments.synthetic import build_tokenizer


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.rl_demo",
        description=rl_demo.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--out", type=Path, required=True, help="folder for rl_demo.json, rl_demo.md and the figure"
    )
    p.add_argument(
        "--tiny", action="store_true", help="CPU, 2-layer model, a few steps, programmatic rewards"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the task split, the model and every arm")
    p.add_argument(
        "--arms",
        nargs="+",
        choices=list(ARMS),
        default=list(ARMS),
        help="RL arms to run, in this order (default: all); with fewer arms per call, more RL steps "
        "fit in the budget, and calls with the same seed and --sft-cache start from the same SFT model "
        "(see --merge)",
    )
    p.add_argument(
        "--sft-arms",
        nargs="+",
        choices=list(SFT_ARMS),
        metavar="NAME",
        help="compare SFT recipes instead of RL: one SFT model per arm (same corpus, init, seed and steps), "
        "each evaluated on the test split and compared with plain, paired over tasks; no RL. plain is "
        "required and runs first. Arms: plain (CuSeT off), cuset (every part on, the default once "
        "cuset is on), cuset_no_tagger, cuset_no_masking, cuset_no_regions, cuset_no_sensitive, "
        "cuset_no_sample_reweighting (that part alone off; confidence is no switch, so it has no arm)",
    )
    p.add_argument(
        "--sft-seeds",
        nargs="+",
        type=int,
        metavar="S",
        help="training seeds (the init model and the trainer's data order; the task split, corpus and "
        "evaluation sampling stay those of --seed). With --sft-arms: train each arm once per seed "
        "(default: --seed alone), seed after seed, every arm within a seed, and arm - plain intervals "
        "resample seeds as well as tasks. In RL mode: the seeds the SFT gate tries, in this order, one "
        "attempt each (default: --sft-attempts of them, --seed and on in steps of 1000); training is "
        "reproducible, so a seed whose model is known to pass the gate can go first",
    )
    p.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="run nothing: combine the rl_demo.json of several calls with the same seed into one "
        "rl_demo.md and learning_curves.svg in --out, each arm against its own call's before-RL numbers; "
        "--sft-arms calls (same --seed and task settings) pool their runs by (arm, training seed)",
    )
    g = p.add_argument_group("budget")
    g.add_argument(
        "--budget-s",
        type=float,
        default=None,
        help="wall-clock budget of the whole run (default 480 s; tiny 1800 s)",
    )
    g.add_argument(
        "--rl-generations",
        type=int,
        default=None,
        help="generation batches per arm (2 optimizer steps each; default 5, tiny 2)",
    )
    g.add_argument("--sft-steps", type=int, default=None, help="SFT optimizer steps (default 1600, tiny 6)")
    g = p.add_argument_group("the arms' SFT model (RL mode)")
    g.add_argument(
        "--sft-cache",
        type=Path,
        metavar="DIR",
        help="keep the SFT model and its before-RL evaluation in DIR/KEY/ (KEY: a hash of every setting "
        "and the data that determine them) and reuse a complete entry instead of training: calls with "
        "the same settings then start their arms from one SFT model",
    )
    g.add_argument(
        "--sft-min-pass",
        type=float,
        default=0.5,
        help="the SFT gate: train again (next training seed) while the SFT model passes less than this "
        "share of the RL split (default 0.5; 0: never); where no model meets it the arms are skipped",
    )
    g.add_argument(
        "--sft-attempts",
        type=int,
        default=3,
        help="SFT trainings the gate may make in all (default 3); none meets --sft-min-pass: the gate "
        "is recorded as failed and no arm runs",
    )
    g.add_argument(
        "--arm-s",
        type=float,
        default=None,
        help="training seconds one RL arm is expected to take: the first arm of a call starts only where "
        "that much is left after its evaluation's reserve, later ones by the quickest arm that ran all "
        "its steps, so that no arm is cut short (default 240: full arms on the H200 trained 72-217 s at "
        "--rl-lr 1e-4 and about 240-310 s at 3e-5; tiny 60); a skipped arm runs in a later call from "
        "the cached model",
    )
    g = p.add_argument_group("tasks and sampling")
    g.add_argument("--rl-tasks", type=int, default=None, help="tasks RL trains on (default 8, tiny 2)")
    g.add_argument(
        "--test-tasks", type=int, default=None, help="tasks neither stage trains on (default 16, tiny 2)"
    )
    g.add_argument(
        "--eval-samples", type=int, default=None, help="samples per RL-split task in evaluation (default 2)"
    )
    g.add_argument(
        "--test-samples",
        type=int,
        default=None,
        help="samples per test task in evaluation, where every claim is made (default 8, tiny 2): "
        "experiments.rl_power puts the chance of claiming a shift of large launches from 40%% to 68%% at "
        "89%% with 8 on 16 tasks, 35%% with 2",
    )
    g.add_argument("--eval-temperature", type=float, default=0.7, help="sampling temperature in evaluation")
    g.add_argument("--group", type=int, default=None, help="rollouts per prompt G (default 8, tiny 4)")
    g.add_argument(
        "--prompts-per-step", type=int, default=4, help="prompts per generation batch (default 4, tiny 2)"
    )
    g.add_argument("--max-new", type=int, default=None, help="completion token limit (default 288, tiny 48)")
    g = p.add_argument_group("training")
    g.add_argument("--sft-lr", type=float, default=1e-3, help="SFT learning rate (from scratch, hence high)")
    g.add_argument(
        "--sft-values",
        choices=list(SFT_VALUES),
        default="grid",
        help="the constants of the SFT tasks. grid (default): the test and RL tasks' 8 x 8 values of a and b, "
        "every combination not held out, 3 rows each (360 tasks); plain SFT then passed 0-53%% of the test "
        "split over seeds, answering the unseen combinations with wrong constants. wide: every nonzero "
        "multiple of 0.25 in [-3, 3] for a and [-2, 2] for b, each combination not held out once (2,280 "
        "tasks), too many to recall one by one, so that reading the constants is what fits them. The test "
        "and RL tasks are the same either way",
    )
    g.add_argument("--sft-batch", type=int, default=None, help="SFT batch (default 16, tiny 4)")
    g.add_argument(
        "--rl-lr",
        type=float,
        default=3e-5,
        help="RL learning rate, constant. From one SFT model on the CPU (docs/rl.md): 1e-4 fell to 25-47%% pass "
        "in 3 of 3 seeds (on the H200 it collapsed to 0%%), 1e-5 held 94-97%% but did not move the launch size "
        "in 5 generations, 3e-5 moved it (answers of >= 1024 blocks 49%% -> 68%%) and lost pass in 1 of 2 seeds",
    )
    g.add_argument(
        "--bdr-prob",
        type=float,
        default=0.25,
        help="BDR replay probability (demo: higher than the recipes' 0.125)",
    )
    g.add_argument(
        "--mirrorpop-delta",
        type=float,
        default=0.02,
        help="MirrorPop threshold delta (demo: below the recipes' 0.1, as ~95%% of an answer's tokens are near-certain template tokens that dilute the per-token mean)",
    )
    g = p.add_argument_group("verifier")
    g.add_argument("--lanes", type=int, default=12, help="concurrent verifier executions on the GPU")
    g.add_argument("--build-workers", type=int, default=6, help="verifier compile workers")
    return p


def parse_args(argv: list[str] | None = None) -> Settings:
    """The call's Settings from its flags; a combination Settings refuses is a usage error."""
    p = build_parser()
    args = p.parse_args(argv)
    try:
        return Settings(**vars(args))
    except ValueError as e:
        p.error(str(e))


def main(argv: list[str] | None = None) -> dict:
    """Run the call the flags describe and return its rl_demo.json (a merged report with --merge)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = parse_args(argv)
    settings.out.mkdir(parents=True, exist_ok=True)
    if settings.merge:
        results = merge.merge(settings.merge)
        print(report.write_report(settings.out, results))
        return results
    t0 = budget.now()
    deadline = t0 + settings.budget_s
    results = {
        "settings": settings.record(),
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "gpu": gpu_name(),
        },
        "metrics": rules(),
        "timing": {},
    }
    run = prepare(settings, results)
    if not settings.tiny:
        start = budget.now()
        passed, results["reference_answers"] = rewards.check_reference_answers(run.source, run.tasks)
        results["timing"]["reference_check_s"] = round(budget.now() - start, 1)
        if not passed:
            run.write()
            run.source.close()
            raise SystemExit(f"reference answers fail the verifier: {results['reference_answers']}")
    run.write()

    try:
        if settings.sft_arms:
            arms.run_sft_arms(run, deadline)
        else:
            arms.run_rl(run, deadline)
    finally:
        run.source.close()
        results["timing"]["total_s"] = round(budget.now() - t0, 1)
        if hasattr(run.source, "verifier"):
            results["verifier_stats"] = dict(run.source.verifier.stats)
        run.write()
    print(report.write_report(settings.out, results))
    return results


def prepare(settings: Settings, results: dict) -> Run:
    """The call's task family (written under OUT/tasks), SFT corpus, tokenizer (trained on the corpus)
    and reward source: the strict verifier on the GPU, the programmatic judge with --tiny."""
    splits = family(settings.seed, settings.rl_tasks, settings.test_tasks, settings.sft_values)
    tasks = write_tasks(splits, settings.out / "tasks")
    builder = PromptBuilder(PromptConfig(backend="cuda-raw"))
    corpus = sft_corpus(
        tasks,
        builder,
        "sft",
        SFT_ROWS_PER_TASK[settings.sft_values],
        repair=0.3,
        seed=settings.seed,
        values=settings.sft_values,
    )
    texts = [m["content"] for row in corpus[:600] for m in row["messages"]]
    tokenizer = build_tokenizer(vocab_size=1024 if settings.tiny else 2048, corpus=texts)
    results["data"] = {k: len(v) for k, v in splits.items()} | {
        "sft_rows": len(corpus),
        "vocab": len(tokenizer),
    }
    if settings.tiny:
        source = rewards.tiny_source(tasks, builder)
    else:
        source = rewards.verifier_source(
            tasks, builder, settings.seed, settings.lanes, settings.build_workers
        )
    return Run(settings, tasks, builder, corpus, tokenizer, source, results)
