"""Fixtures for the trainer tests: a byte-level tokenizer and a tiny random Qwen2 model built in
code (experiments/synthetic.py, which the demos and the smoke recipe's inputs use too), a small kernel
chat corpus, and CPU-friendly trainer configs."""

from __future__ import annotations

import pytest

from experiments.synthetic import build_model, build_tokenizer, kernel_corpus, save_model_folder

TINY = dict(initializer_range=0.1)  # larger than the 0.02 default, so that LoRA alone can move the loss


@pytest.fixture(scope="session")
def corpus() -> list[dict]:
    return kernel_corpus(16, seed=0, compact=True)


@pytest.fixture(scope="session")
def tokenizer():
    texts = [turn["content"] for row in kernel_corpus(48, seed=1, compact=True) for turn in row["messages"]]
    return build_tokenizer(vocab_size=1024, corpus=texts)


@pytest.fixture
def tiny_model(tokenizer):
    return build_model(len(tokenizer), seed=0, **TINY)


@pytest.fixture
def dataset(corpus):
    from datasets import Dataset

    return Dataset.from_list(corpus)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory, tokenizer):
    """A saved tiny model folder, as `model_name_or_path` would name it."""
    return save_model_folder(
        build_model(len(tokenizer), seed=0, **TINY), tokenizer, tmp_path_factory.mktemp("tiny-qwen2")
    )


@pytest.fixture
def make_config(tmp_path):
    """A KernelSFTConfig for fast CPU runs; keyword arguments override any field."""
    from trainers.sft_config import KernelSFTConfig

    def make(**overrides):
        values = dict(
            output_dir=str(tmp_path / "out"),
            use_cpu=True,
            bf16=False,
            gradient_checkpointing=False,
            report_to="none",
            logging_steps=1,
            save_strategy="no",
            max_length=256,  # keeps the prompt and the kernel's head: short CPU steps
            per_device_train_batch_size=4,
            learning_rate=3e-3,
            lr_scheduler_type="constant",
            max_steps=10,
            seed=0,
            disable_tqdm=True,
            dataloader_num_workers=0,
        )
        values.update(overrides)
        return KernelSFTConfig(**values)

    return make
