"""Shared by the tests of experiments.rl_demo: hand-made per-task results and the rl_demo.json records
built from them, and stand-ins for the phases of `cli.main` (training, evaluation, the arms) on a fake
clock, so that a test runs a whole call in a second."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from experiments.rl_demo import (
    budget,
    cache,
    differences,
    evaluation,
    metrics,
    records,
    rl_training,
    sft_training,
)

# per task, [passed, speedup] of two samples: the before-RL policy passes half and is slower than eager,
# the after-RL one passes more, faster; how much varies by task, but every task gains
BEFORE = {f"test/t{i:02d}": [[i % 3 > 0, 0.5 + 0.03 * i], [i % 3 > 1, 0.8]] for i in range(12)}
AFTER = {f"test/t{i:02d}": [[True, 1.5 + 0.1 * i], [i % 3 > 0, 2.0]] for i in range(12)}


def split_result(per_task: dict) -> dict:
    """A split's evaluation as `evaluation.evaluate` reports it, from its per-task samples."""
    return {**metrics.split_metrics(per_task), "per_task": per_task}


def arm(before: dict, after: dict) -> dict:
    """An arm's record as main() writes it, from per-task samples of both splits."""
    result = {split: split_result(after) for split in ("rl", "test")}
    return {
        "steps": 10,
        "generations": 5,
        "seconds": 100.0,
        "stopped_by_deadline": False,
        "bdr": {"pushed": 0, "replayed": 0},
        "curve": [{"step": 2, "kernel/pass_rate": 0.5, "reward": 1.0}],
        "after": result,
        "differences": differences.differences(
            {split: split_result(before) for split in ("rl", "test")}, result
        ),
    }


def row(md: str, start: str) -> str:
    """The first line of a report that starts so."""
    return next(line for line in md.splitlines() if line.startswith(start))


def run_file(
    path: Path,
    arms: dict,
    seed: int = 0,
    sft: dict | None = None,
    rl_lr: float = 1e-5,
    gpu: str = "NVIDIA H200",
) -> Path:
    """An RL call's rl_demo.json at path, its before-RL evaluation BEFORE, with these arms."""
    results = {
        "settings": {"seed": seed, "rl_lr": rl_lr},
        "environment": {"gpu": gpu},
        "data": {"test": 12, "rl": 12},
        "sft": sft,
        "before": {split: split_result(BEFORE) for split in ("rl", "test")},
        "arms": arms,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results))
    return path


N_TASKS = 16  # the test split of `outcomes`


def outcomes(passes: int) -> dict:
    """Per task, two samples of which `passes` of the 32 pass (2x faster than eager): one per task
    first, then the second sample of the first tasks."""
    return {
        f"test/t{t:02d}": [
            [t + N_TASKS * j < passes, 2.0 if t + N_TASKS * j < passes else None] for j in (0, 1)
        ]
        for t in range(N_TASKS)
    }


def sft_run(per_task: dict, nll: float | None = None) -> dict:
    """One SFT run's record as main() writes it."""
    sft = {
        "steps": 6,
        "loss_first": 2.0,
        "loss_last": 1.5,
        "nll_last": nll,
        "seconds": 1.0,
        "stopped_by_deadline": False,
    }
    return {"sft": sft, "eval": {"test": split_result(per_task)}}


def sft_arms(runs: dict) -> dict:
    """sft_arms of rl_demo.json from {arm: {seed: per_task or a skip record}}."""
    arms = {
        name: {
            "runs": {
                str(s): r if "skipped" in r else sft_run(r, None if name == "plain" else 0.25)
                for s, r in by_seed.items()
            }
        }
        for name, by_seed in runs.items()
    }
    differences.compare_sft_arms(arms)
    return arms


def sft_file(path: Path, runs: dict, seed: int = 0, **settings) -> Path:
    """An --sft-arms call's rl_demo.json at path, its runs `sft_arms(runs)`."""
    results = {
        "settings": {"seed": seed, "test_tasks": N_TASKS, "sft_steps": 1600, **settings},
        "data": {"test": N_TASKS},
        "sft_arms": sft_arms(runs),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results))
    return path


def sft_record(key: str | None, created: str | None, reused: bool, gate: str = "passed") -> dict:
    """rl_demo.json's "sft" as run_rl writes it, with a cache entry where key is given."""
    record = {
        "steps": 6,
        "gate": gate,
        "min_pass": 0.5,
        "attempts_allowed": 3,
        "attempts_made": 1 if gate == "passed" else 3,
        "attempt": 1,
        "seed": 0,
        "rl_pass_rate": 0.75 if gate == "passed" else 0.25,
        "stopped": None if gate == "passed" else "all 3 attempts below the minimum",
    }
    if key:
        record["cache"] = {
            "key": key,
            "dir": f"/c/{key}",
            "reused": reused,
            "created": created,
            "not_written": None,
        }
    return record


def stub_run(monkeypatch, tmp_path: Path, trained_evaluation=None) -> SimpleNamespace:
    """main's phases stood in for on a fake clock: SFT instant, evaluations 10 s a split, arms 100 s
    (the model they return is "trained"); `trained_evaluation` replaces the trained model's
    evaluation. Records each arm's deadline."""
    seen = SimpleNamespace(now=0.0, deadlines=[])
    monkeypatch.setattr(budget, "now", lambda: seen.now)

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        if model == "trained" and trained_evaluation:
            return trained_evaluation()
        seen.now += 10.0
        return split_result(AFTER if model == "trained" else BEFORE)

    def run_arm(name, overrides, model_dir, tokenizer, dataset, source, args, deadline):
        seen.deadlines.append(deadline)
        seen.now += 100.0
        info = {"steps": 10, "generations": 5, "seconds": 100.0, "stopped_by_deadline": False}
        return "trained", info | {"bdr": {"pushed": 0, "replayed": 0}, "curve": [{"step": 1, "reward": 0.5}]}

    sft = records.SFTRun(tmp_path, 6, 2.0, 1.0, None, 1.0, False)
    monkeypatch.setattr(sft_training, "train_sft", lambda args, tokenizer, corpus, **kwargs: sft)
    monkeypatch.setattr(evaluation, "evaluate", evaluate)
    monkeypatch.setattr(rl_training, "run_arm", run_arm)
    monkeypatch.setattr(
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: "sft"),
    )
    return seen


def stub_sft(monkeypatch) -> SimpleNamespace:
    """The real train_sft and run_sft_arms with a stand-in trainer on a fake clock: a training run
    takes 100 s, an evaluation 10 s; plain's models score BEFORE, every other arm's AFTER. Records
    each run's config and deadline, the init seeds, and each evaluation's (arm, split, --seed)."""
    seen = SimpleNamespace(now=0.0, configs=[], deadlines=[], inits=[], evaluated=[])
    monkeypatch.setattr(budget, "now", lambda: seen.now)

    class Trainer:
        def __init__(self, model, args, train_dataset, processing_class, callbacks):
            seen.configs.append(args)
            seen.deadlines.append(callbacks[0].deadline)
            self.args = args
            self.state = SimpleNamespace(global_step=0, log_history=[])

        def train(self):
            seen.now += 100.0
            nll = {"cuset/nll": 0.5} if self.args.cuset else {}
            self.state = SimpleNamespace(
                global_step=self.args.max_steps, log_history=[{"loss": 2.0}, {"loss": 1.0, **nll}]
            )

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        seen.evaluated.append((model, split, args.seed))
        seen.now += 10.0
        return split_result(BEFORE if model == "plain" else AFTER)

    def no_rl(*args, **kwargs):
        raise AssertionError("--sft-arms runs no RL")

    monkeypatch.setattr(sft_training, "KernelSFTTrainer", Trainer)
    monkeypatch.setattr(sft_training, "build_model", lambda *a, seed, **k: seen.inits.append(seed))
    monkeypatch.setattr(sft_training, "save_model_folder", lambda model, tokenizer, path: path)
    monkeypatch.setattr(sft_training, "save_final_model", lambda trainer: Path(trainer.args.output_dir))
    monkeypatch.setattr(sft_training, "weights_digest", lambda path: f"weights of {Path(path).parent.name}")
    monkeypatch.setattr(evaluation, "evaluate", evaluate)
    monkeypatch.setattr(rl_training, "run_arm", no_rl)
    monkeypatch.setattr(  # a model is its arm's name: output_dir is sft-arms/ARM/seed-S
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: Path(path).parent.name),
    )
    return seen


def stub_gate(
    monkeypatch, tmp_path: Path, rl_passes: dict[str, int], cacheable: bool = False
) -> SimpleNamespace:
    """run_rl with train_sft, evaluate and the arms stood in for on a fake clock: an SFT training takes
    100 s, an evaluation 10 s a split, an arm 50 s. An attempt's model is its folder (sft,
    sft-attempt-2, ...), and passes rl_passes[folder] of 32 samples on either split. Records each
    training's (folder, seed) and the model each arm started from. `cacheable`: a cache entry of these
    empty model folders reads back (its tokenizer check stood in for)."""
    seen = SimpleNamespace(now=0.0, trained=[], arm_models=[])
    monkeypatch.setattr(budget, "now", lambda: seen.now)

    def train_sft(args, tokenizer, corpus, overrides=None, folder="sft", deadline=None, seed=None):
        seen.trained.append((folder, seed))
        seen.now += 100.0
        model_dir = tmp_path / "models" / folder
        model_dir.mkdir(parents=True, exist_ok=True)
        return records.SFTRun(model_dir, 6, 2.0, 1.0, None, 100.0, False)

    def evaluate(model, tokenizer, tasks, builder, source, split, args):
        seen.now += 10.0
        return split_result(outcomes(rl_passes[model]))

    def run_arm(name, overrides, model_dir, tokenizer, dataset, source, args, deadline):
        seen.arm_models.append(model_dir.name)
        seen.now += 50.0
        info = {"steps": 10, "generations": 5, "seconds": 50.0, "stopped_by_deadline": False}
        return model_dir.name, info | {"bdr": {"pushed": 0, "replayed": 0}, "curve": []}

    monkeypatch.setattr(sft_training, "train_sft", train_sft)
    monkeypatch.setattr(evaluation, "evaluate", evaluate)
    monkeypatch.setattr(rl_training, "run_arm", run_arm)
    monkeypatch.setattr(
        "transformers.AutoModelForCausalLM.from_pretrained",
        lambda path: SimpleNamespace(to=lambda device: Path(path).name),
    )
    if cacheable:
        monkeypatch.setattr("transformers.PreTrainedTokenizerFast.from_pretrained", lambda path: None)
        monkeypatch.setattr(cache, "tokenizer_digest", lambda tokenizer: "the tokenizer")
    return seen


def stub_arms(monkeypatch) -> list[Path]:
    """run_arm as a no-op (the arm's model is the SFT model itself), recording each arm's model_dir:
    the cache tests train SFT for real (--tiny, CPU) and need no RL."""
    from transformers import AutoModelForCausalLM

    started_from: list[Path] = []

    def run_arm(name, overrides, model_dir, tokenizer, dataset, source, args, deadline):
        started_from.append(Path(model_dir))
        info = {"steps": 0, "generations": 0, "seconds": 0.0, "stopped_by_deadline": False}
        return AutoModelForCausalLM.from_pretrained(model_dir), info | {
            "bdr": {"pushed": 0, "replayed": 0},
            "curve": [],
        }

    monkeypatch.setattr(rl_training, "run_arm", run_arm)
    return started_from


def tiny(out: Path, cache: Path | None, *extra: str) -> list[str]:
    """A --tiny RL call with one arm and a gate that every model passes, unless extra says otherwise."""
    cached = ["--sft-cache", str(cache)] if cache else []
    return ["--tiny", "--out", str(out), "--arms", "full", "--sft-min-pass", "0", *cached, *extra]
