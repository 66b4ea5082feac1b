"""End-to-end tests of the kernel SFT trainer on a tiny random model (CPU, offline)."""

from __future__ import annotations

import json

import pytest
import torch

from trainers.model import save_final_model
from trainers.sft import KernelDataCollator, KernelSFTTrainer, main


def _snapshot(model) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def _losses(trainer) -> list[float]:
    return [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]


def _changed(before, model) -> set[str]:
    return {name for name, p in model.named_parameters() if not torch.equal(before[name], p.detach())}


def test_full_finetune_with_cuset_learns_and_saves_a_loadable_model(
    tiny_model, tokenizer, dataset, make_config, tmp_path
):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    before = _snapshot(tiny_model)
    trainer = KernelSFTTrainer(
        model=tiny_model, args=make_config(cuset=True), train_dataset=dataset, processing_class=tokenizer
    )
    trainer.train()

    losses = _losses(trainer)
    assert len(losses) == 10
    assert sum(losses[-3:]) / 3 < 0.85 * sum(losses[:3]) / 3, losses
    assert _changed(before, trainer.model) == set(before), "every weight should move in full fine-tuning"
    logged = trainer.state.log_history[0]
    for key in (
        "cuset/masked_frac",
        "cuset/sensitive_frac",
        "cuset/region_count",
        "cuset/sample_weight_mean",
    ):
        assert key in logged, sorted(logged)
    assert 0.0 < logged["cuset/sensitive_frac"] < 1.0

    out = save_final_model(trainer, tmp_path / "final")
    loaded = AutoModelForCausalLM.from_pretrained(out)
    loaded_tokenizer = AutoTokenizer.from_pretrained(out)
    assert loaded.config.use_cache is True
    assert loaded_tokenizer.chat_template
    for name, p in loaded.named_parameters():
        assert torch.allclose(p, dict(trainer.model.named_parameters())[name].detach()), name
    assert (out / "sft_config.yaml").exists()
    _generate_with_the_benchmark_backend(out, tmp_path)


TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
"""


def _generate_with_the_benchmark_backend(model_dir, tmp_path):
    """What `benchmark.run --model hf:MODEL_DIR` does first: load the folder and generate."""
    from benchmark.models import GenerationRequest, get_backend
    from benchmark.models.base import BackendOptions, SamplingParams
    from benchmark.task import load_task

    task_file = tmp_path / "suite" / "level1" / "double.py"
    task_file.parent.mkdir(parents=True)
    task_file.write_text(TASK)
    task = load_task(task_file, root=tmp_path / "suite")
    options = BackendOptions(device="cpu", cache=False, cache_dir=tmp_path / "cache")
    backend = get_backend(f"hf:{model_dir}", SamplingParams(max_tokens=4), options)
    request = GenerationRequest(task, 0, messages=({"role": "user", "content": "Write a CUDA kernel."},))
    (completion,) = list(backend.generate([request]))
    assert completion.error is None
    assert 1 <= completion.completion_tokens <= 4


def test_lora_trains_adapters_only_and_merges_on_save(tiny_model, tokenizer, dataset, make_config, tmp_path):
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM

    base = _snapshot(tiny_model)
    trainer = KernelSFTTrainer(
        model=tiny_model,
        args=make_config(learning_rate=1e-2),
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", task_type="CAUSAL_LM"),
    )
    before = _snapshot(trainer.model)
    trainer.train()

    losses = _losses(trainer)
    assert sum(losses[-3:]) / 3 < 0.9 * sum(losses[:3]) / 3, losses
    changed = _changed(before, trainer.model)
    assert changed and all("lora_" in name for name in changed), changed
    assert any("lora_A" in name for name in changed) and any("lora_B" in name for name in changed)

    out = save_final_model(trainer, tmp_path / "merged")
    assert not (out / "adapter_config.json").exists()
    merged = AutoModelForCausalLM.from_pretrained(out)
    names = dict(merged.named_parameters())
    assert not any("lora" in name for name in names)
    q_proj = "model.layers.0.self_attn.q_proj.weight"
    assert not torch.allclose(names[q_proj], base[q_proj]), "merging should fold the trained adapter in"


def _sgd_steps(tokenizer, corpus, make_config, steps, **overrides):
    """Parameter change, losses and first log of plain SGD steps (lr 1, so one step's change is -grad)."""
    from datasets import Dataset

    from experiments.synthetic import build_model

    model = build_model(len(tokenizer), seed=0, initializer_range=0.1)
    before = _snapshot(model)
    args = make_config(
        max_steps=steps,
        optim="sgd",
        learning_rate=1.0,
        max_grad_norm=0.0,
        lr_scheduler_type="constant",
        **overrides,
    )
    trainer = KernelSFTTrainer(
        model=model, args=args, train_dataset=Dataset.from_list(corpus[:4]), processing_class=tokenizer
    )
    trainer.train()
    delta = {name: p.detach() - before[name] for name, p in trainer.model.named_parameters()}
    return delta, _losses(trainer), trainer.state.log_history[0]


# With these thresholds a random model's confidences (median ~1e-3) give masked tokens, plain and
# sensitive regions and unequal sample weights, so every CuSeT term is in play.
CUSET_ON_RANDOM_MODEL = {"cuset": True, "cuset_mask_threshold": 0.002, "cuset_region_threshold": 0.001}


@pytest.mark.parametrize("cuset", [{}, CUSET_ON_RANDOM_MODEL], ids=["plain", "cuset"])
def test_gradient_accumulation_equals_a_twice_larger_batch(tokenizer, corpus, make_config, cuset):
    # Two optimizer steps, so the second one also runs with the running sample-weight normalizer.
    big, big_losses, log = _sgd_steps(
        tokenizer, corpus, make_config, 2, per_device_train_batch_size=4, **cuset
    )
    acc, acc_losses, _ = _sgd_steps(
        tokenizer,
        corpus,
        make_config,
        2,
        per_device_train_batch_size=2,
        gradient_accumulation_steps=2,
        **cuset,
    )
    assert acc_losses == pytest.approx(big_losses, rel=1e-4)
    assert any(d.abs().max() > 0 for d in big.values())
    for name in big:
        torch.testing.assert_close(acc[name], big[name], rtol=1e-3, atol=1e-5, msg=name)
    if cuset:
        assert log["cuset/masked_frac"] > 0.05
        assert 0.0 < log["cuset/sensitive_region_frac"] < log["cuset/region_frac"] < 0.95
        assert log["cuset/sample_weight_max"] > log["cuset/sample_weight_mean"]


def test_cli_trains_from_a_yaml_config_and_a_jsonl_file(model_dir, corpus, tmp_path):
    import yaml
    from transformers import AutoModelForCausalLM, AutoTokenizer

    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in corpus[:8]))
    config = tmp_path / "sft.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "model_name_or_path": str(model_dir),
                "dataset_name": str(data),
                "output_dir": str(tmp_path / "run"),
                "use_cpu": True,
                "bf16": False,
                "gradient_checkpointing": False,
                "report_to": "none",
                "save_strategy": "no",
                "per_device_train_batch_size": 4,
                "learning_rate": 1e-3,
                "cuset": True,
                "disable_tqdm": True,
            }
        )
    )
    out = main(["--config", str(config), "--max_steps", "2", "--logging_steps", "1"])
    assert out == tmp_path / "run"
    model = AutoModelForCausalLM.from_pretrained(out)
    base = AutoModelForCausalLM.from_pretrained(model_dir)
    assert AutoTokenizer.from_pretrained(out).chat_template
    assert any(not torch.equal(p, q) for p, q in zip(model.parameters(), base.parameters(), strict=True))
    state = json.loads((out / "trainer_state.json").read_text())
    assert state["global_step"] == 2


def test_trainer_rejects_data_without_messages_or_assistant_turn(tiny_model, tokenizer, make_config):
    from datasets import Dataset

    no_messages = Dataset.from_list([{"prompt": "x", "completion": "y"}])
    with pytest.raises(ValueError, match="no 'messages' column"):
        KernelSFTTrainer(tiny_model, make_config(), train_dataset=no_messages, processing_class=tokenizer)
    no_answer = Dataset.from_list([{"messages": [{"role": "user", "content": "write a kernel"}]}])
    with pytest.raises(ValueError, match="row 0: no assistant turn"):
        KernelSFTTrainer(tiny_model, make_config(), train_dataset=no_answer, processing_class=tokenizer)


def test_collator_pads_the_sensitivity_mask_like_the_labels():
    examples = [
        {"input_ids": [5, 6, 7], "labels": [-100, 6, 7], "sensitive": [0, 1, 0]},
        {"input_ids": [8, 9], "labels": [-100, 9], "sensitive": [0, 1]},
    ]
    batch = KernelDataCollator(pad_token_id=0)(examples)
    assert batch["sensitive"].tolist() == [[False, True, False], [False, True, False]]
    assert batch["labels"].tolist() == [[-100, 6, 7], [-100, 9, -100]]


def test_chat_template_file_applies_before_tokenizing(tiny_model, tokenizer, dataset, make_config, tmp_path):
    import copy

    template = tmp_path / "plain.jinja"
    template.write_text(
        "{% for m in messages %}### {{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}### assistant\n{% endif %}"
    )
    own = copy.deepcopy(tokenizer)
    own.chat_template = None
    trainer = KernelSFTTrainer(
        tiny_model, make_config(chat_template_path=str(template)), train_dataset=dataset, processing_class=own
    )
    row = trainer.train_dataset[0]
    assert own.decode(row["input_ids"]).startswith("### user\n")
    first_label = next(i for i, label in enumerate(row["labels"]) if label != -100)
    assert own.decode(row["input_ids"][:first_label]).endswith("### assistant\n")
