"""Multi-turn repair samples (stage 3): a failed attempt, the verifier's feedback on it, and a fixed
attempt; trained with the loss on the final turn only (trainers.data), as MusaCoder trains them.

Two sources:
- model teachers' own repair turns: a sample whose turn t failed and whose turn t+1 (prompted with
  the feedback, in benchmark.multiturn's phrasing) passed;
- for teachers without turns (Inductor), mutations: a verified solution is broken by one small,
  realistic edit (a grid that covers half the work, a numel off by one, a shifted index range, the
  wrong reduction, a misspelt name, a store without its mask); the mutant is verified like any
  candidate, and only mutants the verifier rejects become samples, with the original solution as the
  fix. Their source is marked `repair:mutation` so they can be weighed or left out."""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from benchmark.prompts import PromptBuilder
from benchmark.verdict import Status, Verdict
from datasets_builder.filter import kept
from datasets_builder.prompting import answer
from datasets_builder.teachers.base import Candidate

MUTATION_TEACHER = "mutation"


@dataclass(frozen=True)
class RepairSample:
    task_id: str
    messages: tuple[dict, ...]
    source: str  # repair:model or repair:mutation
    teacher: str
    failed_status: str  # the verdict of the failed attempt
    fixed_candidate: str
    turns: int  # assistant turns in the sample


def _splice(code: str, node: ast.AST, text: str) -> str:
    lines = code.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    a = starts[node.lineno - 1] + node.col_offset
    b = starts[node.end_lineno - 1] + node.end_col_offset
    return code[:a] + text + code[b:]


def _launches(tree: ast.Module) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Subscript)
        and isinstance(n.func.value, ast.Name)
        and isinstance(n.func.slice, ast.Tuple)
    ]


def _kernel_params(tree: ast.Module) -> dict[str, list[str]]:
    out = {}
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in n.decorator_list):
            out[n.name] = [a.arg for a in n.args.args]
    return out


def grid_half(code: str, rng: random.Random) -> str | None:
    launches = _launches(ast.parse(code))
    if not launches:
        return None
    first = rng.choice(launches).func.slice.elts[0]
    return _splice(code, first, f"triton.cdiv({ast.get_source_segment(code, first)}, 2)")


def numel_minus_one(code: str, rng: random.Random) -> str | None:
    tree = ast.parse(code)
    params = _kernel_params(tree)
    options = []
    for call in _launches(tree):
        names = params.get(call.func.value.id, [])
        for i, arg in enumerate(call.args):
            if i < len(names) and names[i].endswith("numel"):
                options.append(arg)
    if not options:
        return None
    arg = rng.choice(options)
    return _splice(code, arg, f"({ast.get_source_segment(code, arg)}) - 1")


def _jit_calls(code: str, name: str) -> list[ast.Call]:
    tree = ast.parse(code)
    return [
        n
        for f in tree.body
        if isinstance(f, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in f.decorator_list)
        for n in ast.walk(f)
        if isinstance(n, ast.Call) and ast.unparse(n.func) == name
    ]


def arange_shift(code: str, rng: random.Random) -> str | None:
    calls = _jit_calls(code, "tl.arange")
    if not calls:
        return None
    call = rng.choice(calls)
    return _splice(code, call, f"({ast.get_source_segment(code, call)} + 1)")


def sum_to_max(code: str, rng: random.Random) -> str | None:
    calls = _jit_calls(code, "tl.sum")
    if not calls:
        return None
    call = rng.choice(calls)
    return _splice(code, call.func, "tl.max")


def store_without_mask(code: str, rng: random.Random) -> str | None:
    calls = [c for c in _jit_calls(code, "tl.store") if len(c.args) >= 3]
    if not calls:
        return None
    call = rng.choice(calls)
    args = ", ".join(ast.get_source_segment(code, a) for a in call.args[:2])
    return _splice(code, call, f"tl.store({args})")


def misspelt_name(code: str, rng: random.Random) -> str | None:
    names = sorted(set(re.findall(r"\b(tmp\d+)\b", code)))
    if not names:
        return None
    name = rng.choice(names)
    uses = [m for m in re.finditer(rf"\b{name}\b", code)]
    if len(uses) < 2:
        return None
    m = uses[-1]
    return code[: m.start()] + name + "_" + code[m.end() :]


MUTATIONS: dict[str, Callable[[str, random.Random], str | None]] = {
    "grid_half": grid_half,
    "numel_minus_one": numel_minus_one,
    "arange_shift": arange_shift,
    "sum_to_max": sum_to_max,
    "store_without_mask": store_without_mask,
    "misspelt_name": misspelt_name,
}


def mutate(candidate: Candidate, rng: random.Random) -> Candidate | None:
    """A broken copy of a verified solution, by one randomly chosen applicable mutation."""
    if not candidate.code:
        return None
    names = list(MUTATIONS)
    rng.shuffle(names)
    for name in names:
        try:
            code = MUTATIONS[name](candidate.code, rng)
        except (SyntaxError, ValueError):
            code = None
        if code and code != candidate.code:
            return Candidate(
                task_id=candidate.task_id,
                teacher=MUTATION_TEACHER,
                code=code,
                variant=name,
                sample=candidate.sample,
                turn=1,
                parent=candidate.candidate_id,
                info={"mutation": name, "of": candidate.teacher},
            )
    return None


def mutation_sample(
    builder: PromptBuilder,
    first_turn: tuple[dict, ...],
    mutant: Candidate,
    verdict: Verdict,
    fixed: Candidate,
) -> RepairSample | None:
    """The conversation: task prompt, the mutant, the verifier's feedback, the verified original."""
    if verdict.status is Status.PASS or not fixed.code or not mutant.code:
        return None
    attempt = answer(mutant.code)
    messages = builder.next_turn(tuple(first_turn), attempt, verdict, turns=2)
    messages = (*messages, {"role": "assistant", "content": answer(fixed.code)})
    return RepairSample(
        mutant.task_id,
        tuple(dict(m) for m in messages),
        "repair:mutation",
        fixed.teacher,
        verdict.status.value,
        fixed.candidate_id,
        turns=2,
    )


def model_samples(candidates: Iterable[Candidate], verdicts: dict[str, Verdict]) -> list[RepairSample]:
    """Samples from model teachers' turns: turn t failed, turn t+1 passed."""
    by_slot: dict[tuple[str, str, int], dict[int, Candidate]] = {}
    for c in candidates:
        if c.teacher.startswith("model:"):
            by_slot.setdefault((c.task_id, c.teacher, c.sample), {})[c.turn] = c
    out = []
    for (task_id, teacher, _), turns in sorted(by_slot.items()):
        for t in sorted(turns):
            before, after = turns[t], turns.get(t + 1)
            if after is None or not after.messages or not after.completion:
                continue
            v0, v1 = verdicts.get(before.candidate_id), verdicts.get(after.candidate_id)
            if v0 is None or v1 is None or kept(v0) or not kept(v1):
                continue
            messages = (*after.messages, {"role": "assistant", "content": after.completion})
            out.append(
                RepairSample(
                    task_id,
                    tuple(dict(m) for m in messages),
                    "repair:model",
                    teacher,
                    v0.status.value,
                    after.candidate_id,
                    turns=t + 1,
                )
            )
    return out
