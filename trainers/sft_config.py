"""Configuration of the kernel SFT trainer: TRL's SFTConfig plus tokenization and CuSeT fields, and
TRL's ScriptArguments plus evaluation data and a sample cap.

A run reads three dataclasses, as TRL's own SFT script does: `SFTScriptArguments` (the data),
`KernelSFTConfig` (training) and `trainers.model.KernelModelConfig` (model and LoRA). Every field
reads from a YAML recipe (`python -m trainers.sft --config configs/sft/....yaml`) or a command-line
flag of the same name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from trl import ScriptArguments, SFTConfig

from trainers.cuset import SENSITIVE_KINDS, CuSeTParams
from trainers.data import TokenizeOptions


@dataclass
class SFTScriptArguments(ScriptArguments):
    """TRL's `ScriptArguments` (dataset_name, dataset_config, dataset_train_split, dataset_test_split)
    plus where evaluation data comes from and a sample cap. `dataset_name` is data in the SFT schema
    (see trainers/README.md): a Hub id, a .parquet or .jsonl file, a folder of such files, or a
    `save_to_disk` folder; `dataset_test_split` is evaluated on when `eval_strategy` is not "no"."""

    eval_dataset_name: str | None = field(
        default=None,
        metadata={"help": "Evaluation data, in any form `dataset_name` takes. Defaults to `dataset_name`."},
    )
    max_train_samples: int | None = field(
        default=None, metadata={"help": "Use only the first N training samples (smoke runs)."}
    )

    def __post_init__(self):
        if self.max_train_samples is not None and self.max_train_samples < 1:
            raise ValueError("max_train_samples must be >= 1, or unset to use every sample")


@dataclass
class KernelSFTConfig(SFTConfig):
    r"""Configuration for `trainers.sft.KernelSFTTrainer` (all TRL `SFTConfig` fields apply too).

    Defaults follow MusaCoder's SFT stage where it published them (learning rate 1e-5, one epoch,
    bf16); CuSeT is off by default, so the same config with `cuset: true` is its ablation pair.
    """

    # Parameters that control the tokenizer and the data (the model: ModelConfig; the dataset: SFTScriptArguments)
    tokenizer_name_or_path: str | None = field(
        default=None,
        metadata={"help": "Tokenizer to use when it is not the model's own. It must carry a chat template."},
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
