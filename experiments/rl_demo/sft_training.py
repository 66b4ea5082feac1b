"""SFT of the demonstration's policy: a small Qwen2-style model trained from scratch (no pretrained
weights can be downloaded here) by the project's SFT trainer on the family's corpus, reproducibly, so
that one recipe and seed make one model, which `weights_digest` shows across machines."""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
from pathlib import Path

import torch

from experiments.rl_demo import budget
from experiments.rl_demo.records import SFTRun
from experiments.rl_demo.state import Settings
from experiments.synthetic import build_model, save_model_folder
from trainers.model import save_final_model
from trainers.sft import KernelSFTTrainer
from trainers.sft_config import KernelSFTConfig


@contextlib.contextmanager
def reproducible_training():
    """Training in which one recipe and seed make the same model bit for bit on one GPU model and
    software stack. Without it they did not (one seed passed 94%, 19% and 9% of the test split in three
    H200 runs), so the arms of calls on fresh machines never started from one model. Ops that have
    only a nondeterministic CUDA kernel warn rather than fail (torch lists NLLLoss, whose reduction
    here runs in one block); attention runs in the math kernel, since the flash and memory-efficient
    backward kernels are deterministic only in the strict mode. cuBLAS reads its workspace setting
    when the process makes its handle, at its first matmul on the GPU: this process's is in training."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    before = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        with sdpa_kernel(SDPBackend.MATH):
            yield
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])


def weights_digest(model_dir: Path) -> str:
    """A hash of the model's tensors (name, dtype, shape and bytes, in name order): two trainings made
    one model where their digests agree, which is how calls on different machines show that their
    arms started from the same SFT model."""
    from safetensors import safe_open

    h = hashlib.sha256()
    for path in sorted(Path(model_dir).glob("*.safetensors")):
        with safe_open(str(path), framework="pt") as f:
            for name in sorted(f.keys()):
                t = f.get_tensor(name).contiguous()
                h.update(f"{name}:{t.dtype}:{tuple(t.shape)}".encode())
                h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:16]


def train_sft(
    settings: Settings,
    tokenizer,
    corpus: list[dict],
    overrides: dict | None = None,
    folder: str = "sft",
    deadline=None,
    seed: int | None = None,
) -> SFTRun:
    """SFT from the seeded init; `overrides` are KernelSFTConfig fields (an SFT arm's CuSeT switches),
    so arms differ in them alone. `seed` (default settings.seed) seeds the init and the trainer (its data
    order) alone: the corpus is the caller's. A deadline stops training there (`Deadline`)."""
    from datasets import Dataset

    seed = settings.seed if seed is None else seed
    init_dir = save_model_folder(
        build_model(len(tokenizer), seed=seed, **settings.model_shape),
        tokenizer,
        settings.out / "init" / f"seed-{seed}",
    )
    config = KernelSFTConfig(
        output_dir=str(settings.out / folder),
        use_cpu=settings.tiny,
        bf16=settings.on_gpu,
        gradient_checkpointing=False,
        report_to="none",
        logging_steps=max(1, settings.sft_steps // 10),
        save_strategy="no",
        disable_tqdm=True,
        max_length=4096,
        per_device_train_batch_size=settings.sft_batch,
        learning_rate=settings.sft_lr,
        lr_scheduler_type="cosine",
        warmup_steps=max(1, settings.sft_steps // 20),
        max_steps=settings.sft_steps,
        seed=seed,
        dataloader_num_workers=0,
        **(overrides or {}),
    )
    stop = budget.Deadline(math.inf if deadline is None else deadline)
    trainer = KernelSFTTrainer(
        model=str(init_dir),
        args=config,
        train_dataset=Dataset.from_list(corpus),
        processing_class=tokenizer,
        callbacks=[stop],
    )
    start = budget.now()
    with reproducible_training():
        trainer.train()
    seconds = round(budget.now() - start, 1)
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    nll = [e["cuset/nll"] for e in trainer.state.log_history if "cuset/nll" in e]
    model_dir = save_final_model(trainer)
    return SFTRun(
        model_dir=model_dir,
        steps=trainer.state.global_step,
        loss_first=losses[0],
        loss_last=losses[-1],
        nll_last=nll[-1] if nll else None,
        seconds=seconds,
        stopped_by_deadline=stop.hit,
        weights=weights_digest(model_dir),
    )
