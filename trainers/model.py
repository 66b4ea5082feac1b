"""The model both trainers train: TRL's ModelConfig (plus `merge_lora`), how it loads, how it is saved.

`save_final_model` writes a folder that `from_pretrained` and `benchmark.run --model hf:DIR` load as
a plain model: weights with LoRA adapters merged (unless `merge_lora: false`), config, tokenizer and
chat template, and the resolved recipe, so the run can be replayed with `--config`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trl import ModelConfig

from trainers.cli import save_recipe

logger = logging.getLogger(__name__)


@dataclass
class KernelModelConfig(ModelConfig):
    """TRL's `ModelConfig` (model, dtype, attention, LoRA and quantization fields) plus how to save."""

    # Parameters whose defaults differ from TRL's
    lora_target_modules: list[str] | None = field(
        default_factory=lambda: ["all-linear"],
        metadata={
            "help": "Module names to adapt. Default: every linear layer except the LM head ('all-linear')."
        },
    )

    # Parameters that control saving
    merge_lora: bool = field(
        default=True,
        metadata={
            "help": "Merge the LoRA adapters into the base weights when saving the final model, so that "
            "`benchmark.run --model hf:OUTPUT_DIR` loads a plain model. False keeps the adapter only."
        },
    )

    def __post_init__(self):
        super().__post_init__()
        if self.use_peft and self.lora_r < 1:
            raise ValueError(f"lora_r must be >= 1 with use_peft, got {self.lora_r}")


def model_init_kwargs(model_args: ModelConfig, explicit: dict[str, Any] | None = None) -> dict[str, Any]:
    """`from_pretrained` keyword arguments from `model_args`, as TRL's scripts build them (the
    quantization config goes to the trainer itself); keys of the training config's own
    `model_init_kwargs` (`explicit`) win."""
    kwargs = dict(
        revision=model_args.model_revision,
        attn_implementation=model_args.attn_implementation,
        dtype=model_args.dtype,
    )
    return {**kwargs, **(explicit or {})}


def save_final_model(
    trainer,
    output_dir: str | Path | None = None,
    model_args: KernelModelConfig | None = None,
    script_args: Any = None,
) -> Path:
    """Save the trained model to `output_dir` (default: the trainer's) with its tokenizer and recipe.

    LoRA adapters are merged in memory on a single process; a sharded run saves the adapter to
    OUTPUT_DIR/adapter and the main process merges it into a fresh copy of the base model."""
    from accelerate.utils import is_peft_model

    args = trainer.args
    accelerator = trainer.accelerator
    output_dir = Path(output_dir or args.output_dir)
    model = accelerator.unwrap_model(trainer.model)
    merge = is_peft_model(model) and (model_args is None or model_args.merge_lora)
    if merge and accelerator.num_processes == 1:
        merged = model.merge_and_unload()
        merged.config.use_cache = True
        if accelerator.is_main_process:
            merged.save_pretrained(output_dir)
    elif merge:
        adapter_dir = output_dir / "adapter"
        trainer.save_model(str(adapter_dir))
        accelerator.wait_for_everyone()
        if accelerator.is_main_process:
            loaded = (
                model_init_kwargs(model_args, args.model_init_kwargs)
                if model_args
                else args.model_init_kwargs
            )
            dtype = (loaded or {}).get("dtype", "auto")
            _merge_from_disk(
                model.peft_config["default"].base_model_name_or_path, dtype, adapter_dir, output_dir
            )
    else:
        model.config.use_cache = True  # training turns the KV cache off; generation wants it
        trainer.save_model(str(output_dir))
    if accelerator.is_main_process:
        trainer.processing_class.save_pretrained(output_dir)
        configs = [c for c in (script_args, args, model_args) if c is not None]
        save_recipe(output_dir / trainer.recipe_file, *configs)
    accelerator.wait_for_everyone()
    logger.info("saved the final model to %s", output_dir)
    return output_dir


def _merge_from_disk(base_path: str, dtype: Any, adapter_dir: Path, output_dir: Path) -> None:
    """Merge a sharded run's saved adapter into a fresh copy of the base model (main process, CPU)."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(base_path, dtype=dtype)
    merged = PeftModel.from_pretrained(base, str(adapter_dir)).merge_and_unload()
    merged.config.use_cache = True
    merged.save_pretrained(output_dir)
