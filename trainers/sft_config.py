"""Configuration of the kernel SFT trainer: TRL's SFTConfig plus model, data, LoRA and CuSeT fields.

Every field reads from a YAML recipe (`python -m trainers.sft --config configs/sft/....yaml`) or a
command-line flag of the same name; `save_config_yaml` writes one back (only the fields that differ
from the defaults), so a run's resolved config can be replayed.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import Any

import yaml
from transformers.trainer_pt_utils import AcceleratorConfig
from trl import SFTConfig

from trainers.cuset import SENSITIVE_KINDS, CuSeTParams
from trainers.data import TokenizeOptions


@dataclass
class KernelSFTConfig(SFTConfig):
    r"""Configuration for `trainers.sft.KernelSFTTrainer` (all TRL `SFTConfig` fields apply too).

    Defaults follow MusaCoder's SFT stage where it published them (learning rate 1e-5, one epoch,
    bf16); CuSeT is off by default, so the same config with `cuset: true` is its ablation pair.
    """

    # Parameters that control the model
    model_name_or_path: str | None = field(
        default=None,
        metadata={"help": "Base model: a Hub id or a local folder with config, weights and tokenizer."},
    )
    tokenizer_name_or_path: str | None = field(
        default=None,
        metadata={"help": "Tokenizer to use when it is not the model's own. It must carry a chat template."},
    )

    # Parameters that control the data
    dataset_name: str | None = field(
        default=None,
        metadata={
            "help": "Training data in the SFT schema (see trainers/README.md): a Hub id, a .parquet or "
            ".jsonl file, a folder of such files, or a `save_to_disk` folder."
        },
    )
    dataset_config: str | None = field(
        default=None, metadata={"help": "Configuration (subset) name of a Hub dataset."}
    )
    dataset_train_split: str = field(default="train", metadata={"help": "Split to train on."})
    eval_dataset_name: str | None = field(
        default=None,
        metadata={"help": "Evaluation data, in any form `dataset_name` takes. Defaults to `dataset_name`."},
    )
    dataset_eval_split: str | None = field(
        default=None, metadata={"help": "Split to evaluate on. None: no evaluation data."}
    )
    max_train_samples: int | None = field(
        default=None, metadata={"help": "Use only the first N training samples (smoke runs)."}
    )
    overlong: str = field(
        default="truncate",
        metadata={
            "help": "What to do with samples longer than `max_length`: 'truncate' (keep the start, as TRL "
            "does) or 'drop' them.",
            "choices": ["truncate", "drop"],
        },
    )
    chat_template_kwargs: dict[str, Any] | str | None = field(
        default=None,
        metadata={
            "help": "Extra variables for the chat template, e.g. {'enable_thinking': false}. JSON on the CLI."
        },
    )

    # Parameters that control LoRA (PEFT)
    use_peft: bool = field(
        default=False, metadata={"help": "Train LoRA adapters instead of all weights (full fine-tuning)."}
    )
    lora_r: int = field(default=16, metadata={"help": "LoRA rank."})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA scaling numerator (scale = alpha / r)."})
    lora_dropout: float = field(default=0.05, metadata={"help": "Dropout on the LoRA input."})
    lora_target_modules: list[str] | None = field(
        default=None,
        metadata={
            "help": "Module names to adapt. None: every linear layer except the LM head ('all-linear')."
        },
    )
    merge_lora: bool = field(
        default=True,
        metadata={
            "help": "Merge the adapters into the base weights when saving the final model, so that "
            "`benchmark.run --model hf:OUTPUT_DIR` loads a plain model. False keeps the adapter only."
        },
    )

    # Parameters that control CuSeT (token masking and region reweighting; see trainers/cuset.py)
    cuset: bool = field(
        default=False,
        metadata={"help": "Turn CuSeT weighting on. Off: plain SFT on the final assistant turn."},
    )
    cuset_tagger: bool = field(
        default=True,
        metadata={
            "help": "Tag CUDA/Triton-sensitive tokens at tokenization. Off: no token is sensitive, so only "
            "confidence masking and plain regions remain."
        },
    )
    cuset_tag_kinds: list[str] | None = field(
        default=None,
        metadata={"help": f"Restrict the tagger to these kinds (None: all of {', '.join(SENSITIVE_KINDS)})."},
    )
    cuset_token_masking: bool = field(
        default=True,
        metadata={
            "help": "Drop confident tokens that are neither sensitive nor inside a low-confidence region."
        },
    )
    cuset_mask_threshold: float = field(
        default=0.95,
        metadata={"help": "Confidence (probability of the gold token) above which such tokens are dropped."},
    )
    cuset_regions: bool = field(
        default=True,
        metadata={
            "help": "Group low-confidence tokens into regions; regions touching a sensitive span are kept whole."
        },
    )
    cuset_region_threshold: float = field(
        default=0.5, metadata={"help": "Confidence below which a token is low-confidence (a region seed)."}
    )
    cuset_region_gap: int = field(
        default=2, metadata={"help": "Merge low-confidence runs separated by at most this many tokens."}
    )
    cuset_region_weight: float = field(
        default=2.0, metadata={"help": "Weight of every token of a region that touches a sensitive span."}
    )
    cuset_sensitive_upweight: bool = field(
        default=True,
        metadata={"help": "Up-weight sensitive tokens predicted with confidence (outside regions)."},
    )
    cuset_sensitive_weight: float = field(
        default=1.5, metadata={"help": "Weight of sensitive tokens outside regions."}
    )
    cuset_sample_reweighting: bool = field(
        default=True,
        metadata={
            "help": "Weight each sample by 1 + alpha x (share of its tokens in sensitive regions), normalized."
        },
    )
    cuset_sample_alpha: float = field(default=1.0, metadata={"help": "The alpha of sample reweighting."})
    cuset_sample_norm: str = field(
        default="running",
        metadata={
            "help": "Normalizer of sample weights: 'running' (running mean over past optimizer batches; exact "
            "under gradient accumulation, useful at micro-batch size 1), 'batch' (mean over the micro-batch) "
            "or 'none'.",
            "choices": ["running", "batch", "none"],
        },
    )
    cuset_sample_norm_momentum: float = field(
        default=0.9, metadata={"help": "Momentum of the running mean for cuset_sample_norm='running'."}
    )

    # Parameters whose defaults differ from TRL's
    learning_rate: float = field(default=1e-5, metadata={"help": "Peak learning rate (MusaCoder SFT: 1e-5)."})
    num_train_epochs: float = field(
        default=1.0, metadata={"help": "Epochs over the data (MusaCoder SFT: 1)."}
    )

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.chat_template_kwargs, str):
            self.chat_template_kwargs = json.loads(self.chat_template_kwargs)
        if self.packing:
            raise ValueError(
                "packing is not supported: samples are pre-tokenized with per-token masks. Set packing: false."
            )
        if self.padding_free:
            raise ValueError(
                "padding_free is not supported: it needs varlen attention kernels, and the recipes train one "
                "long sequence per device anyway. Set padding_free: false."
            )
        if self.chat_template_path is not None and not self.chat_template_path.endswith((".jinja", ".j2")):
            raise ValueError(
                "chat_template_path must be a .jinja or .j2 file here (the data is tokenized before TRL would "
                "clone a template from another tokenizer); to use another tokenizer, set tokenizer_name_or_path"
            )
        if self.assistant_only_loss or self.completion_only_loss:
            raise ValueError(
                "this trainer builds its own final-assistant-turn labels; leave assistant_only_loss and "
                "completion_only_loss unset."
            )
        if self.loss_type != "nll":
            raise ValueError(f"loss_type {self.loss_type!r} is not supported here; set loss_type: nll")
        if self.overlong not in ("truncate", "drop"):
            raise ValueError(f"overlong must be 'truncate' or 'drop', got {self.overlong!r}")
        if self.use_peft and self.lora_r < 1:
            raise ValueError(f"lora_r must be >= 1 with use_peft, got {self.lora_r}")
        if self.max_train_samples is not None and self.max_train_samples < 1:
            raise ValueError("max_train_samples must be >= 1, or unset to use every sample")
        self._check_cuset()

    def _check_cuset(self) -> None:
        for name in ("cuset_mask_threshold", "cuset_region_threshold"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"{name} is a probability and must lie in (0, 1), got {value}")
        if self.cuset_region_threshold > self.cuset_mask_threshold:
            raise ValueError(
                f"cuset_region_threshold ({self.cuset_region_threshold}) must not exceed cuset_mask_threshold "
                f"({self.cuset_mask_threshold}): a low-confidence token cannot also be confident enough to drop"
            )
        if self.cuset_region_gap < 0:
            raise ValueError(f"cuset_region_gap must be >= 0, got {self.cuset_region_gap}")
        for name in ("cuset_region_weight", "cuset_sensitive_weight", "cuset_sample_alpha"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.cuset_sample_norm not in ("running", "batch", "none"):
            raise ValueError(
                f"cuset_sample_norm must be 'running', 'batch' or 'none', got {self.cuset_sample_norm!r}"
            )
        if not 0.0 <= self.cuset_sample_norm_momentum < 1.0:
            raise ValueError(
                f"cuset_sample_norm_momentum must lie in [0, 1), got {self.cuset_sample_norm_momentum}"
            )
        unknown = set(self.cuset_tag_kinds or ()) - set(SENSITIVE_KINDS)
        if unknown:
            raise ValueError(
                f"cuset_tag_kinds has unknown kinds {sorted(unknown)}; choose from {list(SENSITIVE_KINDS)}"
            )

    def cuset_params(self) -> CuSeTParams:
        return CuSeTParams(
            token_masking=self.cuset_token_masking,
            mask_threshold=self.cuset_mask_threshold,
            regions=self.cuset_regions,
            region_threshold=self.cuset_region_threshold,
            region_gap=self.cuset_region_gap,
            region_weight=self.cuset_region_weight,
            sensitive_upweight=self.cuset_sensitive_upweight,
            sensitive_weight=self.cuset_sensitive_weight,
            sample_reweighting=self.cuset_sample_reweighting,
            sample_alpha=self.cuset_sample_alpha,
            sample_norm=self.cuset_sample_norm,
            sample_norm_momentum=self.cuset_sample_norm_momentum,
        )

    def tokenize_options(self) -> TokenizeOptions:
        return TokenizeOptions(
            max_length=self.max_length,
            overlong=self.overlong,
            tag_sensitive=self.cuset and self.cuset_tagger,
            tag_kinds=tuple(self.cuset_tag_kinds) if self.cuset_tag_kinds else None,
            chat_template_kwargs=self.chat_template_kwargs,
        )


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def config_overrides(config: KernelSFTConfig) -> dict[str, Any]:
    """The init fields whose values differ from a default config, as plain YAML-able values."""
    current = config.to_dict()
    out = {}
    for f in sorted(fields(config), key=lambda f: f.name):
        if not f.init or f.name not in current:
            continue
        default = f.default if f.default is not MISSING else None
        if f.default_factory is not MISSING:
            default = f.default_factory()
        value = _plain(current[f.name])
        if f.name == "accelerator_config" and isinstance(value, dict):
            default = {k: v for k, v in AcceleratorConfig().to_dict().items() if k in value}
        # Values __post_init__ derives from an unset default (None, "auto") need not be written.
        derived_empty = value in (None, [], {}) and default in (None, "auto", "", [])
        if (
            derived_empty
            or value == _plain(default)
            or (isinstance(value, list) and [_plain(default)] == value)
        ):
            continue
        if isinstance(value, str) and value.startswith("<") and value.endswith(">"):
            continue  # secrets that to_dict masks (hub_token)
        out[f.name] = value
    out["output_dir"] = config.output_dir
    # transformers 5.24 renamed gradient_checkpointing* to activation_checkpointing*; the old names
    # are read by every 5.x, so a saved recipe replays on older installs too.
    renames = (
        ("activation_checkpointing", "gradient_checkpointing"),
        ("activation_checkpointing_kwargs", "gradient_checkpointing_kwargs"),
    )
    for new, old in renames:
        if new in out:
            out[old] = out.pop(new)
    return out


def save_config_yaml(config: KernelSFTConfig, path: str | Path) -> Path:
    """Write the non-default fields of `config` as a YAML recipe that `--config` reads back."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config_overrides(config), sort_keys=True))
    return path
