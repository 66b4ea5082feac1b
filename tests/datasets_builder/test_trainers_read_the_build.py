"""The data contract between the builder and the trainers, tested on what a build writes rather than
on hand-made rows: the trainers' command lines, given recipes that name a build's folder (the tiny
CPU build, and the committed H200 build where it is in the repository) with the shipped recipes'
configuration and split, take one SFT step on its `sft` rows and one GRPO step on its `rl_prompts`
rows, with the tiny random model of the trainer tests (experiments/synthetic.py). Rewards come from a
function here (the verifier is tested on its own); it sees the build's tasks."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
import yaml

from experiments.synthetic import build_model, build_tokenizer, kernel_corpus, save_model_folder

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
CPU = dict(
    use_cpu=True,
    bf16=False,
    gradient_checkpointing=False,
    report_to="none",
    save_strategy="no",
    disable_tqdm=True,
    max_steps=1,
    seed=0,
)

pytestmark = pytest.mark.slow
PUBLISHED = Path(__file__).resolve().parents[2] / "data" / "solbench-kernels"


@pytest.fixture(params=["tiny", "h200"])
def dataset(request) -> tuple[Path, dict[str, int]]:
    """A built dataset folder and the rows per configuration its build reported."""
    if request.param == "h200":
        if not PUBLISHED.is_dir():
            pytest.skip(f"the H200 build is not committed ({PUBLISHED})")
        return PUBLISHED, json.loads((PUBLISHED / "build_stats.json").read_text())["splits"]
    out, result, _ = request.getfixturevalue("built")
    return out / "dataset", result.stats["splits"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    texts = [turn["content"] for row in kernel_corpus(48, seed=1, compact=True) for turn in row["messages"]]
    tokenizer = build_tokenizer(vocab_size=1024, corpus=texts)
    model = build_model(len(tokenizer), seed=0, initializer_range=0.1)
    return save_model_folder(model, tokenizer, tmp_path_factory.mktemp("tiny-qwen2"))


def _recipe(shipped: str, folder: Path, tmp_path: Path, **values) -> Path:
    """A CPU recipe reading `folder` with the configuration and split the shipped recipe names."""
    data = yaml.safe_load((CONFIGS / shipped).read_text())
    recipe = {
        "dataset_name": str(folder),
        "dataset_config": data["dataset_config"],
        "dataset_train_split": data["dataset_train_split"],
        "output_dir": str(tmp_path / "run"),
        **CPU,
        **values,
    }
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return path


def test_one_sft_step_on_the_built_sft_rows(dataset, model_dir, tmp_path):
    from trainers.sft import main

    folder, splits = dataset
    recipe = _recipe(
        "sft/qwen3.5-9b.yaml",
        folder,
        tmp_path,
        model_name_or_path=str(model_dir),
        per_device_train_batch_size=2,
        max_length=4096,
        logging_steps=1,
    )
    run = main(["--config", str(recipe)])
    state = json.loads((run / "trainer_state.json").read_text())
    assert state["global_step"] == 1
    losses = [e["loss"] for e in state["log_history"] if "loss" in e]
    assert losses and all(loss == loss and loss > 0 for loss in losses)  # finite: label tokens survived
    assert splits["sft"] == len(datasets.load_dataset(str(folder), "sft", split="train"))


def test_one_rl_step_on_the_built_rl_prompts(dataset, model_dir, tmp_path, monkeypatch):
    from trainers import rl
    from trainers.rl_rewards import FunctionRewards, Score

    folder, splits = dataset
    built_rows = {
        r["task_id"]: r for r in datasets.load_dataset(str(folder), "rl_prompts", split="train").to_list()
    }
    seen: list[str] = []
    given: dict = {}

    def judge(row, text, turn):
        seen.append(row["task_id"])
        ok = len(text) % 2 == 0
        return Score(1.0 if ok else -1.0, "pass" if ok else "incorrect", feedback="" if ok else "Fix it.")

    def rewards(config, tasks, model):
        given.update(tasks)
        return FunctionRewards(judge)

    monkeypatch.setattr(rl, "verifier_rewards", rewards)
    recipe = _recipe(
        "rl/qwen3.5-9b.yaml",
        folder,
        tmp_path,
        model_name_or_path=str(model_dir),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=6,
        primeecho_turns=2,
        verifier_cache_dir=str(tmp_path / "cache"),
    )
    run = rl.main(["--config", str(recipe)])
    assert json.loads((run / "trainer_state.json").read_text())["global_step"] == 1
    assert sorted(given) == sorted(built_rows) and len(given) == splits["rl_prompts"]
    for task_id, task in given.items():  # the task programs the rewards would verify are the build's
        assert task.path.read_text() == built_rows[task_id]["task_code"]
    assert seen and set(seen) <= set(built_rows)
