"""Kernel SFT on TRL: final-assistant-turn loss, optional CuSeT weighting, LoRA or full fine-tuning.

Launch:

    python -m trainers.sft --config configs/sft/qwen3.5-9b.yaml [--field value ...]
    accelerate launch --config_file configs/sft/accelerate/fsdp.yaml -m trainers.sft --config ...

`KernelSFTTrainer` subclasses `trl.SFTTrainer`. It tokenizes the schema dataset itself
(`trainers.data`: labels on the final assistant turn, a per-token sensitivity mask) and overrides
`compute_loss`: with `cuset: true` the loss is sum_t w_t * nll_t / N, where w_t comes from
`trainers.cuset` using the gold-token confidences of this very forward pass (TRL's fused LM head
returns per-token log-probs without building the logits) and N is the number of label tokens in the
whole optimizer batch (`num_items_in_batch`, across micro-batches and devices). Normalizing by that
global count, and freezing the sample-weight normalizer within an optimizer step, makes gradient
accumulation exact: two micro-batches of 2 give the loss and gradients of one batch of 4.

After training the model is saved to `output_dir` with its tokenizer and chat template (LoRA
adapters merged by default), so `benchmark.run --model hf:OUTPUT_DIR` can load it.
"""

from __future__ import annotations

import logging
from dataclasses import fields
from pathlib import Path
from typing import Any

import torch
from trl import SFTTrainer, get_peft_config, get_quantization_config
from trl.trainer.sft_trainer import DataCollatorForLanguageModeling
from trl.trainer.utils import pad

from trainers.cli import KernelParser, run_command
from trainers.cuset import RunningNormalizer, compute_token_weights, weight_stats
from trainers.data import load_sft_dataset, tokenize_dataset
from trainers.model import KernelModelConfig, model_init_kwargs, save_final_model
from trainers.sft_config import KernelSFTConfig, SFTScriptArguments

logger = logging.getLogger(__name__)


class KernelDataCollator(DataCollatorForLanguageModeling):
    """TRL's language-modeling collator, also padding the `sensitive` mask like the labels."""

    def torch_call(self, examples: list[dict[str, Any]]) -> dict[str, Any]:
        output = super().torch_call(examples)
        if "sensitive" in examples[0]:
            masks = [torch.tensor(example["sensitive"], dtype=torch.bool) for example in examples]
            output["sensitive"] = pad(
                masks, padding_value=False, padding_side="right", pad_to_multiple_of=self.pad_to_multiple_of
            )
        return output


class KernelSFTTrainer(SFTTrainer):
    """SFT trainer for kernel data: own tokenization and masks, CuSeT-weighted loss when enabled."""

    _tag_names = ["trl", "sft", "solbench"]
    recipe_file = "sft_config.yaml"  # the resolved recipe, beside the saved model

    def __init__(
        self,
        model,
        args: KernelSFTConfig,
        train_dataset,
        eval_dataset=None,
        processing_class=None,
        peft_config=None,
        **kwargs,
    ):
        if not isinstance(args, KernelSFTConfig):
            raise TypeError(f"args must be a KernelSFTConfig, got {type(args).__name__}")
        tokenizer = processing_class
        if tokenizer is None:
            from transformers import AutoTokenizer

            source = args.tokenizer_name_or_path or (model if isinstance(model, str) else model.name_or_path)
            tokenizer = AutoTokenizer.from_pretrained(source)
        if args.chat_template_path is not None:
            tokenizer.chat_template = Path(args.chat_template_path).read_text()
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError(
                "the tokenizer has no chat template; use a chat model's tokenizer, set tokenizer_name_or_path, "
                "or set chat_template_path to a .jinja file"
            )
        options = args.tokenize_options()
        with args.main_process_first(desc="tokenizing the SFT data"):
            train_dataset = self._tokenized(train_dataset, tokenizer, options, args, "train")
            if eval_dataset is not None:
                eval_dataset = self._tokenized(eval_dataset, tokenizer, options, args, "eval")
        args.dataset_kwargs = {**(args.dataset_kwargs or {}), "skip_prepare_dataset": True}
        super().__init__(
            model=model,
            args=args,
            train_dataset=train_dataset,
            eval_dataset=eval_dataset,
            processing_class=tokenizer,
            peft_config=peft_config,
            **kwargs,
        )
        collator = self.data_collator
        if type(collator) is DataCollatorForLanguageModeling:
            self.data_collator = KernelDataCollator(
                **{f.name: getattr(collator, f.name) for f in fields(collator)}
            )
        self.cuset_params = args.cuset_params()
        self._normalizer = RunningNormalizer(self.cuset_params.sample_norm_momentum)
        if args.cuset:
            parallelism = self.accelerator.parallelism_config
            if parallelism is not None and (parallelism.cp_enabled or parallelism.sp_enabled):
                raise ValueError(
                    "cuset needs whole sequences on each rank; turn off context/sequence parallelism or set cuset: false"
                )

    @staticmethod
    def _tokenized(dataset, tokenizer, options, args: KernelSFTConfig, name: str):
        if "input_ids" in dataset.column_names:
            missing = {"labels", "sensitive"} - set(dataset.column_names)
            if missing:
                raise ValueError(f"{name}: a pre-tokenized dataset needs columns {sorted(missing)} as well")
            return dataset
        return tokenize_dataset(dataset, tokenizer, options, num_proc=args.dataset_num_proc, name=name)

    def _set_signature_columns_if_needed(self):
        super()._set_signature_columns_if_needed()
        if "sensitive" not in self._signature_columns:
            self._signature_columns = [*self._signature_columns, "sensitive"]

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        sensitive = inputs.pop("sensitive", None)
        if not self.args.cuset or not self.model.training or return_outputs or sensitive is None:
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        return self._cuset_loss(model, inputs, sensitive, num_items_in_batch)

    def _cuset_loss(self, model, inputs, sensitive, num_items_in_batch):
        """TRL's fused-head NLL with CuSeT weights; the same normalization, so accumulation stays exact."""
        inputs["use_cache"] = False
        if self.aux_loss_enabled:
            inputs["output_router_logits"] = True
        outputs = model(**inputs, fused_lm_head=True)
        log_probs, label_mask = outputs.log_probs, outputs.label_mask
        normalizer = self._normalizer.value()
        tw = compute_token_weights(
            log_probs, label_mask, sensitive[:, 1:], self.cuset_params, normalizer=normalizer
        )
        num_tokens = label_mask.sum() if num_items_in_batch is None else num_items_in_batch
        weights = tw.weights.view_as(log_probs).to(log_probs.dtype)
        loss = -(weights * log_probs).sum() / torch.as_tensor(num_tokens).clamp(min=1)
        if self.args.average_tokens_across_devices and num_items_in_batch is not None:
            loss = loss * (self.accelerator.num_processes // self.get_tp_size())
        if self.aux_loss_enabled:
            steps = self.current_gradient_accumulation_steps if num_items_in_batch is not None else 1
            loss = loss + self.router_aux_loss_coef * outputs.aux_loss / steps
        if self.cuset_params.sample_reweighting and self.cuset_params.sample_norm == "running":
            self._normalizer.observe(tw.sample_raw, tw.sample_has_labels)
            if self.accelerator.sync_gradients:
                self._normalizer.end_step(lambda t: self.accelerator.reduce(t, reduction="sum"))
        self._record_metrics(outputs, inputs, tw, normalizer)
        return loss

    def _record_metrics(self, outputs, inputs, tw, normalizer: float) -> None:
        """TRL's training metrics plus the CuSeT weight statistics, fetched in one device sync.

        `cuset/nll` is the unweighted per-token loss, comparable with a plain run's `loss`.
        """
        stats = weight_stats(tw)
        stats["nll"] = -outputs.log_probs.detach().float().sum() / outputs.label_mask.sum().clamp(min=1)
        label_sum = outputs.label_mask.sum().float()
        tokens = inputs["attention_mask"].sum()
        local = torch.stack(
            [
                label_sum,
                outputs.entropy.detach().float().sum(),
                outputs.is_top1.float().sum(),
                tokens.float(),
                *[value.to(label_sum.device).float() for value in stats.values()],
            ]
        )
        gathered = self.accelerator.gather_for_metrics(local.unsqueeze(0)).reshape(-1, local.numel())
        totals = gathered.sum(0).tolist()
        means = gathered.mean(0).tolist()
        n_valid, entropy, correct, n_tokens = totals[:4]
        metrics = self._metrics["train"]
        metrics["entropy"].append(entropy / n_valid if n_valid > 0 else 0.0)
        metrics["mean_token_accuracy"].append(correct / n_valid if n_valid > 0 else 0.0)
        self._total_train_tokens += int(n_tokens) // self._tp_size
        metrics["num_tokens"] = [self._total_train_tokens]
        for key, value in zip(stats, means[4:], strict=True):
            metrics[f"cuset/{key}"].append(value)
        metrics["cuset/sample_norm"].append(normalizer)


def train_sft(
    script_args: SFTScriptArguments, config: KernelSFTConfig, model_args: KernelModelConfig
) -> Path:
    """Load the data and the base model these configs name, train, and save the final model."""
    if not model_args.model_name_or_path:
        raise ValueError("set model_name_or_path (a Hub id or a local model folder)")
    if not script_args.dataset_name:
        raise ValueError("set dataset_name (a Hub id, a .parquet/.jsonl file or a save_to_disk folder)")
    name, subset = script_args.dataset_name, script_args.dataset_config
    train = load_sft_dataset(name, script_args.dataset_train_split, subset)
    if script_args.max_train_samples is not None:
        train = train.select(range(min(script_args.max_train_samples, len(train))))
    evaluation = None
    if config.eval_strategy != "no":
        source = script_args.eval_dataset_name or name
        evaluation = load_sft_dataset(source, script_args.dataset_test_split, subset)
    explicit = config.model_init_kwargs
    config.model_init_kwargs = model_init_kwargs(model_args, explicit)
    trainer = KernelSFTTrainer(
        model=model_args.model_name_or_path,
        args=config,
        train_dataset=train,
        eval_dataset=evaluation,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
    )
    config.model_init_kwargs = explicit  # the model is loaded; the saved recipe keeps what was written
    trainer.train(resume_from_checkpoint=config.resume_from_checkpoint)
    trainer.save_state()
    return save_final_model(trainer, model_args=model_args, script_args=script_args)


COMMON = (
    "model_name_or_path",
    "dtype",
    "use_peft",
    "lora_r",
    "dataset_name",
    "output_dir",
    "max_length",
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "learning_rate",
    "max_steps",
)


def parser() -> KernelParser:
    """The command line: TRL's script arguments, this trainer's config and TRL's model config."""
    return KernelParser(
        (SFTScriptArguments, KernelSFTConfig, KernelModelConfig),
        prog="python -m trainers.sft",
        description=__doc__.split("\n\n")[0],
        common=COMMON,
    )


def main(argv: list[str] | None = None) -> Path:
    return run_command(parser(), train_sft, argv)


if __name__ == "__main__":
    main()
