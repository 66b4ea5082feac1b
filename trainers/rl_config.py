"""Configuration of the kernel RL trainer: TRL's GRPOConfig plus prompts, verifier rewards, the two
stages, PrimeEcho, Buffered Dynamic Retry and MirrorPop; TRL's ScriptArguments plus task suites.

A run reads three dataclasses, as TRL's own scripts do: `RLScriptArguments` (what to train on),
`KernelRLConfig` (training) and `trainers.model.KernelModelConfig` (model and LoRA). Every field reads from a YAML recipe (`python -m trainers.rl --config configs/rl/....yaml`) or a
command-line flag of the same name. Each of the three methods has an on/off switch, so one recipe
and its ablations differ by a single line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from trl import GRPOConfig, ScriptArguments

from benchmark.evaluate.harness import EvalConfig
from benchmark.prompts.render import BACKENDS as PROMPT_BACKENDS
from benchmark.verify.verifier import VerifierConfig
from trainers.mirrorpop import RULES
from trainers.primeecho import DEFAULT_ALPHA, DEFAULT_EARLY_BONUS, PrimeEchoParams

# the EvalConfig settings with a field of their own here: setting -> field
EVAL_FIELDS = {
    "device": "verifier_device",
    "trials": "verifier_trials",
    "measure": "verifier_measure",
    "strict": "verifier_strict",
    "timeout_s": "verifier_timeout_s",
    "seed": "seed",
    "cache_dir": "verifier_cache_dir",
}

VERIFIER_DEVICES = ("auto", "cuda", "cpu")
VERIFIER_BACKENDS = ("local", "ray")


@dataclass
class RLScriptArguments(ScriptArguments):
    """What to train on: a task suite, or the dataset builder's RL prompts named by TRL's
    `dataset_name` (datasets_builder/schema.py): a Hub id, a dataset folder, a .parquet/.jsonl file
    or a save_to_disk folder with columns task_id, task_code (the task program) and messages (the
    prompt; rendered from the task where null)."""

    suite: str | None = field(
        default=None,
        metadata={
            "help": "Train on a task suite: 'builtin', a folder of task files, or 'hf:ORG/NAME'. Exclusive with "
            "dataset_name."
        },
    )
    suite_levels: list[int] | None = field(
        default=None, metadata={"help": "Keep only the suite's tasks of these levels (None: all)."}
    )
    suite_tasks: list[str] | None = field(
        default=None,
        metadata={"help": "Keep only the suite's tasks whose id or name matches one of these globs."},
    )
    max_prompts: int | None = field(
        default=None, metadata={"help": "Use only the first N tasks (smoke runs)."}
    )

    # Parameters whose defaults differ from TRL's
    dataset_config: str | None = field(
        default="rl_prompts",
        metadata={
            "help": "Configuration of dataset_name to train on (the builder's RL prompts, docs/datasets.md)."
        },
    )

    def __post_init__(self):
        if self.suite is not None and self.dataset_name is not None:
            raise ValueError("set either suite or dataset_name (the RL prompts), not both")
        if self.max_prompts is not None and self.max_prompts < 1:
            raise ValueError("max_prompts must be >= 1, or unset to use every task")


@dataclass
class KernelRLConfig(GRPOConfig):
    r"""Configuration for `trainers.rl.KernelRLTrainer` (all TRL `GRPOConfig` fields apply too).

    Defaults follow MusaCoder's RL stage where it published them (learning rate 1e-6, group size 8,
    temperature 0.9, top-p 0.95, separate low and high clip bounds); what it did not publish (the
    early bonuses, delta, the BDR probability and buffer size) is our choice, documented per field
    and in docs/rl.md.
    """

    # Parameters that control the prompts (what to train on: RLScriptArguments)
    prompt_template: str = field(
        default="zero-shot",
        metadata={"help": "Prompt: 'zero-shot', 'one-shot' or the path of a jinja2 template (.j2)."},
    )
    prompt_backend: str = field(
        default="cuda",
        metadata={"help": "Kernel language the prompt asks for.", "choices": list(PROMPT_BACKENDS)},
    )
    prompt_reasoning: bool = field(
        default=False, metadata={"help": "Ask for the six-step reasoning scaffold before the code."}
    )

    # Parameters that control the verifier (the rewards)
    verifier_backend: str = field(
        default="local",
        metadata={
            "help": "Where the verifier runs: 'local' (pools inside each training process, on its GPU) or 'ray' "
            "(builds and executions scheduled on a Ray cluster, e.g. on separate verifier nodes; needs "
            "`pip install ray`).",
            "choices": list(VERIFIER_BACKENDS),
        },
    )
    ray_address: str | None = field(
        default=None,
        metadata={
            "help": "Ray cluster to join ('auto': the running one; None: start or join a local instance)."
        },
    )
    verifier_device: str = field(
        default="auto",
        metadata={
            "help": "Device the candidates run on: 'cuda', 'cpu' (C++ candidates only) or 'auto' (cuda when "
            "visible).",
            "choices": list(VERIFIER_DEVICES),
        },
    )
    verifier_strict: bool = field(
        default=EvalConfig.strict,
        metadata={
            "help": "Strict anti-cheat: any flag makes the sample a cheat (reward -1). Keep it on for training."
        },
    )
    verifier_measure: bool = field(
        default=EvalConfig.measure,
        metadata={
            "help": "Time candidate and reference (the speedup term of the reward). Off: correctness only."
        },
    )
    verifier_trials: int = field(
        default=EvalConfig.trials, metadata={"help": "Correctness trials per sample (fresh seeds)."}
    )
    verifier_timeout_s: float = field(
        default=EvalConfig.timeout_s,
        metadata={
            "help": "Run limit per sample in seconds: its correctness checks and timing (compiling has a limit "
            "of its own, build_timeout_s in verifier_eval_kwargs)."
        },
    )
    verifier_build_workers: int | None = field(
        default=VerifierConfig.build_workers,
        metadata={"help": "CPU workers compiling candidates (None: one per core, less one)."},
    )
    verifier_lanes_per_device: int = field(
        default=VerifierConfig.lanes_per_device,
        metadata={
            "help": "Concurrent executions per GPU. 1 keeps timings clean; more trades timing noise for speed."
        },
    )
    verifier_gpus: list[int] | None = field(
        default=None, metadata={"help": "GPUs the verifier executes on (None: every visible one)."}
    )
    verifier_cache_dir: str | None = field(
        default=None,
        metadata={"help": "Build and source cache of the verifier (None: $SOLBENCH_CACHE or ~/.cache)."},
    )
    verifier_eval_kwargs: dict | str | None = field(
        default=None,
        metadata={
            "help": "Every other evaluation setting of the verifier, as a dict (JSON on the command line), e.g. "
            '\'{"build_timeout_s": 600, "baseline": "compile", "timing": {"max_seconds": 1.0}}\'. Names: '
            + ", ".join(sorted(set(EvalConfig.__dataclass_fields__) - set(EVAL_FIELDS)))
            + " (the evaluation settings of benchmark.run and benchmark.check)."
        },
    )
    reward_lam: float = field(
        default=0.5,
        metadata={
            "help": "Weight lambda of the speedup bonus: s = 1 + lambda * min(max(nu - 1, 0), nu_max)."
        },
    )
    reward_nu_max: float = field(default=4.0, metadata={"help": "Cap nu_max on (speedup - 1) in the bonus."})
    reward_cache: bool = field(
        default=True,
        metadata={"help": "Judge each identical (task, code) pair once per run and reuse its verdict."},
    )

    # Parameters that control the two stages
    single_turn_steps: int = field(
        default=0,
        metadata={
            "help": "Stage 1: the first N optimizer steps are single-turn GRPO (warm-up). Stage 2 (multi-turn "
            "PrimeEcho) follows when primeecho is on."
        },
    )

    # Parameters that control PrimeEcho (multi-turn feedback rollouts)
    primeecho: bool = field(
        default=True,
        metadata={
            "help": "Multi-turn feedback rollouts with the first-turn-anchored reward. Off: single-turn GRPO."
        },
    )
    primeecho_turns: int = field(
        default=3, metadata={"help": "Turns per rollout T (stops at the first passing turn). MusaCoder: 3."}
    )
    primeecho_alpha: float = field(
        default=DEFAULT_ALPHA,
        metadata={
            "help": "alpha in R = alpha * s_first + (1 - alpha) * max_k s_k + b_early. MusaCoder: 0.75."
        },
    )
    primeecho_early_bonus: list[float] = field(
        default_factory=lambda: list(DEFAULT_EARLY_BONUS),
        metadata={
            "help": "b_early for a first pass at turn 1, 2, ... (0 beyond the list); non-negative and "
            "non-increasing. Our default: 0.2, 0.1."
        },
    )

    # Parameters that control Buffered Dynamic Retry
    bdr: bool = field(
        default=True,
        metadata={"help": "Buffer prompts whose whole group failed and replay them as repair prompts."},
    )
    bdr_buffer_size: int = field(
        default=256,
        metadata={"help": "Capacity of the FIFO of failed prompts (the oldest is dropped when full)."},
    )
    bdr_replay_prob: float = field(
        default=0.125,
        metadata={
            "help": "Probability that a group of the next batch is replaced by the oldest buffered prompt."
        },
    )
    bdr_max_replays: int = field(
        default=2,
        metadata={"help": "Replays of one prompt before it is given up (a replay that fails goes back in)."},
    )

    # Parameters that control MirrorPop
    mirrorpop: bool = field(
        default=True,
        metadata={
            "help": "Mask whole sequences whose mean |log(pi_theta / pi_behaviour)| over completion tokens exceeds "
            "mirrorpop_delta (behaviour: vLLM's sampling log-probs, else the old policy's)."
        },
    )
    mirrorpop_delta: float = field(
        default=0.1,
        metadata={"help": "Drift threshold delta of MirrorPop (mean absolute log-ratio per token)."},
    )
    mirrorpop_rule: str = field(
        default="abs",
        metadata={
            "help": "'abs': MirrorPop, mean |log rho| <= delta. 'signed': the rule it improves on, |mean log rho| "
            "<= delta (drifts of opposite sign cancel); for ablations.",
            "choices": list(RULES),
        },
    )

    # Parameters whose defaults differ from TRL's (MusaCoder's RL settings)
    num_generations: int | None = field(default=8, metadata={"help": "Group size G (MusaCoder: 8)."})
    temperature: float = field(default=0.9, metadata={"help": "Sampling temperature (MusaCoder: 0.9)."})
    top_p: float = field(default=0.95, metadata={"help": "Nucleus sampling top-p (MusaCoder: 0.95)."})
    epsilon: float = field(
        default=0.2, metadata={"help": "Lower clip bound: ratios below 1 - epsilon are clipped."}
    )
    epsilon_high: float | None = field(
        default=0.28,
        metadata={
            "help": "Upper clip bound, separate from the lower one: ratios above 1 + epsilon_high are clipped."
        },
    )

    def eval_config(self, device: str) -> EvalConfig:
        """The verifier's EvalConfig on `device`: the verifier_* fields, then verifier_eval_kwargs for
        the rest (a setting with a field of its own is set there, once)."""
        own = {
            "device": device,
            "trials": self.verifier_trials,
            "measure": self.verifier_measure,
            "strict": self.verifier_strict,
            "timeout_s": self.verifier_timeout_s,
            "seed": self.seed,
            "cache_dir": self.verifier_cache_dir,
        }
        extra = dict(self.verifier_eval_kwargs or {})
        twice = sorted(set(extra) & set(own))
        if twice:
            fields = ", ".join(f"{k} (set {EVAL_FIELDS.get(k, k)})" for k in twice)
            raise ValueError(
                f"verifier_eval_kwargs repeats settings that have a field of their own: {fields}"
            )
        values = {k: v for k, v in own.items() if v is not None} | extra
        return EvalConfig.from_dict(values)

    def __post_init__(self):
        super().__post_init__()
        if self.prompt_backend not in PROMPT_BACKENDS:
            raise ValueError(
                f"prompt_backend must be one of {', '.join(PROMPT_BACKENDS)}, got {self.prompt_backend!r}"
            )
        if self.verifier_backend not in VERIFIER_BACKENDS:
            raise ValueError(
                f"verifier_backend must be one of {', '.join(VERIFIER_BACKENDS)}, got {self.verifier_backend!r}"
            )
        if self.verifier_device not in VERIFIER_DEVICES:
            raise ValueError(
                f"verifier_device must be one of {', '.join(VERIFIER_DEVICES)}, got {self.verifier_device!r}"
            )
        if self.verifier_trials < 1:
            raise ValueError("verifier_trials must be >= 1")
        if self.verifier_timeout_s <= 0:
            raise ValueError("verifier_timeout_s must be positive")
        if self.verifier_lanes_per_device < 1:
            raise ValueError("verifier_lanes_per_device must be >= 1")
        if self.verifier_build_workers is not None and self.verifier_build_workers < 1:
            raise ValueError("verifier_build_workers must be >= 1, or unset for one per core")
        if isinstance(self.verifier_eval_kwargs, str):
            self.verifier_eval_kwargs = json.loads(self.verifier_eval_kwargs)
        self.eval_config("cpu")  # a misspelt or doubly set evaluation setting fails here, not mid-run
        if self.reward_lam < 0 or self.reward_nu_max < 0:
            raise ValueError("reward_lam and reward_nu_max must be non-negative")
        if self.single_turn_steps < 0:
            raise ValueError("single_turn_steps must be >= 0")
        if self.primeecho and self.primeecho_turns < 2:
            raise ValueError(
                f"PrimeEcho needs primeecho_turns >= 2 (got {self.primeecho_turns}); for single-turn GRPO set "
                "primeecho: false"
            )
        if not 0.0 <= self.primeecho_alpha <= 1.0:
            raise ValueError(f"primeecho_alpha must be in [0, 1], got {self.primeecho_alpha}")
        bonus = list(self.primeecho_early_bonus)
        if any(b < 0 for b in bonus) or any(a < b for a, b in zip(bonus, bonus[1:], strict=False)):
            raise ValueError(
                f"primeecho_early_bonus must be non-negative and non-increasing (turn 1 earns the most), got {bonus}"
            )
        if self.bdr_buffer_size < 1:
            raise ValueError("bdr_buffer_size must be >= 1; to turn BDR off set bdr: false")
        if not 0.0 <= self.bdr_replay_prob <= 1.0:
            raise ValueError(f"bdr_replay_prob must be in [0, 1], got {self.bdr_replay_prob}")
        if self.bdr_max_replays < 1:
            raise ValueError("bdr_max_replays must be >= 1")
        if self.mirrorpop_delta <= 0:
            raise ValueError(
                f"mirrorpop_delta must be positive, got {self.mirrorpop_delta}; to turn it off set mirrorpop: false"
            )
        if self.mirrorpop_rule not in RULES:
            raise ValueError(f"mirrorpop_rule must be one of {', '.join(RULES)}, got {self.mirrorpop_rule!r}")

    def primeecho_params(self) -> PrimeEchoParams:
        return PrimeEchoParams(
            turns=self.primeecho_turns if self.primeecho else 1,
            alpha=self.primeecho_alpha,
            early_bonus=tuple(self.primeecho_early_bonus),
        )
