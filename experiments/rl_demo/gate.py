"""The gate of the arms' SFT model: SFT and the before-RL evaluation, tried again with the next training
seed while the model passes less than --sft-min-pass of the RL split, each attempt read from or stored
into --sft-cache where one is given. RL from a model that has not learned the task says nothing of RL,
so where no attempt passes, no arm runs."""

from __future__ import annotations

import dataclasses
import logging

from experiments.rl_demo import budget, evaluation, sft_training
from experiments.rl_demo.cache import SFTCache, sft_key_material
from experiments.rl_demo.records import GateResult, SFTAttempt, SFTModel
from experiments.rl_demo.state import Run

log = logging.getLogger(__name__)


def no_time_for_attempt(attempts: list[SFTAttempt], deadline: float, now: float) -> str | None:
    """Why another SFT attempt cannot be trained (None: it can): the time left must hold one as long as
    the longest so far. Arms are not reserved for: a model that has learned the task comes first, and
    every attempt is cached, so a later call on the same machine runs the arms from it."""
    attempt_s = max(a.wall_s for a in attempts)
    left = deadline - now
    if left >= attempt_s:
        return None
    return f"budget: {left:.0f} s left, less than another attempt ({attempt_s:.0f} s)"


def train_attempt(run: Run, number: int, seed: int) -> SFTAttempt:
    """One attempt of the gate: SFT at the training seed, then its model evaluated on both splits."""
    start = budget.now()
    trained = sft_training.train_sft(
        run.settings,
        run.tokenizer,
        run.corpus,
        folder="sft" if number == 1 else f"sft-attempt-{number}",
        seed=seed,
    )
    eval_start = budget.now()
    before = evaluation.evaluate_before(run, trained.model_dir)
    now = budget.now()
    run.add_time("sft_s", eval_start - start)
    run.add_time("eval_before_s", now - eval_start)
    return SFTAttempt(
        number,
        seed,
        trained,
        before,
        round(now - eval_start, 1),
        round(now - start, 1),
        gpu=run.evaluation_gpu,
    )


def evaluated_here(run: Run, attempt: SFTAttempt, cache: SFTCache) -> SFTAttempt:
    """A cached attempt whose before-RL evaluation ran on this call's GPU: as it is, or, where it ran on
    another, evaluated again here and stored so (the model is reused). Speedups are the GPU's, and an
    arm's after-RL evaluation runs here, so its differences need a before-RL evaluation from here too."""
    here = run.evaluation_gpu
    if attempt.gpu == here:
        return attempt
    why = f"its before-RL evaluation ran on {attempt.gpu or 'an unrecorded device'}, this call's on {here or 'the CPU'}"
    log.warning(
        "SFT attempt %d (training seed %d): %s: evaluating it again", attempt.number, attempt.seed, why
    )
    start = budget.now()
    before = evaluation.evaluate_before(run, attempt.run.model_dir)
    eval_s = round(budget.now() - start, 1)
    run.add_time("eval_before_s", eval_s)
    stored = cache.store(dataclasses.replace(attempt, before=before, eval_s=eval_s, gpu=here))
    return dataclasses.replace(
        stored, cache=dataclasses.replace(stored.cache, reused=True, evaluated_again=why)
    )


def train_gated(run: Run, deadline: float, cache: SFTCache | None) -> SFTModel:
    """SFT and the before-RL evaluation, tried again with the next training seed (--sft-seeds) while
    the model passes less than --sft-min-pass of the RL split. Keeps the first model that meets the
    minimum, else the best by RL-split pass rate (the earliest of equals), with a warning. Training
    seeds differ widely (plain SFT passed 0% to 53% of the test split over six of them), and a model
    that fails every RL task gives RL nothing to learn from. Choosing on the RL split is sound: RL
    trains on those tasks anyway, and the test split, on which every claim is made, plays no part in
    the choice. With a cache every attempt is read from it where it is there and stored as soon as
    it is made, so a call cut short leaves its attempts to the next one."""
    settings = run.settings
    attempts: list[SFTAttempt] = []
    stopped = None
    for number, seed in enumerate(settings.sft_seeds, 1):
        start = budget.now()
        attempt = cache.load(number, seed) if cache else None
        if attempt is not None:
            run.add_time("sft_cache_load_s", budget.now() - start)
            attempt = evaluated_here(run, attempt, cache)
        else:
            stopped = no_time_for_attempt(attempts, deadline, start) if attempts else None
            if stopped:
                log.warning("SFT gate: no attempt %d (%s)", number, stopped)
                break
            attempt = train_attempt(run, number, seed)
            if cache:
                attempt = cache.store(attempt)
        attempts.append(attempt)
        run.results["sft_attempts"] = [a.record() for a in attempts]
        run.write()
        if attempt.rl_pass_rate >= settings.sft_min_pass:
            break
        log.warning(
            "SFT attempt %d (training seed %d) passes %.0f%% of the RL split, below the minimum %.0f%%",
            number,
            seed,
            100 * attempt.rl_pass_rate,
            100 * settings.sft_min_pass,
        )
    passed = attempts[-1].rl_pass_rate >= settings.sft_min_pass
    # chosen on the RL split, which RL trains on anyway; the test split plays no part in the choice
    kept = attempts[-1] if passed else max(attempts, key=lambda a: a.rl_pass_rate)
    if not passed:
        stopped = stopped or f"all {len(attempts)} attempts below the minimum"
        log.warning(
            "SFT gate failed (%s): the best attempt is %d (%.0f%% of the RL split, minimum %.0f%%)",
            stopped,
            kept.number,
            100 * kept.rl_pass_rate,
            100 * settings.sft_min_pass,
        )
    gate = GateResult(
        gate="passed" if passed else "failed",
        min_pass=settings.sft_min_pass,
        attempts_allowed=len(settings.sft_seeds),
        attempts_made=len(attempts),
        attempt=kept.number,
        seed=kept.seed,
        rl_pass_rate=kept.rl_pass_rate,
        stopped=stopped,
    )
    record = {**kept.run.summary(), **dataclasses.asdict(gate)}
    if kept.cache:
        record["cache"] = dataclasses.asdict(kept.cache)
    return SFTModel(kept.run.model_dir, record, [a.record() for a in attempts], kept.before, kept.eval_s)


def sft_model(run: Run, deadline: float) -> SFTModel:
    """The arms' SFT model, through the gate (`train_gated`), each attempt from or into --sft-cache
    where one is given. Records "sft", "sft_attempts" and "before"."""
    cache = None
    if run.settings.sft_cache is not None:
        cache = SFTCache(run.settings.sft_cache, sft_key_material(run))
    chosen = train_gated(run, deadline, cache)
    run.results["sft"] = chosen.sft
    run.results["sft_attempts"] = chosen.attempts
    run.results["before"] = chosen.before
    run.write()
    return chosen
