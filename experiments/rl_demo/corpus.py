"""The SFT corpus of the RL demonstration: chat rows in the SFT schema for the family's SFT split, the
real first-turn prompt and the canonical answer, a share of them repair dialogues (a plausible wrong
answer, the feedback template's message, the right one). Every answer draws its launch size
uniformly from `family.BLOCKS`, so the SFT policy has no preference of speed."""

from __future__ import annotations

import random

from benchmark.prompts import PromptBuilder
from benchmark.verdict import Correctness, Status, Verdict
from experiments.rl_demo.family import ACTS, BLOCKS, SFT_VALUES, Spec, answer, solution

SFT_ROWS_PER_TASK = {"grid": 3, "wide": 1}  # about 1,100 and 2,300 rows


def wrong_variant(spec: Spec, rng: random.Random, values: str = "grid") -> tuple[str, Verdict]:
    """A plausible mistake (wrong constant, from the corpus's values, or act) and the verdict the
    verifier would give it."""
    a_values, b_values = SFT_VALUES[values]
    kind = rng.choice(["a", "b", "act"])
    if kind == "a":
        code = solution(spec, a=rng.choice([v for v in a_values if v != spec.a]))
    elif kind == "b":
        code = solution(spec, b=rng.choice([v for v in b_values if v != spec.b]))
    else:
        code = solution(spec, act=rng.choice([k for k in ACTS if k != spec.act]))
    verdict = Verdict.unmeasured(
        Status.INCORRECT,
        None,
        task_id="",
        correctness=Correctness(
            trials=4, passed=0, detail="output differs from the reference at element [0, 0]"
        ),
    )
    return code, verdict


def sft_corpus(
    tasks: dict,
    builder: PromptBuilder,
    split: str,
    samples_per_task: int,
    repair: float,
    seed: int,
    values: str = "grid",
):
    """Chat rows in the SFT schema: the real first-turn prompt, the canonical answer; a share of
    them are repair dialogues (a wrong answer, the feedback template's message, the right one)."""
    rng = random.Random(seed)
    rows = []
    for task, spec in (v for v in tasks.values() if v[0].task_id.startswith(split + "/")):
        for _ in range(samples_per_task):
            messages = list(builder.first_turn(task))
            if rng.random() < repair:
                code, verdict = wrong_variant(spec, rng, values)
                messages = list(builder.next_turn(tuple(messages), answer(spec, code), verdict, turns=3))
            messages.append(
                {"role": "assistant", "content": answer(spec, solution(spec, rng.choice(BLOCKS)))}
            )
            rows.append({"messages": messages, "task_id": task.task_id, "source": "synthetic"})
    rng.shuffle(rows)
    return rows
