"""The timing stage: when the verifier judged without timing, a seeded random subset of kept
solutions (timing.subset) is verified again with timing, one at a time on the device, and
journalled in timing.jsonl; the card's speedup figures come from it. A failure is logged, not fatal."""

from __future__ import annotations

import logging
import random

from benchmark.verdict import Verdict
from datasets_builder.filter import kept
from datasets_builder.stages.context import BuildContext
from datasets_builder.teachers.base import Candidate

log = logging.getLogger(__name__)
RESERVE_S = 20.0  # the stage stops with this much time left (or budget.reserve_s, if smaller)


def run(ctx: BuildContext) -> None:
    n = ctx.config.timing.subset
    if n <= 0 or ctx.config.verify.measure:
        return
    verdicts, timed = ctx.journals.verdicts, ctx.journals.timed
    kept_ids = sorted(cid for cid, r in verdicts.records.items() if kept(Verdict.from_dict(r["verdict"])))
    todo = timing_choice(kept_ids, set(timed.records), n, ctx.config.seed)
    if not todo:
        return
    bar = ctx.bar(total=len(todo), desc="timing", unit="cand")
    for cid in todo:
        if ctx.budget.out_of_time(reserve=min(ctx.config.budget.reserve_s, RESERVE_S)):
            break
        c = Candidate.from_dict(verdicts.get(cid)["candidate"])
        future = ctx.verifiers.timing.submit(
            ctx.task(c.task_id),
            c.code,
            sample=c.sample,
            turn=c.turn,
            model=c.teacher,
            sol_ms=ctx.sol_ms(c.task_id),
        )
        try:
            verdict = future.result()
        except Exception as e:  # noqa: BLE001 - a timing failure is recorded, not fatal
            log.warning("timing %s failed: %r", cid, e)
            continue
        timed.append({"candidate_id": cid, "verdict": verdict.to_dict()})
        bar.update(1)
    bar.close()


def timing_choice(kept_ids: list[str], timed: set[str], n: int, seed: int) -> list[str]:
    """The kept solutions still to time so that `n` in all are: the ones timed by an earlier run of
    the build count, and the rest are drawn at random (seeded) from those not timed yet."""
    done = [cid for cid in kept_ids if cid in timed]
    rest = [cid for cid in kept_ids if cid not in timed]
    return random.Random(f"timing:{seed}").sample(rest, max(0, min(n - len(done), len(rest))))
