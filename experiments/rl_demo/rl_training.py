"""RL of the demonstration's policy: one arm (the full method or an ablation, `state.ARMS`) trained by
trainers.rl from the SFT model, on the RL split, for a fixed number of generations or until its
deadline, with the learning curve it logged."""

from __future__ import annotations

from pathlib import Path

from experiments.rl_demo import budget
from experiments.rl_demo.state import Settings
from trainers.rl import KernelRLTrainer
from trainers.rl_config import KernelRLConfig

CURVE_KEYS = (  # the trainer's logged values an arm's curve keeps
    "reward",
    "reward_std",
    "kernel/pass_rate",
    "kernel/speedup_geomean",
    "kernel/cheat_rate",
    "frac_reward_zero_std",
    "primeecho/pass_rate_any_turn",
    "bdr/buffer_size",
    "bdr/replayed_groups",
    "mirrorpop/masked_fraction",
    "mirrorpop/drift_mean",
    "loss",
)


def run_arm(
    name: str,
    overrides: dict,
    model_dir: Path,
    tokenizer,
    dataset,
    source,
    settings: Settings,
    deadline: float,
) -> tuple:
    """The arm trained from the SFT model at model_dir: (the trained model, rl_demo.json's record of
    the arm's training: steps, generations, seconds, whether the deadline stopped it, BDR's counts and
    the curve of CURVE_KEYS per step)."""
    config = KernelRLConfig(
        output_dir=str(settings.out / "arms" / name),
        use_cpu=settings.tiny,
        bf16=settings.on_gpu,
        gradient_checkpointing=False,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        disable_tqdm=True,
        seed=settings.seed,
        per_device_train_batch_size=settings.group * settings.prompts_per_step // 2,
        steps_per_generation=2,  # two optimizer steps per generation: the second is off-policy
        num_generations=settings.group,
        max_completion_length=settings.max_new,
        max_steps=2 * settings.rl_generations,
        learning_rate=settings.rl_lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        temperature=0.9,
        top_p=0.95,
        single_turn_steps=2,  # stage 1: the first generation is single-turn; stage 2: PrimeEcho
        primeecho_turns=3,
        bdr_replay_prob=settings.bdr_prob,
        mirrorpop_delta=settings.mirrorpop_delta,
        **overrides,
    )
    stop = budget.Deadline(deadline)
    trainer = KernelRLTrainer(
        model=str(model_dir),
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        reward_source=source,
        callbacks=[stop],
    )
    start = budget.now()
    trainer.train()
    curve = [
        {"step": e["step"], **{k: e[k] for k in CURVE_KEYS if k in e}}
        for e in trainer.state.log_history
        if "step" in e and "loss" in e
    ]
    info = {
        "steps": trainer.state.global_step,
        "generations": trainer._generation_index,
        "seconds": round(budget.now() - start, 1),
        "stopped_by_deadline": stop.hit,
        "bdr": {"pushed": trainer.retry_buffer.pushed, "replayed": trainer.retry_buffer.replayed},
        "curve": curve,
    }
    return trainer.accelerator.unwrap_model(trainer.model), info
