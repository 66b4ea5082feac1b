"""The arms of a call, each run whole or skipped, never cut: the RL arms from one gated SFT model
(`run_rl`: the full method and its ablations, each evaluated after it and compared with the model
before RL), or with --sft-arms the SFT recipes (`run_sft_arms`: one model per arm and training seed,
each compared with plain SFT on the test split)."""

from __future__ import annotations

import logging

from experiments.rl_demo import budget, evaluation, gate, rl_training, sft_training
from experiments.rl_demo.differences import compare_sft_arms, differences
from experiments.rl_demo.state import ARMS, SFT_ARMS, Run

log = logging.getLogger(__name__)


def run_rl(run: Run, deadline: float) -> None:
    """The SFT model and its evaluation before RL (`sft_model`: trained through the gate, or from
    --sft-cache), then every RL arm from that model, each evaluated after it."""
    from datasets import Dataset

    settings, results = run.settings, run.results
    chosen = gate.sft_model(run, deadline)
    model_dir = chosen.model_dir
    if not chosen.passed:  # RL from a model that has not learned the task says nothing of RL
        results["arms"] = {name: {"skipped": "the SFT gate failed"} for name in settings.arms}
        run.write()
        return

    rl_rows = [
        {"prompt": list(run.builder.first_turn(t)), "task_id": t.task_id}
        for t, _ in run.tasks.values()
        if t.task_id.startswith("rl/")
    ]
    dataset = Dataset.from_list(rl_rows)
    results["arms"] = {}
    eval_cost = budget.AFTER_EVAL_RESERVE * chosen.eval_s  # until an after-RL evaluation has been timed
    full_arms_s = []  # training time of each arm that ran all its steps
    for name in settings.arms:
        stop_at = budget.arm_deadline(deadline, eval_cost, full_arms_s, budget.now(), settings.arm_s)
        if stop_at is None:
            log.warning("arm %s skipped: too little time left in the budget", name)
            results["arms"][name] = {"skipped": "budget"}
            run.write()
            continue
        try:
            model, info = rl_training.run_arm(
                name, ARMS[name], model_dir, run.tokenizer, dataset, run.source, settings, stop_at
            )
            if not info["stopped_by_deadline"]:
                full_arms_s.append(info["seconds"])
            # on disk before the evaluation, so a run killed during it keeps the arm's training and curves
            results["arms"][name] = info | {"error": "stopped during its after-RL evaluation"}
            run.write()
            start = budget.now()
            info["after"] = {
                split: evaluation.evaluate(
                    model, run.tokenizer, run.tasks, run.builder, run.source, split, settings
                )
                for split in ("rl", "test")
            }
            eval_cost = budget.now() - start
            del model
            info["differences"] = differences(results["before"], info["after"])
        except Exception as e:  # noqa: BLE001 - one failed arm must not lose the others
            log.exception("arm %s failed", name)
            info = {"error": f"{type(e).__name__}: {e}"}
        results["arms"][name] = info
        run.write()


def run_sft_arms(run: Run, deadline: float) -> None:
    """One SFT model per --sft-arms arm and --sft-seeds training seed, each evaluated on the test split
    (tasks, corpus and sampling fixed by --seed), then every arm compared with plain over seeds and
    tasks (`compare_sft_arms`). Seed-major, plain first within a seed, so a budget cut loses whole
    seeds rather than whole arms; a run trains all its steps or, when the time left cannot hold one,
    is skipped (`arm_deadline`), as the RL arms are."""
    from transformers import AutoModelForCausalLM

    settings = run.settings
    device = "cuda" if settings.on_gpu else "cpu"
    arms = run.results["sft_arms"] = {name: {"runs": {}} for name in settings.sft_arms}
    eval_cost = 0.0  # no evaluation has run before the first run
    full_runs_s = []
    for seed in settings.sft_seeds:
        for name in settings.sft_arms:
            stop_at = budget.arm_deadline(deadline, eval_cost, full_runs_s, budget.now())
            if stop_at is None:
                log.warning("SFT arm %s, seed %d skipped: too little time left in the budget", name, seed)
                arms[name]["runs"][str(seed)] = {"skipped": "budget"}
                run.write()
                continue
            try:
                folder = f"sft-arms/{name}/seed-{seed}"
                trained = sft_training.train_sft(
                    settings, run.tokenizer, run.corpus, SFT_ARMS[name], folder, stop_at, seed=seed
                )
                if not trained.stopped_by_deadline:
                    full_runs_s.append(trained.seconds)
                start = budget.now()
                model = AutoModelForCausalLM.from_pretrained(trained.model_dir).to(device)
                test = evaluation.evaluate(
                    model, run.tokenizer, run.tasks, run.builder, run.source, "test", settings
                )
                info = {"sft": trained.summary(), "eval": {"test": test}}
                del model
                eval_cost = budget.now() - start
            except Exception as e:  # noqa: BLE001 - one failed run must not lose the others
                log.exception("SFT arm %s, seed %d failed", name, seed)
                info = {"error": f"{type(e).__name__}: {e}"}
            arms[name]["runs"][str(seed)] = info
            compare_sft_arms(arms)
            run.write()
