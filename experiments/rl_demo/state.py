"""What a call of the demonstration is set to do (`Settings`, the options with the defaults of --tiny
or of one GPU filled in) and what it carries from phase to phase (`Run`: the task family, the SFT
corpus, the tokenizer, the reward source and rl_demo.json, written after every phase so that a call
cut short keeps what it had)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import torch

from benchmark.prompts import PromptBuilder
from benchmark.task import Task
from experiments.rl_demo.family import SFT_VALUES, Spec
from trainers.rl_rewards import RewardSource

# the RL arms: KernelRLConfig overrides of the full method, each ablation one part off
ARMS = {
    "full": {},
    "no_primeecho": {"primeecho": False},
    "no_bdr": {"bdr": False},
    "no_mirrorpop": {"mirrorpop": False},
}
# KernelSFTConfig overrides: plain SFT, CuSeT, and CuSeT with each of its switchable parts (every one on
# by default once cuset is on) off alone
SFT_ARMS = {
    "plain": {},
    "cuset": {"cuset": True},
    "cuset_no_tagger": {"cuset": True, "cuset_tagger": False},
    "cuset_no_masking": {"cuset": True, "cuset_token_masking": False},
    "cuset_no_regions": {"cuset": True, "cuset_regions": False},
    "cuset_no_sensitive": {"cuset": True, "cuset_sensitive_upweight": False},
    "cuset_no_sample_reweighting": {"cuset": True, "cuset_sample_reweighting": False},
}
# by default, attempt k of the SFT gate (from 1) trains with seed + SEED_STRIDE * (k - 1)
SEED_STRIDE = 1000
# settings that make the runs of two --sft-arms calls the same experiment: the tasks, the corpus, the
# recipe and the evaluation (the training seeds, arms and budget may differ)
SFT_POOLED_SETTINGS = (
    "seed",
    "tiny",
    "rl_tasks",
    "test_tasks",
    "eval_samples",
    "test_samples",
    "eval_temperature",
    "max_new",
    "sft_steps",
    "sft_lr",
    "sft_batch",
    "model_shape",
    "sft_values",
)
# what a setting was in the files of calls made before it existed
SETTINGS_BEFORE = {"sft_values": "grid", "test_samples": 2}
# settings every RL call of a merged report shares, so that its arms differ in the arm alone; whether
# they started from one SFT model is the models' to say, not the gate's settings
RL_MERGE_SETTINGS = (
    *SFT_POOLED_SETTINGS,
    "rl_generations",
    "group",
    "prompts_per_step",
    "rl_lr",
    "bdr_prob",
    "mirrorpop_delta",
)
# the defaults that depend on the scale: --tiny (the CPU check) and one GPU
TINY_DEFAULTS = dict(
    budget_s=1800.0,
    rl_generations=2,
    sft_steps=6,
    rl_tasks=2,
    test_tasks=2,
    eval_samples=2,
    test_samples=2,
    group=4,
    max_new=48,
    sft_batch=4,
    arm_s=60.0,
)
GPU_DEFAULTS = dict(
    budget_s=480.0,
    rl_generations=5,
    sft_steps=1600,
    rl_tasks=8,
    test_tasks=16,  # 8 left every interval of the full arm too wide to read
    eval_samples=2,
    test_samples=8,
    group=8,
    max_new=288,
    sft_batch=16,
    arm_s=240.0,
)
TINY_SHAPE = dict(hidden_size=64, num_layers=2, num_heads=4, num_kv_heads=2, intermediate_size=128)
GPU_SHAPE = dict(hidden_size=384, num_layers=6, num_heads=6, num_kv_heads=2, intermediate_size=1024)


@dataclasses.dataclass(frozen=True)
class Settings:
    """The options of one call (the flags of experiments.rl_demo.cli, which holds their help). A field
    left None takes its default for --tiny or for one GPU; rl_demo.json records every field under
    "settings", and the SFT cache key hashes those of SFT_POOLED_SETTINGS."""

    out: Path
    # Parameters that choose what runs
    tiny: bool = False
    seed: int = 0
    arms: list[str] = dataclasses.field(default_factory=lambda: list(ARMS))
    sft_arms: list[str] | None = None  # --sft-arms mode: SFT recipes, no RL ("plain" first)
    sft_seeds: list[int] | None = None  # None: --seed (SFT arms) or the gate's --sft-attempts seeds
    merge: list[Path] | None = None  # run nothing: merge these rl_demo.json files
    # Parameters of the budget
    budget_s: float | None = None
    rl_generations: int | None = None
    sft_steps: int | None = None
    # Parameters of the arms' SFT model
    sft_cache: Path | None = None
    sft_min_pass: float = 0.5
    sft_attempts: int = 3
    arm_s: float | None = None
    # Parameters of the tasks and of sampling
    rl_tasks: int | None = None
    test_tasks: int | None = None
    eval_samples: int | None = None
    test_samples: int | None = None
    eval_temperature: float = 0.7
    group: int | None = None
    prompts_per_step: int = 4
    max_new: int | None = None
    # Parameters of training
    sft_lr: float = 1e-3
    sft_values: str = "grid"
    sft_batch: int | None = None
    rl_lr: float = 3e-5
    bdr_prob: float = 0.25
    mirrorpop_delta: float = 0.02
    # Parameters of the verifier
    lanes: int = 12
    build_workers: int = 6
    # filled in from tiny: the policy's shape (experiments.synthetic.build_model's arguments)
    model_shape: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        def fill(name: str, value) -> None:
            object.__setattr__(self, name, value)

        for name, value in (TINY_DEFAULTS if self.tiny else GPU_DEFAULTS).items():
            if getattr(self, name) is None:
                fill(name, value)
        if self.tiny:
            fill("prompts_per_step", min(self.prompts_per_step, 2))
        fill("model_shape", dict(TINY_SHAPE if self.tiny else GPU_SHAPE))
        for given, known in ((self.arms, ARMS), (self.sft_arms or [], SFT_ARMS)):
            unknown = [a for a in given if a not in known]
            if unknown:
                raise ValueError(f"no such arm: {', '.join(unknown)} (arms: {', '.join(known)})")
        if self.sft_values not in SFT_VALUES:
            raise ValueError(f"sft_values must be one of {', '.join(SFT_VALUES)}, not {self.sft_values!r}")
        if self.sft_attempts < 1:
            raise ValueError(f"--sft-attempts must be at least 1, not {self.sft_attempts}")
        if self.sft_arms:
            if "plain" not in self.sft_arms:
                raise ValueError("--sft-arms needs plain: every other arm is compared with it")
            fill("sft_arms", list(dict.fromkeys(["plain", *self.sft_arms])))
            fill("sft_seeds", list(dict.fromkeys(self.sft_seeds or [self.seed])))
            if self.sft_cache is not None:
                raise ValueError(
                    "--sft-cache is for RL mode: --sft-arms trains its own model per arm and seed"
                )
        else:  # the gate's seeds: one attempt each
            gate = self.sft_seeds or [self.seed + SEED_STRIDE * k for k in range(self.sft_attempts)]
            fill("sft_seeds", list(dict.fromkeys(gate)))
            fill("sft_attempts", len(self.sft_seeds))
        if (self.group * self.prompts_per_step) % 2:
            raise ValueError("--group x --prompts-per-step must be even (two optimizer steps per generation)")

    @property
    def on_gpu(self) -> bool:
        """Whether this call trains and evaluates on the GPU (--tiny runs on the CPU wherever it is)."""
        return torch.cuda.is_available() and not self.tiny

    def record(self) -> dict:
        """rl_demo.json's "settings"."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Run:
    """One call's state: its settings, the task family (task id -> (task, spec)), the prompt builder,
    the SFT corpus, the tokenizer, the reward source, and `results`, the rl_demo.json being written."""

    settings: Settings
    tasks: dict[str, tuple[Task, Spec]]
    builder: PromptBuilder
    corpus: list[dict]
    tokenizer: Any
    source: RewardSource
    results: dict

    def write(self) -> None:
        (self.settings.out / "rl_demo.json").write_text(json.dumps(self.results, indent=2, default=str))

    def add_time(self, key: str, seconds: float) -> None:
        """Add seconds to rl_demo.json's timing[key]: the gate's attempts sum into one figure each."""
        timing = self.results["timing"]
        timing[key] = round(timing.get(key, 0.0) + seconds, 1)

    @property
    def evaluation_gpu(self) -> str | None:
        """The GPU this call's evaluations time candidates on (None on the CPU, --tiny included)."""
        return self.results["environment"]["gpu"] if self.settings.on_gpu else None
