"""The evaluation of a policy on one split of the family: sampled answers to every task's first-turn
prompt, scored by the reward source, reported as the benchmark's figures (experiments.rl_demo.metrics)
with every sample's [passed, speedup] kept by task, which the paired intervals resample."""

from __future__ import annotations

from pathlib import Path

import torch

from experiments.rl_demo.family import read_answer
from experiments.rl_demo.metrics import split_metrics
from experiments.rl_demo.state import Run, Settings


def generate(
    model, tokenizer, prompts: list[list[dict]], n: int, temperature: float, max_new: int, seed: int
):
    """n sampled completions per prompt with HF generate (left padding), grouped per prompt."""
    tokenizer.padding_side = "left"
    device = next(model.parameters()).device
    texts = [tokenizer.apply_chat_template(p, tokenize=False, add_generation_prompt=True) for p in prompts]
    torch.manual_seed(seed)
    model.eval()
    out = []
    per_batch = max(1, 64 // n)
    with torch.no_grad():
        for start in range(0, len(texts), per_batch):
            enc = tokenizer(
                texts[start : start + per_batch], return_tensors="pt", padding=True, add_special_tokens=False
            )
            enc = {k: v.to(device) for k, v in enc.items()}
            ids = model.generate(
                **enc,
                do_sample=True,
                temperature=temperature,
                top_p=0.95,
                max_new_tokens=max_new,
                num_return_sequences=n,
                pad_token_id=tokenizer.pad_token_id,
                eos_token_id=tokenizer.eos_token_id,
            )
            decoded = tokenizer.batch_decode(ids[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)
            out += [decoded[i : i + n] for i in range(0, len(decoded), n)]
    return out


def evaluate(model, tokenizer, tasks: dict, builder, source, split: str, settings: Settings) -> dict:
    """Pass rate, speedup (geometric mean over passing samples) and fast_1 on one split, turn 1, and
    the [passed, speedup] of every sample by task ("per_task"), which the paired intervals resample.
    The test split, on which every claim is made, has --test-samples a task; the RL split, which only
    the gate reads, --eval-samples."""
    chosen = [(t, s) for t, s in tasks.values() if t.task_id.startswith(split + "/")]
    prompts = [list(builder.first_turn(t)) for t, _ in chosen]
    samples = settings.test_samples if split == "test" else settings.eval_samples
    completions = generate(
        model, tokenizer, prompts, samples, settings.eval_temperature, settings.max_new, settings.seed
    )
    rows = [{"task_id": t.task_id} for (t, _), group in zip(chosen, completions, strict=True) for _ in group]
    texts = [c for group in completions for c in group]
    scores = source.score(rows, texts, [1] * len(texts))
    per_task: dict[str, list] = {}
    for row, s in zip(rows, scores, strict=True):
        per_task.setdefault(row["task_id"], []).append([s.passed, s.speedup])
    statuses, blocks = {}, {}
    for s in scores:
        statuses[s.status] = statuses.get(s.status, 0) + 1
        launch = read_answer(s.code)[3] if s.passed and s.code else None
        if launch is not None:
            blocks[launch] = blocks.get(launch, 0) + 1
    return {
        **split_metrics(per_task),
        "mean_reward": sum(s.reward for s in scores) / len(scores),
        "statuses": statuses,
        "blocks_of_passing_answers": dict(sorted(blocks.items())),
        "per_task": per_task,
    }


def evaluate_before(run: Run, model_dir: Path) -> dict:
    """The before-RL evaluation of an SFT model: `evaluate` on the RL and the test split."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(model_dir).to("cuda" if run.settings.on_gpu else "cpu")
    return {
        split: evaluate(model, run.tokenizer, run.tasks, run.builder, run.source, split, run.settings)
        for split in ("rl", "test")
    }
