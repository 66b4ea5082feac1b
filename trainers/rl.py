"""Kernel RL on TRL: GRPO with verifier rewards, PrimeEcho, Buffered Dynamic Retry and MirrorPop.

Launch:

    python -m trainers.rl --config configs/rl/smoke.yaml [--field value ...]
    accelerate launch --config_file configs/sft/accelerate/zero3.yaml -m trainers.rl --config ...

`KernelRLTrainer` subclasses `trl.GRPOTrainer` and overrides named hooks only:

- `_generate_and_score_completions`: before TRL generates, Buffered Dynamic Retry swaps some
  groups' prompts for repair prompts from its buffer (`trainers.retry_buffer`); afterwards, groups
  whose every rollout failed go into the buffer.
- `_calculate_rewards`: scores turn 1 with the reward source (the verifier), and in stage 2 runs
  PrimeEcho's later turns (generation with the same engine TRL uses: HF generate or vLLM) and
  returns the trajectory reward (`trainers.primeecho`). The training batch holds the prompt and the
  turn-1 response only, so the policy gradient covers the first turn alone.
- `_get_per_token_logps_and_entropies` (during `compute_loss`): MirrorPop (`trainers.mirrorpop`)
  compares the current log-probs with the behaviour policy's (vLLM's sampling log-probs, else the
  old log-probs) and detaches the rows of sequences that drifted too far, so they carry no gradient
  through any loss term.

Stage 1 (single-turn warm-up) lasts `single_turn_steps` optimizer steps; stage 2 is multi-turn
PrimeEcho. Per step the logs carry reward mean/std (TRL), pass rate, speedup, the fraction of
zero-variance groups (TRL's frac_reward_zero_std), cheat rate, BDR buffer size and replays, and
MirrorPop's masked fraction.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
from pathlib import Path

import torch
from accelerate.utils import gather, gather_object
from trl import GRPOTrainer, get_peft_config, get_quantization_config

from benchmark.host import default_cache_dir
from benchmark.prompts import PromptBuilder, PromptConfig
from benchmark.suite import load_suite
from benchmark.task import Task
from benchmark.verdict import Status
from benchmark.verify.reward import RewardConfig
from benchmark.verify.verifier import VerifierConfig
from trainers import mirrorpop
from trainers.cli import KernelParser, run_command
from trainers.data import load_sft_dataset
from trainers.model import KernelModelConfig, model_init_kwargs, save_final_model
from trainers.primeecho import Episode, PrimeEchoParams, run_episodes
from trainers.retry_buffer import RetryBuffer, RetryEntry, failed_answer, repair_prompt
from trainers.rl_config import KernelRLConfig, RLScriptArguments
from trainers.rl_rewards import (
    RewardSource,
    VerifierRewards,
    completion_text,
    reward_func,
    task_from_source,
)

logger = logging.getLogger(__name__)

STATUSES = [s.value for s in Status]
RETRY_STATE = "retry_buffer.json"


class KernelRLTrainer(GRPOTrainer):
    """GRPO whose rewards come from a RewardSource (the verifier), with PrimeEcho, BDR and MirrorPop."""

    _tag_names = ["trl", "grpo", "solbench"]
    recipe_file = "rl_config.yaml"  # the resolved recipe, beside the saved model

    def __init__(
        self,
        model,
        args: KernelRLConfig,
        train_dataset,
        reward_source: RewardSource,
        eval_dataset=None,
        processing_class=None,
        peft_config=None,
        **kwargs,
    ):
        if not isinstance(args, KernelRLConfig):
            raise TypeError(f"args must be a KernelRLConfig, got {type(args).__name__}")
        for name, data in (("train", train_dataset), ("eval", eval_dataset)):
            if data is not None and {"prompt", "task_id"} - set(data.column_names):
                raise ValueError(
                    f"the {name} dataset needs columns 'prompt' (chat messages) and 'task_id'; "
                    f"it has {data.column_names} (load_rl_prompts builds them from a suite or the RL prompts split)"
                )
        super().__init__(
            model=model,
            reward_funcs=[reward_func(reward_source)],
            args=args,
            train_dataset=train_dataset,
            eval_dataset=eval_dataset,
            processing_class=processing_class,
            peft_config=peft_config,
            **kwargs,
        )
        self.reward_source = reward_source
        self.retry_buffer = RetryBuffer(args.bdr_buffer_size)
        self.episodes: list[Episode] = []  # this process's episodes of the latest generation batch
        self._generation_index = 0
        self._replays: dict[int, RetryEntry] = {}  # local row index -> the buffer entry it replays
        self._filler_prompt: list[dict] | None = None
        self._loss_inputs: dict | None = None

    # ------------------------------------------------------------------ stages and PrimeEcho

    def primeecho_params(self) -> PrimeEchoParams | None:
        """PrimeEcho's parameters in stage 2; None in stage 1 or with PrimeEcho off (single turn)."""
        if not self.args.primeecho or self.state.global_step < self.args.single_turn_steps:
            return None
        return self.args.primeecho_params()

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        texts = [completion_text(c) for c in completions]
        rows = [{k: v for k, v in x.items() if k != "prompt"} for x in inputs]
        params = self.primeecho_params()
        self._filler_prompt = prompts[0]
        episodes = run_episodes(
            prompts,
            rows,
            texts,
            self.reward_source.score,
            self._generate_followups,
            params.turns if params else 1,
        )
        self.episodes = episodes
        device = self.accelerator.device
        rewards = torch.tensor([e.reward(params) for e in episodes], dtype=torch.float32, device=device)
        self._log_episodes(episodes, params)
        return gather(rewards.unsqueeze(1))

    def _generate_followups(self, conversations: list[list[dict]]) -> list[str]:
        """One completion per conversation (PrimeEcho's later turns), with TRL's generation engine.
        Every process pads its list to the largest one: vLLM's server mode and DeepSpeed ZeRO-3
        generation are collective and expect the same number of prompts everywhere."""
        counts = self.accelerator.gather(torch.tensor([len(conversations)], device=self.accelerator.device))
        most = int(counts.max())
        if most == 0:
            return []
        filler = conversations[0] if conversations else self._filler_prompt
        padded = conversations + [filler] * (most - len(conversations))
        prompt_ids, _, multimodal = self._tokenize_prompts(padded)
        completion_ids, _ = self._generate_single_turn(prompt_ids, None, multimodal, 1)
        texts = self.processing_class.batch_decode(completion_ids, skip_special_tokens=True)
        return texts[: len(conversations)]

    # ------------------------------------------------------------------ Buffered Dynamic Retry

    def _generate_and_score_completions(self, inputs):
        training = self.model.training
        self._replays = {}
        if training and self.args.bdr:
            inputs = self._apply_replays(inputs)
        output = super()._generate_and_score_completions(inputs)
        if training:
            if self.args.bdr:
                self._update_retry_buffer(inputs)
            self._generation_index += 1
        return output

    def _apply_replays(self, inputs: list[dict]) -> list[dict]:
        """Replace whole groups of this generation batch by repair prompts from the buffer. The plan
        covers every group of the global batch and is identical on every process."""
        n, group = len(inputs), self.num_generations
        offset = self.accelerator.process_index * n
        num_groups = n * self.accelerator.num_processes // group
        rng = random.Random(f"bdr:{self.args.seed}:{self._generation_index}")
        plan = self.retry_buffer.plan_replays(num_groups, self.args.bdr_replay_prob, rng)
        inputs = list(inputs)
        for i in range(n):
            entry = plan.get((offset + i) // group)
            if entry is not None:
                inputs[i] = {**entry.row, "prompt": repair_prompt(entry)}
                self._replays[i] = entry
        metrics = self._metrics["train"]
        metrics["bdr/replayed_groups"].append(float(len(plan)))
        return inputs

    def _update_retry_buffer(self, inputs: list[dict]) -> None:
        """Push every group whose rollouts all failed (no passing turn), with its best first-turn attempt."""
        records = []
        for i, (x, episode) in enumerate(zip(inputs, self.episodes, strict=True)):
            entry = self._replays.get(i)
            first = episode.first
            records.append(
                {
                    "row": {k: v for k, v in x.items() if k != "prompt"},
                    "prompt": list(entry.prompt) if entry else list(x["prompt"]),
                    "failed": not episode.passed,
                    "reward": first.score.reward,
                    "answer": failed_answer(first.completion, first.score.code),
                    "feedback": first.score.feedback,
                    "status": first.score.status,
                    "replays": entry.replays if entry else 0,
                    "replay": entry is not None,
                    "passed": episode.passed,
                }
            )
        records = gather_object(records)
        group = self.num_generations
        for start in range(0, len(records) - group + 1, group):
            members = records[start : start + group]
            best = max(members, key=lambda r: r["reward"])
            if all(r["failed"] for r in members) and best["replays"] < self.args.bdr_max_replays:
                self.retry_buffer.push(
                    RetryEntry(
                        row=best["row"],
                        prompt=tuple(best["prompt"]),
                        answer=best["answer"],
                        feedback=best["feedback"],
                        status=best["status"],
                        replays=best["replays"],
                    )
                )
        metrics = self._metrics["train"]
        metrics["bdr/buffer_size"].append(float(len(self.retry_buffer)))
        metrics["bdr/pushed_total"].append(float(self.retry_buffer.pushed))
        metrics["bdr/dropped_total"].append(float(self.retry_buffer.dropped))
        replayed = [r for r in records if r["replay"]]
        if replayed:
            metrics["bdr/replay_pass_rate"].append(sum(r["passed"] for r in replayed) / len(replayed))

    # ------------------------------------------------------------------ MirrorPop

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        self._loss_inputs = inputs
        try:
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        finally:
            self._loss_inputs = None

    def _get_per_token_logps_and_entropies(
        self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
    ):
        logps, entropies, aux = super()._get_per_token_logps_and_entropies(
            model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
        )
        inputs = self._loss_inputs
        if inputs is None or not self.args.mirrorpop or not torch.is_grad_enabled():
            return logps, entropies, aux
        behaviour = inputs.get("sampling_per_token_logps")
        if behaviour is None:
            behaviour = inputs.get("old_per_token_logps")
        if behaviour is None:  # on-policy step: the behaviour policy is the current one, drift 0
            behaviour = logps.detach()
        mask = inputs["completion_mask"]
        if "tool_mask" in inputs:
            mask = mask * inputs["tool_mask"]
        result = mirrorpop.keep_mask(
            logps, behaviour, mask, self.args.mirrorpop_delta, self.args.mirrorpop_rule
        )
        logps = mirrorpop.apply_keep(logps, result.keep)
        if entropies is not None:
            entropies = mirrorpop.apply_keep(entropies, result.keep)
        mode = "train" if self.model.training else "eval"
        stats = torch.stack(
            [
                (~result.keep & result.has_tokens).sum().float(),
                result.has_tokens.sum().float(),
                (result.drift.abs() * result.has_tokens).sum().float(),
            ]
        )
        masked, counted, drift = self.accelerator.gather(stats.unsqueeze(0)).sum(0).tolist()
        self._metrics[mode]["mirrorpop/masked_fraction"].append(masked / counted if counted else 0.0)
        self._metrics[mode]["mirrorpop/drift_mean"].append(drift / counted if counted else 0.0)
        return logps, entropies, aux

    # ------------------------------------------------------------------ logging and checkpoints

    def _log_episodes(self, episodes: list[Episode], params: PrimeEchoParams | None) -> None:
        """Per-rollout statistics, gathered from every process, into this step's metrics."""
        rows = []
        for e in episodes:
            s = e.first.score
            speedup = s.speedup if s.passed and s.speedup else float("nan")
            status = [float(s.status == name) for name in STATUSES]
            rows.append(
                [
                    float(s.passed),
                    float(e.passed),
                    float(any(t.score.cheat for t in e.turns)),
                    float(len(e.turns)),
                    s.reward,
                    math.log(speedup) if speedup == speedup else float("nan"),
                    *status,
                ]
            )
        local = torch.tensor(rows, dtype=torch.float64, device=self.accelerator.device).reshape(
            -1, 6 + len(STATUSES)
        )
        table = self.accelerator.gather(local)
        mode = "train" if self.model.training else "eval"
        metrics = self._metrics[mode]
        mean = table.nanmean(0).tolist()
        metrics["kernel/pass_rate"].append(mean[0])
        metrics["kernel/cheat_rate"].append(mean[2])
        metrics["kernel/first_turn_reward"].append(mean[4])
        log_speedups = table[:, 5]
        if (~torch.isnan(log_speedups)).any():
            metrics["kernel/speedup_geomean"].append(math.exp(mean[5]))
        for name, value in zip(STATUSES, mean[6:], strict=True):
            metrics[f"kernel/status/{name}"].append(value)
        metrics["primeecho/stage"].append(2.0 if params is not None else 1.0)
        if params is not None:
            metrics["primeecho/pass_rate_any_turn"].append(mean[1])
            metrics["primeecho/mean_turns"].append(mean[3])

    def _save_checkpoint(self, model, trial):
        super()._save_checkpoint(model, trial)
        if self.args.bdr and self.args.should_save:
            folder = Path(self._get_output_dir(trial=trial)) / f"checkpoint-{self.state.global_step}"
            (folder / RETRY_STATE).write_text(json.dumps(self.retry_buffer.state_dict()))

    def _load_optimizer_and_scheduler(self, checkpoint):
        super()._load_optimizer_and_scheduler(checkpoint)
        if checkpoint is not None and (Path(checkpoint) / RETRY_STATE).exists():
            self.retry_buffer.load_state_dict(json.loads((Path(checkpoint) / RETRY_STATE).read_text()))


# ---------------------------------------------------------------------- prompts and tasks


def load_rl_prompts(script_args: RLScriptArguments, config: KernelRLConfig):
    """The training prompts (a Dataset with columns prompt and task_id) and the tasks they name."""
    from datasets import Dataset

    builder = PromptBuilder(
        PromptConfig(
            name=config.prompt_template, backend=config.prompt_backend, reasoning=config.prompt_reasoning
        )
    )
    tasks: dict[str, Task] = {}
    rows: list[dict] = []
    limit = script_args.max_prompts
    if script_args.suite is not None:
        suite = load_suite(None if script_args.suite == "builtin" else script_args.suite)
        chosen = suite.select(levels=script_args.suite_levels, patterns=script_args.suite_tasks)
        for task in chosen[:limit]:
            tasks[task.task_id] = task
            rows.append({"prompt": list(builder.first_turn(task)), "task_id": task.task_id})
    elif script_args.dataset_name is not None:
        name = script_args.dataset_name
        data = load_sft_dataset(
            name, script_args.dataset_train_split, script_args.dataset_config
        )  # same loader
        missing = {"task_id", "task_code"} - set(data.column_names)
        if missing:
            raise ValueError(
                f"{name}: the RL prompts need columns task_id and task_code (missing "
                f"{sorted(missing)}; columns: {data.column_names}); see datasets_builder/schema.py"
            )
        root = Path(config.verifier_cache_dir or default_cache_dir()) / "rl_tasks"
        for row in data.select(range(min(len(data), limit or len(data)))):
            task = task_from_source(row["task_id"], row["task_code"], root)
            tasks[task.task_id] = task
            prompt = [{"role": m["role"], "content": m["content"]} for m in row.get("messages") or []]
            rows.append({"prompt": prompt or list(builder.first_turn(task)), "task_id": task.task_id})
    else:
        raise ValueError(
            "set suite (e.g. 'builtin') or dataset_name (the RL prompts) to say what to train on"
        )
    if not rows:
        raise ValueError("no task left to train on: check suite_levels, suite_tasks and max_prompts")
    return Dataset.from_list(rows), tasks


def verifier_rewards(config: KernelRLConfig, tasks: dict[str, Task], model: str = "") -> RewardSource:
    """The verifier as this process's reward source. Local: under a multi-process launch each
    process executes on its own GPU and compiles on its share of the CPU cores, unless told
    otherwise. Ray: the project's RayVerifier schedules builds and executions on the cluster."""
    ray = config.verifier_backend == "ray"
    state = config.distributed_state
    local_world = 1 if ray else int(os.environ.get("LOCAL_WORLD_SIZE", state.num_processes))
    device = config.verifier_device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    gpus = tuple(config.verifier_gpus) if config.verifier_gpus is not None else None
    if gpus is None and device == "cuda" and local_world > 1:
        gpus = (state.local_process_index,)
    workers = config.verifier_build_workers or max(1, (os.cpu_count() or 2) // local_world - 1)
    verifier = VerifierConfig(
        eval=config.eval_config(device),
        build_workers=workers,
        gpus=gpus,
        lanes_per_device=config.verifier_lanes_per_device,
        reward=RewardConfig(lam=config.reward_lam, nu_max=config.reward_nu_max),
    )
    prompts = PromptConfig(
        name=config.prompt_template, backend=config.prompt_backend, reasoning=config.prompt_reasoning
    )
    executor = None
    if ray:
        from benchmark.verify.ray_executor import RayVerifier

        executor = RayVerifier(verifier, address=config.ray_address)
    return VerifierRewards(
        tasks, verifier, prompts, config.primeecho_turns, config.reward_cache, model, verifier=executor
    )


# ---------------------------------------------------------------------- training


def train_rl(
    script_args: RLScriptArguments,
    config: KernelRLConfig,
    model_args: KernelModelConfig,
    reward_source: RewardSource | None = None,
) -> Path:
    """Load the prompts and the policy these configs name, train with verifier rewards, save the model."""
    if not model_args.model_name_or_path:
        raise ValueError("set model_name_or_path (a Hub id or a local model folder, e.g. the SFT output)")
    dataset, tasks = load_rl_prompts(script_args, config)
    source = reward_source or verifier_rewards(config, tasks, model_args.model_name_or_path)
    explicit = config.model_init_kwargs
    config.model_init_kwargs = model_init_kwargs(model_args, explicit)
    try:
        trainer = KernelRLTrainer(
            model=model_args.model_name_or_path,
            args=config,
            train_dataset=dataset,
            reward_source=source,
            peft_config=get_peft_config(model_args),
            quantization_config=get_quantization_config(model_args),
        )
        config.model_init_kwargs = explicit  # the model is loaded; the saved recipe keeps what was written
        trainer.train(resume_from_checkpoint=config.resume_from_checkpoint)
        trainer.save_state()
        return save_final_model(trainer, model_args=model_args, script_args=script_args)
    finally:
        source.close()


COMMON = (
    "model_name_or_path",
    "dtype",
    "use_peft",
    "dataset_name",
    "output_dir",
    "max_completion_length",
    "num_generations",
    "per_device_train_batch_size",
    "learning_rate",
    "max_steps",
    "use_vllm",
)


def parser() -> KernelParser:
    """The command line: TRL's script arguments (plus suites), this trainer's config and TRL's model config."""
    return KernelParser(
        (RLScriptArguments, KernelRLConfig, KernelModelConfig),
        prog="python -m trainers.rl",
        description=__doc__.split("\n\n")[0],
        common=COMMON,
    )


def main(argv: list[str] | None = None) -> Path:
    return run_command(parser(), train_rl, argv)


if __name__ == "__main__":
    main()
