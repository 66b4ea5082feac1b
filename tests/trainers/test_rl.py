"""The RL trainer with a tiny random model, a byte-level tokenizer and programmatic rewards: GRPO
steps with every component on and off, the first-turn-only training batch, BDR's replays inside the
trainer, MirrorPop's gradient cut, prompt loading and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from trainers.retry_buffer import RetryBuffer, RetryEntry, repair_prompt
from trainers.rl import KernelRLTrainer, load_rl_prompts, main
from trainers.rl_config import KernelRLConfig, RLScriptArguments
from trainers.rl_rewards import FunctionRewards, Score

G = 4  # group size in these tests


def judge(row, text, turn):
    """Task t0 always fails; the others pass when the completion has an even length."""
    ok = row["task_id"] != "t0" and len(text) % 2 == 0
    if ok:
        return Score(1.0 + 0.1 * turn, "pass", speedup=1.2, feedback="")
    return Score(-1.0, "incorrect", error="mismatch at [0]", feedback=f"Wrong at turn {turn}. Fix it.")


@pytest.fixture
def prompts():
    from datasets import Dataset

    return Dataset.from_list(
        [
            {"prompt": [{"role": "user", "content": f"Write a kernel for task {i}."}], "task_id": f"t{i}"}
            for i in range(4)
        ]
    )


@pytest.fixture
def make_rl_config(tmp_path):
    def make(**overrides):
        values = dict(
            output_dir=str(tmp_path / "out"),
            use_cpu=True,
            bf16=False,
            gradient_checkpointing=False,
            report_to="none",
            logging_steps=1,
            save_strategy="no",
            disable_tqdm=True,
            seed=0,
            per_device_train_batch_size=G,
            num_generations=G,
            steps_per_generation=2,  # two optimizer steps per generation: the second is off-policy
            max_completion_length=8,
            max_steps=2,
            learning_rate=5e-3,
            lr_scheduler_type="constant",
            primeecho_turns=2,
            bdr_replay_prob=1.0,
            mirrorpop_delta=0.5,
        )
        values.update(overrides)
        return KernelRLConfig(**values)

    return make


def make_trainer(config, model, tokenizer, prompts):
    return KernelRLTrainer(
        model=model,
        args=config,
        train_dataset=prompts,
        processing_class=tokenizer,
        reward_source=FunctionRewards(judge),
    )


COMPONENT_KEYS = {
    "primeecho": {"primeecho/mean_turns"},
    "bdr": {"bdr/buffer_size", "bdr/replayed_groups"},
    "mirrorpop": {"mirrorpop/masked_fraction"},
}


@pytest.mark.parametrize(
    "off",
    [(), ("primeecho",), ("bdr",), ("mirrorpop",), ("primeecho", "bdr", "mirrorpop")],
    ids=["all-on", "no-primeecho", "no-bdr", "no-mirrorpop", "all-off"],
)
def test_grpo_steps_change_the_parameters(off, make_rl_config, tiny_model, tokenizer, prompts):
    switches = {name: name not in off for name in COMPONENT_KEYS}
    config = make_rl_config(**switches, save_strategy="steps", save_steps=2)
    trainer = make_trainer(config, tiny_model, tokenizer, prompts)
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainer.train()
    changed = [n for n, p in trainer.model.named_parameters() if not torch.equal(before[n], p.detach())]
    assert changed, "no parameter moved"
    logged = {k for entry in trainer.state.log_history for k in entry}
    assert {
        "kernel/pass_rate",
        "kernel/cheat_rate",
        "kernel/speedup_geomean",
        "frac_reward_zero_std",
        "reward_std",
    } <= logged
    for name, keys in COMPONENT_KEYS.items():
        assert (keys <= logged) if switches[name] else not (keys & logged), name
    state = Path(config.output_dir) / "checkpoint-2" / "retry_buffer.json"
    if switches["bdr"]:
        assert len(trainer.retry_buffer) >= 1  # task t0 fails in every rollout
        saved = RetryBuffer(1)
        saved.load_state_dict(json.loads(state.read_text()))
        assert list(saved) == list(trainer.retry_buffer)
    else:
        assert len(trainer.retry_buffer) == 0 and not state.exists()


def test_training_batch_holds_the_first_turn_only(make_rl_config, tiny_model, tokenizer, prompts):
    trainer = make_trainer(make_rl_config(bdr=False), tiny_model, tokenizer, prompts)
    trainer.model.train()
    rows = [dict(prompts[i]) for i in range(2) for _ in range(G)]
    out = trainer._generate_and_score_completions(rows)
    episodes = trainer.episodes
    assert any(len(e.turns) == 2 for e in episodes)  # t0 failed, so it got a second turn
    for i, episode in enumerate(episodes):
        ids = out["completion_ids"][i][out["completion_mask"][i].bool()]
        assert tokenizer.decode(ids, skip_special_tokens=True) == episode.first.completion
    rewards = torch.tensor([e.reward(trainer.primeecho_params()) for e in episodes]).view(-1, G)
    centred = (rewards - rewards.mean(1, keepdim=True)).flatten()
    assert torch.allclose(out["advantages"] * (centred.abs() > 0), out["advantages"])  # zero where R is flat
    assert torch.equal(torch.sign(out["advantages"]), torch.sign(centred))  # advantages follow R, not s_1


def test_bdr_replays_buffered_prompts_and_buffers_failed_groups(
    make_rl_config, tiny_model, tokenizer, prompts
):
    config = make_rl_config(primeecho=False, bdr_max_replays=1)  # a replay that fails is not buffered again
    trainer = make_trainer(config, tiny_model, tokenizer, prompts)
    trainer.model.train()
    buffered = RetryEntry(
        row={"task_id": "t3"},
        prompt=tuple(prompts[3]["prompt"]),
        answer="```python\nbroken\n```",
        feedback="The harness reported: mismatch. Fix it.",
        status="incorrect",
    )
    trainer.retry_buffer.push(buffered)
    rows = [dict(prompts[i]) for i in (1, 0) for _ in range(G)]
    trainer._generate_and_score_completions(rows)
    replayed = trainer.episodes[:G]  # the first group took the buffered entry (p = 1)
    assert all(e.prompt == repair_prompt(buffered) and e.row["task_id"] == "t3" for e in replayed)
    assert [e.row["task_id"] for e in trainer.episodes[G:]] == ["t0"] * G
    assert [e.row["task_id"] for e in trainer.retry_buffer] == ["t0"]  # t0's group failed everywhere
    entry = next(iter(trainer.retry_buffer))
    assert entry.feedback == "Wrong at turn 1. Fix it." and entry.prompt == tuple(prompts[0]["prompt"])


def test_mirrorpop_cuts_the_gradient_of_drifted_sequences(make_rl_config, tiny_model, tokenizer, prompts):
    trainer = make_trainer(make_rl_config(), tiny_model, tokenizer, prompts)
    ids = torch.tensor([[5, 6, 7, 8, 9, 10], [5, 6, 7, 11, 12, 13]])
    mask = torch.ones(2, 3, dtype=torch.long)
    with torch.no_grad():
        logps, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, torch.ones_like(ids), 3)
    old = logps.clone()
    old[1] += torch.tensor([2.0, -2.0, 2.0])  # a large drift that cancels in the signed mean
    trainer._loss_inputs = {"completion_mask": mask, "old_per_token_logps": old}
    current, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, torch.ones_like(ids), 3)
    trainer._loss_inputs = None
    current[1].sum().backward()
    assert all(p.grad is None or p.grad.abs().sum() == 0 for p in trainer.model.parameters())
    current, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, torch.ones_like(ids), 3)
    current[1].sum().backward()  # outside compute_loss nothing is masked
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in trainer.model.parameters())
    assert trainer._metrics["train"]["mirrorpop/masked_fraction"] == [0.5]


def test_prompts_from_a_suite_and_from_a_prompts_dataset(data_dir, tmp_path):
    base = dict(output_dir=str(tmp_path), use_cpu=True, bf16=False, report_to="none")
    config = KernelRLConfig(verifier_cache_dir=str(tmp_path / "cache"), **base)
    data, tasks = load_rl_prompts(
        RLScriptArguments(suite=str(data_dir / "suite"), suite_tasks=["scale_*"]), config
    )
    assert data["task_id"] == ["level1/scale_shift"] and set(tasks) == {"level1/scale_shift"}
    assert data[0]["prompt"][0]["role"] == "system" and "x * 2.0 + 1.0" in data[0]["prompt"][1]["content"]

    source = (data_dir / "suite" / "level1" / "scale_shift.py").read_text()
    rows = tmp_path / "rl.jsonl"
    messages = [{"role": "system", "content": "Be fast."}, {"role": "user", "content": "Write y = 2x + 1."}]
    rows.write_text(
        json.dumps({"task_id": "gen/affine_7", "task_code": source, "messages": messages})
        + "\n"
        + json.dumps({"task_id": "gen/affine_8", "task_code": source, "messages": None})
        + "\n"
    )
    from_rows = RLScriptArguments(dataset_name=str(rows))
    data, tasks = load_rl_prompts(from_rows, config)
    assert tasks["gen/affine_7"].path.read_text() == source and tasks["gen/affine_7"].level == 1
    assert data[0]["prompt"] == messages  # the builder's prompt, as verified
    assert "x * 2.0 + 1.0" in data[1]["prompt"][1]["content"]  # rendered from the task when absent
    with pytest.raises(ValueError, match="suite .* or dataset_name"):
        load_rl_prompts(RLScriptArguments(), config)
    rows.write_text(json.dumps({"task_id": "x", "messages": messages}) + "\n")
    with pytest.raises(ValueError, match="task_code"):
        load_rl_prompts(from_rows, config)


def test_cli_trains_and_saves_a_loadable_model(model_dir, data_dir, tmp_path, monkeypatch):
    import yaml
    from transformers import AutoModelForCausalLM

    monkeypatch.setattr("trainers.rl.verifier_rewards", lambda config, tasks, model: FunctionRewards(judge))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        yaml.safe_dump(
            dict(
                model_name_or_path=str(model_dir),
                suite=str(data_dir / "suite"),
                output_dir=str(tmp_path / "out"),
                use_cpu=True,
                bf16=False,
                gradient_checkpointing=False,
                report_to="none",
                save_strategy="no",
                per_device_train_batch_size=4,
                num_generations=4,
                max_completion_length=6,
                max_steps=1,
                primeecho_turns=2,
                disable_tqdm=True,
            )
        )
    )
    out = main(["--config", str(recipe)])
    assert (out / "rl_config.yaml").exists()
    assert AutoModelForCausalLM.from_pretrained(out).config.use_cache


def test_verifier_settings_come_from_the_config(data_dir, tmp_path):
    from trainers.rl import verifier_rewards

    config = KernelRLConfig(
        output_dir=str(tmp_path),
        use_cpu=True,
        bf16=False,
        report_to="none",
        verifier_trials=2,
        verifier_build_workers=1,
        reward_lam=0.25,
        verifier_cache_dir=str(tmp_path / "cache"),
    )
    _, tasks = load_rl_prompts(RLScriptArguments(suite=str(data_dir / "suite")), config)
    source = verifier_rewards(config, tasks)
    try:
        cfg = source.verifier.config
        assert cfg.eval.device == ("cuda" if torch.cuda.is_available() else "cpu")
        assert (cfg.eval.trials, cfg.eval.strict, cfg.build_workers, cfg.reward.lam) == (2, True, 1, 0.25)
        assert cfg.eval.cache_dir == tmp_path / "cache" and set(source.tasks) == set(tasks)
    finally:
        source.close()


@pytest.mark.slow
def test_two_processes_under_accelerate_launch(model_dir, tmp_path):
    """Two CPU processes (gloo): BDR's gathered buffer and replay plan, PrimeEcho's padded collective
    generation and the real verifier (the random model's answers hold no code) all run through."""
    import os
    import shutil
    import subprocess
    import sys

    recipe = Path(__file__).parents[2] / "configs" / "rl" / "smoke.yaml"
    out = tmp_path / "out"
    launcher = shutil.which("accelerate", path=str(Path(sys.executable).parent)) or "accelerate"
    cmd = [
        launcher,
        "launch",
        "--cpu",
        "--num_processes",
        "2",
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "-m",
        "trainers.rl",
        "--config",
        str(recipe),
        "--model_name_or_path",
        str(model_dir),
        "--use_cpu",
        "true",
        "--bf16",
        "false",
        "--max_completion_length",
        "12",
        "--max_steps",
        "4",
        "--bdr_replay_prob",
        "1.0",
        "--output_dir",
        str(out),
        "--verifier_cache_dir",
        str(tmp_path / "cache"),
        "--disable_tqdm",
        "true",
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=900, env=env, cwd=Path(__file__).parents[2]
    )
    assert done.returncode == 0, done.stderr[-3000:]
    history = json.loads((out / "trainer_state.json").read_text())["log_history"]
    assert any(e.get("bdr/replayed_groups", 0) > 0 for e in history)
    assert any(e.get("primeecho/stage") == 2.0 for e in history)
    assert (out / "model.safetensors").exists()


def test_the_ray_backend_uses_the_projects_ray_verifier(data_dir, tmp_path, monkeypatch):
    import benchmark.verify.ray_executor
    from trainers.rl import verifier_rewards

    made = {}

    class FakeRayVerifier:
        def __init__(self, config, address=None):
            made.update(config=config, address=address)
            self.config = config

        def close(self):
            made["closed"] = True

    monkeypatch.setattr(benchmark.verify.ray_executor, "RayVerifier", FakeRayVerifier)
    config = KernelRLConfig(
        output_dir=str(tmp_path),
        use_cpu=True,
        bf16=False,
        report_to="none",
        verifier_backend="ray",
        ray_address="auto",
        verifier_trials=2,
    )
    _, tasks = load_rl_prompts(RLScriptArguments(suite=str(data_dir / "suite")), config)
    source = verifier_rewards(config, tasks)
    assert isinstance(source.verifier, FakeRayVerifier)
    assert made["address"] == "auto" and made["config"].eval.trials == 2
    source.close()
    assert made["closed"]
