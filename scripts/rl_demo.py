"""Learning demonstration of the RL trainer, at a scale that fits one GPU for a few minutes.

No pretrained weights can be downloaded here, so the policy is a small Qwen2-style model trained
from scratch: first by SFT (the project's SFT trainer) on a synthetic corpus of correct kernels for
a narrow family of generated tasks, then by RL (trainers.rl) on tasks the SFT never saw, rewarded
by the strict verifier on the GPU. It reports pass rate and speedup before and after RL, on the RL
tasks and on a test split that neither stage trained on, the learning curves, and three ablations
(PrimeEcho, BDR and MirrorPop each switched off), every arm from the same SFT model with the same
seed and the same number of RL steps (an arm that would not fit in the budget is skipped, not cut).
Each arm's change, after minus before RL, comes with a paired bootstrap 95% interval over tasks, and
an improvement is claimed only where that interval excludes zero. `--merge` combines the
rl_demo.json of several calls (some arms each, the same seed) into one report, without a GPU.

The arms' SFT model passes a gate: while it passes less than --sft-min-pass of the RL split it is
trained again with the next training seed, up to --sft-attempts; where none passes, no arm runs (RL
from a model that has not learned the task says nothing of RL). SFT trains reproducibly
(`reproducible_training`: before it, one recipe and seed passed 94%, 19% and 9% of the test split in
three H200 runs), and every model's `weights_digest` is recorded, so calls on fresh machines of one GPU
model that train the same recipe show that they made one model. `--sft-cache DIR` keeps every
attempt's model and before-RL evaluation under a hash of everything that determines them, its training
seed included, so the calls of one machine with the same settings never train a seed twice, and a call
cut short leaves its attempts to the next; a merged report compares arms across calls that used one
cache entry or models of one digest.

`--sft-arms` compares SFT recipes instead (no RL): one model per arm and training seed
(`--sft-seeds`), each scored on the test split. One training run of this tiny model on a GPU swings
more between runs than the recipes differ, so each arm - plain interval resamples training seeds as
well as tasks (`seed_task_differences`), and `--merge` pools the runs of several calls by (arm, seed).

    python scripts/rl_demo.py --out $OUT/rl-demo            # one GPU, about 8 minutes (--budget-s 480)
    python scripts/rl_demo.py --tiny --out runs/rl-demo-tiny # CPU: checks the script end to end
    python scripts/rl_demo.py --arms full --out $OUT/rl-full  # one arm per call: room for more generations
    python scripts/rl_demo.py --arms full --sft-cache /tmp/rl-sft-cache --out $OUT/rl-a  # later calls reuse its SFT model
    python scripts/rl_demo.py --merge A/rl_demo.json B/rl_demo.json --out runs/rl-demo  # one report
    python scripts/rl_demo.py --sft-arms plain cuset --out $OUT/cuset  # SFT recipes on the test split, no RL
    python scripts/rl_demo.py --sft-arms plain cuset --sft-seeds 1 2 --out $OUT/cuset  # two training seeds per arm

The task family: y = act(a * x + b) over an fp32 tensor, act one of six elementwise functions and
(a, b) from small grids; the eager reference runs three kernels, a fused kernel one. Answers use the
benchmark's raw-CUDA path (benchmark.cuda_raw: pycuda compiles a kernel in about 0.65 s, against
about a minute for a cold load_inline extension) and the benchmark's own `cuda-raw` prompt; a
correct answer compiles one kernel per act and passes a and b as kernel arguments, so answers stay
short and every task of an act shares one kernel source. The held-out splits are new (act, a, b) combinations
of values the SFT corpus contains, so passing them takes reading the task, not recalling it. The
kernel is a grid-stride loop whose block count is an argument of the call, and the SFT answers draw
it uniformly from 16 to 4096 blocks: every one is correct, the small ones are several times slower
than eager PyTorch and the large ones about as fast as the memory allows, so the SFT policy has no
preference and only the speed term of the verifier's reward can teach one.

`--tiny` runs the same phases on CPU with a 2-layer model, a handful of steps, and a programmatic
stand-in for the verifier (it reads the act and the constants out of the answer), because CPU
machines cannot run CUDA candidates; it shows the script works, and nothing about learning.

Writes rl_demo.json (every number, per-task results included, written after each phase, so a run
cut short keeps what it had), rl_demo.md (the tables) and learning_curves.svg to --out, and prints
the tables.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import hashlib
import json
import logging
import math
import operator
import os
import platform
import random
import shutil
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import torch
from synthetic import build_model, build_tokenizer, save_model_folder
from transformers import TrainerCallback

from benchmark.environment import gpu_name
from benchmark.evaluate.harness import EvalConfig
from benchmark.evaluate.timing import TimingConfig
from benchmark.extract import extract_code
from benchmark.prompts import PromptBuilder, PromptConfig
from benchmark.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    Interval,
    quantile,
    resample_weights,
)
from benchmark.task import Task, load_task
from benchmark.verdict import Correctness, Status, Verdict
from benchmark.verify.reward import shaped_reward
from benchmark.verify.verifier import VerifierConfig
from leaderboard import chart
from trainers.model import save_final_model
from trainers.rl import KernelRLTrainer
from trainers.rl_config import KernelRLConfig
from trainers.rl_rewards import FunctionRewards, Score, VerifierRewards
from trainers.sft import KernelSFTTrainer
from trainers.sft_config import KernelSFTConfig

log = logging.getLogger("rl_demo")

# act: (CUDA expression of v, PyTorch expression of z)
ACTS = {
    "relu": ("fmaxf(v, 0.0f)", "torch.relu({z})"),
    "sigmoid": ("1.0f / (1.0f + expf(-v))", "torch.sigmoid({z})"),
    "tanh": ("tanhf(v)", "torch.tanh({z})"),
    "silu": ("v / (1.0f + expf(-v))", "torch.nn.functional.silu({z})"),
    "square": ("v * v", "torch.square({z})"),
    "abs": ("fabsf(v)", "torch.abs({z})"),
}
A_VALUES = (0.5, 1.5, 2.0, 2.5, 3.0, -1.0, -1.5, -2.0)
B_VALUES = (-1.0, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0, 1.5)
# --sft-values wide: every nonzero multiple of 0.25 within [-3, 3] for a and [-2, 2] for b (the grid's among them)
WIDE_A_VALUES = tuple(k / 4 for k in range(-12, 13) if k)
WIDE_B_VALUES = tuple(k / 4 for k in range(-8, 9) if k)
SFT_VALUES = {"grid": (A_VALUES, B_VALUES), "wide": (WIDE_A_VALUES, WIDE_B_VALUES)}
SFT_ROWS_PER_TASK = {"grid": 3, "wide": 1}  # about 1,100 and 2,300 rows
BLOCKS = (16, 64, 256, 1024, 4096)  # launch sizes of the SFT answers, drawn uniformly: the speed RL can learn
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


# ---------------------------------------------------------------------------------------- the task family


@dataclasses.dataclass(frozen=True)
class Spec:
    act: str
    a: float
    b: float

    def expression(self) -> str:
        sign = "-" if self.b < 0 else "+"
        return ACTS[self.act][1].format(z=f"{self.a} * x {sign} {abs(self.b)}")

    def task_source(self) -> str:
        return f'''"""y = {self.expression()}: one elementwise pass over an fp32 tensor."""

import torch
import torch.nn as nn

SOLBENCH = {{"level": 1, "tags": ["elementwise", "generated"], "dtype": "float32", "difficulty": 1}}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return {self.expression()}


def get_inputs():
    return [torch.randn(1024, 4096)]


def get_init_inputs():
    return []


def get_alt_inputs():
    return [[torch.randn(3, 1001)]]
'''


def kernel_source(act: str) -> str:
    """The one CUDA source per act (raw CUDA through benchmark.cuda_raw, compiled by pycuda in about
    0.65 s): a, b and the launch size are arguments, so every task of an act shares it."""
    return f'''import torch

from benchmark.cuda_raw import compile_cuda

SOURCE = r"""
__global__ void k(const float* __restrict__ x, float* __restrict__ y, float a, float b, long long n) {{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{
        float v = a * x[i] + b;
        y[i] = {ACTS[act][0]};
    }}
}}
"""
k = compile_cuda(SOURCE).kernel("k", "PPffq")
'''


def solution(
    spec: Spec, blocks: int = 1024, act: str | None = None, a: float | None = None, b: float | None = None
) -> str:
    """A candidate file; the keyword overrides make the wrong answers of the repair dialogues."""
    act = act or spec.act
    a = spec.a if a is None else a
    b = spec.b if b is None else b
    return (
        kernel_source(act)
        + f"""

class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        k(x, y, {a}, {b}, x.numel(), grid=({blocks},), block=(256,))
        return y
"""
    )


def answer(spec: Spec, code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def family(seed: int, n_rl: int, n_test: int, sft_values: str = "grid") -> dict[str, list[Spec]]:
    """The test and RL tasks, drawn from the grid (the same for either --sft-values), and the SFT tasks:
    the rest of the grid, or every combination of the wide values not held out (`SFT_VALUES`), in a
    seeded order."""
    grid = [Spec(act, a, b) for act in ACTS for a in A_VALUES for b in B_VALUES]
    random.Random(seed).shuffle(grid)
    held_out = grid[: n_test + n_rl]
    if sft_values == "grid":
        sft = grid[n_test + n_rl :]
    else:
        a_values, b_values = SFT_VALUES[sft_values]
        sft = [Spec(act, a, b) for act in ACTS for a in a_values for b in b_values]
        sft = [spec for spec in sft if spec not in held_out]
        random.Random(seed).shuffle(sft)
    return {"test": held_out[:n_test], "rl": held_out[n_test:], "sft": sft}


def write_tasks(splits: dict[str, list[Spec]], root: Path) -> dict[str, tuple[Task, Spec]]:
    """Task files under root/<split>/; ids are opaque (ew_017), so the task text is the only clue."""
    tasks = {}
    counter = 0
    for split, specs in splits.items():
        folder = root / split
        folder.mkdir(parents=True, exist_ok=True)
        for spec in specs:
            path = folder / f"ew_{counter:03d}.py"
            counter += 1
            path.write_text(spec.task_source())
            task = load_task(path, root=root)
            tasks[task.task_id] = (task, spec)
    return tasks


# ---------------------------------------------------------------------------------------- the SFT corpus


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


# ---------------------------------------------------------------------------------------- rewards


def read_answer(code: str) -> tuple[str | None, float | None, float | None, int | None]:
    """(act, a, b, blocks) of an answer, read from its kernel source and ModelNew's launch; None
    where unreadable."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None, None, None, None
    act = next((k for k in ACTS if kernel_source(k).strip() in code), None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "k":
            grid = next((kw.value for kw in node.keywords if kw.arg == "grid"), None)
            try:
                a, b = (ast.literal_eval(arg) for arg in node.args[2:4])
                blocks = ast.literal_eval(grid)[0] if grid is not None else None
            except (ValueError, TypeError, IndexError):
                return act, None, None, None
            if all(isinstance(v, int | float) for v in (a, b)) and isinstance(blocks, int):
                return act, float(a), float(b), blocks
    return act, None, None, None


def programmatic_judge(tasks: dict, builder: PromptBuilder):
    """The --tiny stand-in for the verifier: pass iff the answer holds the task's act kernel and
    constants. Statuses and rewards follow the verifier's shaping; no code is run."""

    def judge(row: dict, text: str, turn: int) -> Score:
        task, spec = tasks[row["task_id"]]
        code = extract_code(text).code
        if code is None:
            status, error = Status.NO_CODE, "no code block defines ModelNew"
        else:
            act, a, b, _ = read_answer(code)
            if act is None:
                status, error = Status.COMPILE_ERROR, "kernel source not recognised"
            elif (act, a, b) == (spec.act, spec.a, spec.b):
                status, error = Status.PASS, None
            else:
                status, error = Status.INCORRECT, "output differs from the reference"
        verdict = Verdict.unmeasured(status, error, task_id=task.task_id, turn=turn)
        feedback = builder.next_turn((), text, verdict, 3)[-1]["content"]
        return Score(shaped_reward(verdict), status.value, error=error, feedback=feedback, code=code)

    return judge


# ---------------------------------------------------------------------------------------- phases


def generate(
    model, tokenizer, prompts: list[list[dict]], n: int, temperature: float, max_new: int, seed: int
):
    """n sampled completions per prompt with HF generate (left padding), grouped per prompt."""
    tokenizer.padding_side = "left"
    device = next(model.parameters()).device
    texts = [tokenizer.apply_chat_template(p, tokenize=False, add_generation_prompt=True) for p in prompts]
    torch.manual_seed(seed)
    model.eval()
    out = []
    per_batch = max(1, 64 // n)
    with torch.no_grad():
        for start in range(0, len(texts), per_batch):
            enc = tokenizer(
                texts[start : start + per_batch], return_tensors="pt", padding=True, add_special_tokens=False
            )
            enc = {k: v.to(device) for k, v in enc.items()}
            ids = model.generate(
                **enc,
                do_sample=True,
                temperature=temperature,
                top_p=0.95,
                max_new_tokens=max_new,
                num_return_sequences=n,
                pad_token_id=tokenizer.pad_token_id,
                eos_token_id=tokenizer.eos_token_id,
            )
            decoded = tokenizer.batch_decode(ids[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)
            out += [decoded[i : i + n] for i in range(0, len(decoded), n)]
    return out


METRICS = ("pass_rate", "speedup_geomean", "fast_1")


def task_sums(samples: list) -> list[float]:
    """A task's [samples, passed, passed faster than eager, log speedup summed over timed passes,
    timed passes], from its [passed, speedup] samples: summed over any tasks, they give every metric
    (`metric_values`), so a bootstrap resample of tasks does too."""
    logs = [math.log(speedup) for passed, speedup in samples if passed and speedup]
    fast = sum(1 for passed, speedup in samples if passed and speedup is not None and speedup > 1.0)
    return [len(samples), sum(1 for passed, _ in samples if passed), fast, sum(logs), len(logs)]


def metric_values(sums: list[float]) -> dict[str, float | None]:
    """Pass rate, speedup (geometric mean over passing samples; None: none timed) and fast_1 of summed
    `task_sums`."""
    samples, passed, fast, logs, timed = sums
    return {
        "pass_rate": passed / samples,
        "speedup_geomean": math.exp(logs / timed) if timed else None,
        "fast_1": fast / samples,
    }


def split_metrics(per_task: dict[str, list]) -> dict:
    """The metrics of a split from its per-task samples, as `evaluate` reports them."""
    sums = [sum(col) for col in zip(*map(task_sums, per_task.values()), strict=True)]
    return {"samples": sums[0], **metric_values(sums)}


def evaluate(model, tokenizer, tasks: dict, builder, source, split: str, args) -> dict:
    """Pass rate, speedup (geometric mean over passing samples) and fast_1 on one split, turn 1, and
    the [passed, speedup] of every sample by task ("per_task"), which the paired intervals resample.
    The test split, on which every claim is made, has --test-samples a task; the RL split, which only
    the gate reads, --eval-samples."""
    chosen = [(t, s) for t, s in tasks.values() if t.task_id.startswith(split + "/")]
    prompts = [list(builder.first_turn(t)) for t, _ in chosen]
    samples = args.test_samples if split == "test" else args.eval_samples
    completions = generate(model, tokenizer, prompts, samples, args.eval_temperature, args.max_new, args.seed)
    rows = [{"task_id": t.task_id} for (t, _), group in zip(chosen, completions, strict=True) for _ in group]
    texts = [c for group in completions for c in group]
    scores = source.score(rows, texts, [1] * len(texts))
    per_task: dict[str, list] = {}
    for row, s in zip(rows, scores, strict=True):
        per_task.setdefault(row["task_id"], []).append([s.passed, s.speedup])
    statuses, blocks = {}, {}
    for s in scores:
        statuses[s.status] = statuses.get(s.status, 0) + 1
        launch = read_answer(s.code)[3] if s.passed and s.code else None
        if launch is not None:
            blocks[launch] = blocks.get(launch, 0) + 1
    return {
        **split_metrics(per_task),
        "mean_reward": sum(s.reward for s in scores) / len(scores),
        "statuses": statuses,
        "blocks_of_passing_answers": dict(sorted(blocks.items())),
        "per_task": per_task,
    }


@dataclasses.dataclass(frozen=True)
class Difference:
    """after - before of one metric with its paired 95% interval; a change is claimed only where the
    interval excludes zero."""

    value: float | None  # None: the metric is undefined on a side (no timed pass)
    interval: Interval | None

    @property
    def improved(self) -> bool:
        return self.interval is not None and self.interval.lo > 0

    @property
    def worse(self) -> bool:
        return self.interval is not None and self.interval.hi < 0

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "interval": self.interval.to_list() if self.interval else None,
            "improved": self.improved,
            "worse": self.worse,
        }


def paired_differences(
    before: dict[str, list], after: dict[str, list], resamples: int = BOOTSTRAP_RESAMPLES
) -> dict[str, Difference]:
    """after - before of every metric on the same tasks (`evaluate`'s per_task), with a percentile
    bootstrap interval (benchmark.stats) in which each resample draws the tasks once for both sides,
    so what the drawn tasks share (how hard they are) cancels: `seed_task_differences` with one run a
    side. A resample on which a side has no timed pass gives no speedup difference and is left out."""
    return seed_task_differences([before], [after], resamples)


def drawn_sums(runs: list[list[list[float]]], seed_counts: list[int], task_counts: list[int]) -> list[float]:
    """`task_sums` (runs[seed][task]) summed over the drawn seeds and tasks, each as often as drawn."""
    per_seed = [
        [sum(map(operator.mul, task_counts, col)) for col in zip(*run, strict=True)]
        for c, run in zip(seed_counts, runs, strict=True)
        if c
    ]
    drawn = [c for c in seed_counts if c]
    return [sum(map(operator.mul, drawn, col)) for col in zip(*per_seed, strict=True)]


def seed_task_differences(
    base: list[dict[str, list]], other: list[dict[str, list]], resamples: int = BOOTSTRAP_RESAMPLES
) -> dict[str, Difference]:
    """other - base of every metric, each side one or more runs (training seeds) evaluated on the same
    tasks (`evaluate`'s per_task), with a two-level percentile bootstrap interval: each resample draws
    each side's seeds with replacement, independently, then the tasks with replacement, the same for
    both sides (paired over tasks), and takes the difference of the metric over the drawn seeds and
    tasks. The seed draw carries the variance between training runs into the interval; with one run a
    side it draws nothing and the interval is over tasks alone (`paired_differences`). A resample on
    which a side has a metric undefined (no timed pass) is left out of that metric's interval."""
    tasks = sorted(base[0])
    for run in base + other:
        if run.keys() != base[0].keys():
            raise ValueError(f"runs evaluated other tasks: {tasks} vs {sorted(run)}")
    sides = [[[task_sums(run[t]) for t in tasks] for run in runs] for runs in (base, other)]
    task_draws = resample_weights(len(tasks), resamples, BOOTSTRAP_SEED)
    seed_draws = [
        resample_weights(len(runs), resamples, BOOTSTRAP_SEED + 1 + i) for i, runs in enumerate(sides)
    ]
    drawn = [
        [drawn_sums(runs, draws[r], task_draws[r]) for runs, draws in zip(sides, seed_draws, strict=True)]
        for r in range(resamples)
    ]
    once = [drawn_sums(runs, [1] * len(runs), [1] * len(tasks)) for runs in sides]
    tail = (1.0 - CONFIDENCE) / 2
    out = {}
    for metric in METRICS:

        def difference(pair: list[list[float]], metric: str = metric) -> float | None:
            b, a = (metric_values(sums)[metric] for sums in pair)
            return None if a is None or b is None else a - b

        value = difference(once)
        values = [v for v in map(difference, drawn) if v is not None] if value is not None else []
        interval = Interval(quantile(values, tail), quantile(values, 1.0 - tail)) if values else None
        out[metric] = Difference(value, interval)
    return out


def differences(before: dict, after: dict) -> dict:
    """An arm's rl_demo.json "differences": per split, per metric, after - before RL (an SFT arm: the
    arm - plain) with its interval."""
    return {
        split: {
            m: d.to_dict()
            for m, d in paired_differences(before[split]["per_task"], result["per_task"]).items()
        }
        for split, result in after.items()
    }


class Deadline(TrainerCallback):
    """Stops training at a wall-clock deadline, so the whole demonstration keeps to its budget."""

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.hit = False

    def on_step_end(self, args, state, control, **kwargs):
        if time.monotonic() > self.deadline:
            control.should_training_stop = True
            self.hit = True


AFTER_EVAL_RESERVE = 3.0  # the first arm keeps this multiple of the before-RL evaluation for its own: on
# the H200 an after-RL evaluation ran more than twice as long as the before-RL one (still running at
# 32 s against 15 s when the stage's limit killed it), its answers being new kernels to build


def arm_deadline(
    deadline: float, eval_cost: float, full_arms_s: list[float], now: float, first_s: float = 0.0
) -> float | None:
    """When an arm stops training: the run's deadline less a reserve for the arm's own evaluation, so
    an arm runs all its steps unless it is slower than the time left; None (skip it rather than cut
    it) when that time is shorter than the quickest arm that ran all its steps, or before any has, than
    first_s (--arm-s). Arms cut at different steps would not compare."""
    end = deadline - eval_cost
    return end if end - now > min(full_arms_s, default=first_s) else None


CURVE_KEYS = (
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
    name: str, overrides: dict, model_dir: Path, tokenizer, dataset, source, args, deadline: float
) -> tuple:
    config = KernelRLConfig(
        output_dir=str(args.out / "arms" / name),
        use_cpu=args.tiny,
        bf16=on_gpu(args),
        gradient_checkpointing=False,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        disable_tqdm=True,
        seed=args.seed,
        per_device_train_batch_size=args.group * args.prompts_per_step // 2,
        steps_per_generation=2,  # two optimizer steps per generation: the second is off-policy
        num_generations=args.group,
        max_completion_length=args.max_new,
        max_steps=2 * args.rl_generations,
        learning_rate=args.rl_lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        temperature=0.9,
        top_p=0.95,
        single_turn_steps=2,  # stage 1: the first generation is single-turn; stage 2: PrimeEcho
        primeecho_turns=3,
        bdr_replay_prob=args.bdr_prob,
        mirrorpop_delta=args.mirrorpop_delta,
        **overrides,
    )
    stop = Deadline(deadline)
    trainer = KernelRLTrainer(
        model=str(model_dir),
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        reward_source=source,
        callbacks=[stop],
    )
    start = time.monotonic()
    trainer.train()
    curve = [
        {"step": e["step"], **{k: e[k] for k in CURVE_KEYS if k in e}}
        for e in trainer.state.log_history
        if "step" in e and "loss" in e
    ]
    info = {
        "steps": trainer.state.global_step,
        "generations": trainer._generation_index,
        "seconds": round(time.monotonic() - start, 1),
        "stopped_by_deadline": stop.hit,
        "bdr": {"pushed": trainer.retry_buffer.pushed, "replayed": trainer.retry_buffer.replayed},
        "curve": curve,
    }
    return trainer.accelerator.unwrap_model(trainer.model), info


@dataclasses.dataclass(frozen=True)
class SFTRun:
    """One SFT training: where its model is, and the loss summary rl_demo.json records."""

    model_dir: Path
    steps: int
    loss_first: float
    loss_last: float
    nll_last: float | None  # CuSeT's unweighted loss (cuset/nll), the one comparable with plain SFT's
    seconds: float
    stopped_by_deadline: bool
    weights: str | None = None  # `weights_digest` of the model: equal digests, one model

    def summary(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "model_dir"}


@contextlib.contextmanager
def reproducible_training():
    """Training in which one recipe and seed make the same model bit for bit on one GPU model and
    software stack. Without it they did not (one seed passed 94%, 19% and 9% of the test split in three
    H200 runs), so the arms of calls on fresh machines never started from one model. Ops that have
    only a nondeterministic CUDA kernel warn rather than fail (torch lists NLLLoss, whose reduction
    here runs in one block); attention runs in the math kernel, since the flash and memory-efficient
    backward kernels are deterministic only in the strict mode. cuBLAS reads its workspace setting
    when the process makes its handle, at its first matmul on the GPU: this process's is in training."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    before = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        with sdpa_kernel(SDPBackend.MATH):
            yield
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])


def weights_digest(model_dir: Path) -> str:
    """A hash of the model's tensors (name, dtype, shape and bytes, in name order): two trainings made
    one model where their digests agree, which is how calls on different machines show that their
    arms started from the same SFT model."""
    from safetensors import safe_open

    h = hashlib.sha256()
    for path in sorted(Path(model_dir).glob("*.safetensors")):
        with safe_open(str(path), framework="pt") as f:
            for name in sorted(f.keys()):
                t = f.get_tensor(name).contiguous()
                h.update(f"{name}:{t.dtype}:{tuple(t.shape)}".encode())
                h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:16]


def train_sft(
    args,
    tokenizer,
    corpus: list[dict],
    overrides: dict | None = None,
    folder: str = "sft",
    deadline=None,
    seed: int | None = None,
) -> SFTRun:
    """SFT from the seeded init; `overrides` are KernelSFTConfig fields (an SFT arm's CuSeT switches),
    so arms differ in them alone. `seed` (default --seed) seeds the init and the trainer (its data
    order) alone: the corpus is the caller's. A deadline stops training there (`Deadline`)."""
    from datasets import Dataset

    seed = args.seed if seed is None else seed
    init_dir = save_model_folder(
        build_model(len(tokenizer), seed=seed, **args.model_shape),
        tokenizer,
        args.out / "init" / f"seed-{seed}",
    )
    config = KernelSFTConfig(
        output_dir=str(args.out / folder),
        use_cpu=args.tiny,
        bf16=on_gpu(args),
        gradient_checkpointing=False,
        report_to="none",
        logging_steps=max(1, args.sft_steps // 10),
        save_strategy="no",
        disable_tqdm=True,
        max_length=4096,
        per_device_train_batch_size=args.sft_batch,
        learning_rate=args.sft_lr,
        lr_scheduler_type="cosine",
        warmup_steps=max(1, args.sft_steps // 20),
        max_steps=args.sft_steps,
        seed=seed,
        dataloader_num_workers=0,
        **(overrides or {}),
    )
    stop = Deadline(math.inf if deadline is None else deadline)
    trainer = KernelSFTTrainer(
        model=str(init_dir),
        args=config,
        train_dataset=Dataset.from_list(corpus),
        processing_class=tokenizer,
        callbacks=[stop],
    )
    start = time.monotonic()
    with reproducible_training():
        trainer.train()
    seconds = round(time.monotonic() - start, 1)
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    nll = [e["cuset/nll"] for e in trainer.state.log_history if "cuset/nll" in e]
    model_dir = save_final_model(trainer)
    return SFTRun(
        model_dir=model_dir,
        steps=trainer.state.global_step,
        loss_first=losses[0],
        loss_last=losses[-1],
        nll_last=nll[-1] if nll else None,
        seconds=seconds,
        stopped_by_deadline=stop.hit,
        weights=weights_digest(model_dir),
    )


# ---------------------------------------------------------------------------------------- SFT gate and cache

# by default, attempt k of the SFT gate (from 1) trains with --seed + SEED_STRIDE * (k - 1)
SEED_STRIDE = 1000
SFT_CACHE_VERSION = 3  # bump when train_sft or evaluate change what an entry holds: older entries then miss
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
# they started from one SFT model is the models' to say (`shared_sft_model`), not the gate's settings
RL_MERGE_SETTINGS = (
    *SFT_POOLED_SETTINGS,
    "rl_generations",
    "group",
    "prompts_per_step",
    "rl_lr",
    "bdr_prob",
    "mirrorpop_delta",
)
ENTRY_FILE = "entry.json"
MODEL_FOLDER = "model"


@dataclasses.dataclass(frozen=True)
class CacheUse:
    """An attempt's "cache" in rl_demo.json: the --sft-cache entry its model is, or would have been."""

    key: str
    dir: str
    reused: bool
    created: str | None  # ISO time the entry was written; None: not written (see not_written)
    not_written: str | None = None
    evaluated_again: str | None = None  # why a reused model's before-RL evaluation was made again


@dataclasses.dataclass(frozen=True)
class SFTAttempt:
    """One try of the SFT gate: its training run and the before-RL evaluation of its model, trained in
    the call or read from the cache (`cache`)."""

    number: int  # from 1
    seed: int  # the training seed (init and data order)
    run: SFTRun
    before: dict  # `evaluate` of the "rl" and "test" splits
    eval_s: float
    wall_s: float  # train_sft and the evaluation: what another attempt is expected to take
    cache: CacheUse | None = None
    gpu: str | None = None  # where the before-RL evaluation ran: speedups are that GPU's

    @property
    def rl_pass_rate(self) -> float:
        return self.before["rl"]["pass_rate"]

    def record(self) -> dict:
        """Its item of rl_demo.json's "sft_attempts"."""
        return {
            "attempt": self.number,
            "seed": self.seed,
            **self.run.summary(),
            "eval_s": self.eval_s,
            "wall_s": self.wall_s,
            "rl_pass_rate": self.rl_pass_rate,
            "test_pass_rate": self.before["test"]["pass_rate"],
            **({"cache": dataclasses.asdict(self.cache)} if self.cache else {}),
        }


@dataclasses.dataclass(frozen=True)
class GateResult:
    """What the SFT gate decided: rl_demo.json's "sft" holds these fields beside the kept attempt's
    loss summary."""

    gate: str  # "passed": the kept model meets the minimum; "failed": the best of those tried does not
    min_pass: float
    attempts_allowed: int
    attempts_made: int
    attempt: int  # the kept one
    seed: int  # its training seed
    rl_pass_rate: float  # its pass rate on the RL split
    stopped: str | None  # why the gate stopped short of a passing model (None where it passed)


@dataclasses.dataclass(frozen=True)
class SFTModel:
    """The SFT model every RL arm of a call starts from: its folder, rl_demo.json's "sft" record (the
    kept attempt's loss summary, its cache use and `GateResult`), every attempt's record and the kept
    model's before-RL evaluation."""

    model_dir: Path
    sft: dict
    attempts: list[dict]
    before: dict
    eval_s: float  # one before-RL evaluation: the reserve each arm keeps for its own (`arm_deadline`)

    @property
    def passed(self) -> bool:
        return self.sft["gate"] == "passed"


def no_time_for_attempt(attempts: list[SFTAttempt], deadline: float, now: float) -> str | None:
    """Why another SFT attempt cannot be trained (None: it can): the time left must hold one as long as
    the longest so far. Arms are not reserved for: a model that has learned the task comes first, and
    every attempt is cached, so a later call on the same machine runs the arms from it."""
    attempt_s = max(a.wall_s for a in attempts)
    left = deadline - now
    if left >= attempt_s:
        return None
    return f"budget: {left:.0f} s left, less than another attempt ({attempt_s:.0f} s)"


def add_time(args, key: str, seconds: float) -> None:
    """Add seconds to rl_demo.json's timing[key]: the gate's attempts sum into one figure each."""
    timing = args.results["timing"]
    timing[key] = round(timing.get(key, 0.0) + seconds, 1)


def train_attempt(args, tokenizer, corpus, tasks, builder, source, number: int, seed: int) -> SFTAttempt:
    """One attempt of the gate: SFT at the training seed, then its model evaluated on both splits."""
    start = time.monotonic()
    run = train_sft(
        args, tokenizer, corpus, folder="sft" if number == 1 else f"sft-attempt-{number}", seed=seed
    )
    eval_start = time.monotonic()
    before = evaluate_before(args, run.model_dir, tokenizer, tasks, builder, source)
    now = time.monotonic()
    add_time(args, "sft_s", eval_start - start)
    add_time(args, "eval_before_s", now - eval_start)
    return SFTAttempt(
        number, seed, run, before, round(now - eval_start, 1), round(now - start, 1), gpu=evaluation_gpu(args)
    )


def evaluate_before(args, model_dir: Path, tokenizer, tasks, builder, source) -> dict:
    """The before-RL evaluation of an SFT model: `evaluate` on the RL and the test split."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(model_dir).to("cuda" if on_gpu(args) else "cpu")
    return {
        split: evaluate(model, tokenizer, tasks, builder, source, split, args) for split in ("rl", "test")
    }


def on_gpu(args) -> bool:
    """Whether this call trains and evaluates on the GPU (--tiny runs on the CPU wherever it is)."""
    return torch.cuda.is_available() and not args.tiny


def evaluation_gpu(args) -> str | None:
    """The GPU this call's evaluations time candidates on (None on the CPU, --tiny included)."""
    return args.results["environment"]["gpu"] if on_gpu(args) else None


def evaluated_here(
    args, attempt: SFTAttempt, tokenizer, tasks, builder, source, cache: SFTCache
) -> SFTAttempt:
    """A cached attempt whose before-RL evaluation ran on this call's GPU: as it is, or, where it ran on
    another, evaluated again here and stored so (the model is reused). Speedups are the GPU's, and an
    arm's after-RL evaluation runs here, so its differences need a before-RL evaluation from here too."""
    here = evaluation_gpu(args)
    if attempt.gpu == here:
        return attempt
    why = f"its before-RL evaluation ran on {attempt.gpu or 'an unrecorded device'}, this call's on {here or 'the CPU'}"
    log.warning(
        "SFT attempt %d (training seed %d): %s: evaluating it again", attempt.number, attempt.seed, why
    )
    start = time.monotonic()
    before = evaluate_before(args, attempt.run.model_dir, tokenizer, tasks, builder, source)
    eval_s = round(time.monotonic() - start, 1)
    add_time(args, "eval_before_s", eval_s)
    stored = cache.store(dataclasses.replace(attempt, before=before, eval_s=eval_s, gpu=here))
    return dataclasses.replace(
        stored, cache=dataclasses.replace(stored.cache, reused=True, evaluated_again=why)
    )


def train_gated(
    args, tokenizer, corpus, tasks, builder, source, deadline: float, cache: SFTCache | None
) -> SFTModel:
    """SFT and the before-RL evaluation, tried again with the next training seed (--sft-seeds) while
    the model passes less than --sft-min-pass of the RL split. Keeps the first model that meets the
    minimum, else the best by RL-split pass rate (the earliest of equals), with a warning. Training
    seeds differ widely (plain SFT passed 0% to 53% of the test split over six of them), and a model
    that fails every RL task gives RL nothing to learn from. Choosing on the RL split is sound: RL
    trains on those tasks anyway, and the test split, on which every claim is made, plays no part in
    the choice. With a cache every attempt is read from it where it is there and stored as soon as
    it is made, so a call cut short leaves its attempts to the next one."""
    attempts: list[SFTAttempt] = []
    stopped = None
    for number, seed in enumerate(args.sft_seeds, 1):
        start = time.monotonic()
        attempt = cache.load(number, seed) if cache else None
        if attempt is not None:
            add_time(args, "sft_cache_load_s", time.monotonic() - start)
            attempt = evaluated_here(args, attempt, tokenizer, tasks, builder, source, cache)
        else:
            stopped = no_time_for_attempt(attempts, deadline, start) if attempts else None
            if stopped:
                log.warning("SFT gate: no attempt %d (%s)", number, stopped)
                break
            attempt = train_attempt(args, tokenizer, corpus, tasks, builder, source, number, seed)
            if cache:
                attempt = cache.store(attempt)
        attempts.append(attempt)
        args.results["sft_attempts"] = [a.record() for a in attempts]
        write_json(args)
        if attempt.rl_pass_rate >= args.sft_min_pass:
            break
        log.warning(
            "SFT attempt %d (training seed %d) passes %.0f%% of the RL split, below the minimum %.0f%%",
            number,
            seed,
            100 * attempt.rl_pass_rate,
            100 * args.sft_min_pass,
        )
    passed = attempts[-1].rl_pass_rate >= args.sft_min_pass
    # chosen on the RL split, which RL trains on anyway; the test split plays no part in the choice
    kept = attempts[-1] if passed else max(attempts, key=lambda a: a.rl_pass_rate)
    if not passed:
        stopped = stopped or f"all {len(attempts)} attempts below the minimum"
        log.warning(
            "SFT gate failed (%s): the best attempt is %d (%.0f%% of the RL split, minimum %.0f%%)",
            stopped,
            kept.number,
            100 * kept.rl_pass_rate,
            100 * args.sft_min_pass,
        )
    gate = GateResult(
        gate="passed" if passed else "failed",
        min_pass=args.sft_min_pass,
        attempts_allowed=len(args.sft_seeds),
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


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def tokenizer_digest(tokenizer) -> str:
    """The tokenizer's vocabulary, merges, special tokens and chat template, hashed: `main` trains it
    on the corpus, and an entry is reused only with the tokenizer its model was trained with. Its
    padding and truncation state is left out: batching sets it (`generate` pads on the left)."""
    backend = json.loads(tokenizer.backend_tokenizer.to_str())
    backend.pop("padding", None)
    backend.pop("truncation", None)
    return digest(
        json.dumps(
            [backend, tokenizer.chat_template, tokenizer.eos_token, tokenizer.pad_token], sort_keys=True
        )
    )


def sft_key_material(args, corpus: list[dict], tokenizer, tasks: dict, builder) -> dict:
    """Everything but the training seed that determines an attempt's model and its before-RL
    evaluation, which the cache key hashes (`SFTCache.material`): the SFT_POOLED_SETTINGS and digests
    of the corpus, the tokenizer and the evaluated tasks and prompts, so that a change to the task
    family or the prompt template misses the cache even where the settings are the same. Code changes
    to training or evaluation bump SFT_CACHE_VERSION."""
    evaluated = sorted(
        [task.task_id, spec.task_source(), list(builder.first_turn(task))]
        for task, spec in tasks.values()
        if not task.task_id.startswith("sft/")
    )
    material = {
        "version": SFT_CACHE_VERSION,
        "settings": {k: getattr(args, k) for k in SFT_POOLED_SETTINGS},
        "corpus": digest(json.dumps(corpus, sort_keys=True)),
        "tokenizer": tokenizer_digest(tokenizer),
        "tasks": digest(json.dumps(evaluated)),
    }
    return json.loads(json.dumps(material))  # as an entry's JSON reads back


def sft_cache_key(material: dict) -> str:
    return digest(json.dumps(material, sort_keys=True))[:16]


class UnusableEntry(Exception):
    """What makes a cache entry unusable (it is then trained afresh and replaced)."""


ENTRY_FIELDS = ("created", "material", "run", "before", "eval_s", "wall_s")


def read_sft_entry(folder: Path, material: dict, number: int, seed: int) -> SFTAttempt:
    """The attempt stored in folder, as attempt `number` of this call; raises UnusableEntry (or
    whatever loading its model raised) where the entry is partial, corrupt or of other settings."""
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

    path = folder / ENTRY_FILE
    if not path.is_file():
        raise UnusableEntry(f"no {ENTRY_FILE}")
    entry = json.loads(path.read_text())
    missing = [k for k in ENTRY_FIELDS if k not in entry]
    if missing:
        raise UnusableEntry(f"{ENTRY_FILE} lacks {', '.join(missing)}")
    if entry["material"] != material:
        changed = sorted(
            k
            for k in material.keys() | entry["material"].keys()
            if entry["material"].get(k) != material.get(k)
        )
        raise UnusableEntry(f"made with other {', '.join(changed)} than this run's")
    if sorted(entry["before"]) != ["rl", "test"]:
        raise UnusableEntry(f"its before-RL evaluation covers {sorted(entry['before'])}, not rl and test")
    model_dir = folder / MODEL_FOLDER
    AutoModelForCausalLM.from_pretrained(model_dir)  # raises where the model files are missing or damaged
    # the class `build_tokenizer` makes: AutoTokenizer reads the model's config and gives Qwen2's
    # pre-tokenizer instead of the one trained here
    if tokenizer_digest(PreTrainedTokenizerFast.from_pretrained(model_dir)) != material["tokenizer"]:
        raise UnusableEntry("its saved tokenizer is not this run's")
    cache = CacheUse(folder.name, str(folder), reused=True, created=entry["created"])
    run = SFTRun(model_dir=model_dir, **entry["run"])
    return SFTAttempt(
        number, seed, run, entry["before"], entry["eval_s"], entry["wall_s"], cache, gpu=entry.get("gpu")
    )


def write_sft_entry(folder: Path, material: dict, attempt: SFTAttempt) -> str:
    """Store the attempt as folder, atomically: built in a temporary folder beside it, then renamed, so
    a call killed half-way leaves no entry (a leftover dot-folder is never read); an unusable entry
    already there is replaced. Returns the entry's creation time (ISO, UTC)."""
    cache, key = folder.parent, folder.name
    cache.mkdir(parents=True, exist_ok=True)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", suffix=".tmp", dir=cache))
    try:
        shutil.copytree(attempt.run.model_dir, tmp / MODEL_FOLDER)
        entry = {
            "key": key,
            "created": created,
            "material": material,
            "run": attempt.run.summary(),
            "before": attempt.before,
            "eval_s": attempt.eval_s,
            "wall_s": attempt.wall_s,
            "gpu": attempt.gpu,
        }
        (tmp / ENTRY_FILE).write_text(json.dumps(entry, indent=2, default=str))
        if folder.exists():
            stale = cache / f".{key}.{uuid.uuid4().hex}.stale"
            folder.rename(stale)
            tmp.rename(folder)
            shutil.rmtree(stale, ignore_errors=True)
        else:
            tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # already gone where the rename succeeded
    return created


@dataclasses.dataclass(frozen=True)
class SFTCache:
    """--sft-cache: one entry per gate attempt, under a hash of everything that determines its model
    and before-RL evaluation (`material`) and its training seed, so calls on one machine with the same
    settings never train a seed twice, whichever seeds each tries and wherever an earlier one stopped."""

    root: Path
    material: dict  # `sft_key_material`: all but the seed

    def folder(self, seed: int) -> tuple[Path, dict]:
        material = {**self.material, "seed": seed}
        return self.root / sft_cache_key(material), material

    def load(self, number: int, seed: int) -> SFTAttempt | None:
        """The stored attempt of this seed, or None where there is none or (with a warning) an
        unusable one."""
        folder, material = self.folder(seed)
        if not folder.exists():
            return None
        try:
            attempt = read_sft_entry(folder, material, number, seed)
        except Exception as e:  # noqa: BLE001 - whatever is wrong with an entry, it is trained afresh
            log.warning("SFT cache entry %s ignored, training afresh: %s: %s", folder, type(e).__name__, e)
            return None
        log.info("SFT attempt %d (training seed %d) from the cache entry %s", number, seed, folder)
        return attempt

    def store(self, attempt: SFTAttempt) -> SFTAttempt:
        """The attempt, written to the cache, with its cache use (why not, where writing failed)."""
        folder, material = self.folder(attempt.seed)
        try:
            use = CacheUse(folder.name, str(folder), False, write_sft_entry(folder, material, attempt))
        except OSError as e:
            log.warning("SFT attempt %d not cached in %s: %s", attempt.number, folder, e)
            use = CacheUse(
                folder.name, str(folder), False, None, f"writing it failed: {type(e).__name__}: {e}"
            )
        return dataclasses.replace(attempt, cache=use)


def sft_model(args, tokenizer, corpus, tasks, builder, source, deadline: float) -> SFTModel:
    """The arms' SFT model, through the gate (`train_gated`), each attempt from or into --sft-cache
    where one is given. Records "sft", "sft_attempts" and "before"."""
    cache = None
    if args.sft_cache is not None:
        cache = SFTCache(args.sft_cache, sft_key_material(args, corpus, tokenizer, tasks, builder))
    chosen = train_gated(args, tokenizer, corpus, tasks, builder, source, deadline, cache)
    args.results["sft"] = chosen.sft
    args.results["sft_attempts"] = chosen.attempts
    args.results["before"] = chosen.before
    write_json(args)
    return chosen


# ---------------------------------------------------------------------------------------- reporting


def write_json(args) -> None:
    (args.out / "rl_demo.json").write_text(json.dumps(args.results, indent=2, default=str))


def fmt(v, pct=False) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.0f}%" if pct else f"{v:.2f}"


def fmt_difference(d: dict | None, pct: bool) -> str:
    """A difference cell: value [lo, hi] (percentage points where pct) and what the interval shows."""
    if not d or d["value"] is None:
        return "-"
    scale, digits, unit = (100, 0, " pp") if pct else (1, 2, "")
    value = f"{scale * d['value']:+.{digits}f}{unit}"
    if d["interval"] is None:
        return f"{value} (no interval)"
    lo, hi = (f"{scale * x:+.{digits}f}" for x in d["interval"])
    mark = "improved" if d["improved"] else "worse" if d["worse"] else "no change shown"
    return f"{value} [{lo}, {hi}] {mark}"


def difference_row(label: str, test: dict) -> str:
    """A row of a differences table: test pass, speedup and fast_1, each with its interval."""
    return (
        f"| {label} | {fmt_difference(test.get('pass_rate'), True)} "
        f"| {fmt_difference(test.get('speedup_geomean'), False)} | {fmt_difference(test.get('fast_1'), True)} |"
    )


def why_not_run(arm: dict) -> str:
    return arm.get("error") or (f"skipped ({arm['skipped']})" if "skipped" in arm else "not run")


def arm_label(name: str, arm: dict) -> str:
    """An arm's name, with the call it ran in where a merged report holds several."""
    return f"{name} (call {arm['call']})" if "call" in arm else name


CLAIM_RULE = "A change (improved, worse) is claimed only where the 95% interval excludes zero; "


TASKS_ONLY = "over tasks only: training variance not included"


def seeds_cell(n_arm: int, n_plain: int) -> str:
    """The seeds (arm / plain) behind a difference, and what its interval leaves out."""
    if n_arm == n_plain == 1:
        return f"1 / 1 ({TASKS_ONLY})"
    note = " (one seed on a side: its training variance not included)" if 1 in (n_arm, n_plain) else ""
    return f"{n_arm} / {n_plain}{note}"


def sft_tables(results: dict) -> str:
    """rl_demo.md of --sft-arms: each run's loss and test metrics, each arm's over its seeds (with
    the range of pass, the training variance), then its difference from plain over seeds and tasks."""
    arms = results["sft_arms"]
    lines = [
        "| arm | training seed | SFT steps | final loss | test pass | test speedup | test fast_1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, arm in arms.items():
        for seed, run in arm["runs"].items():
            label = f"{seed} (call {run['call']})" if "call" in run else seed
            if "eval" not in run:
                lines.append(f"| {name} | {label} | {why_not_run(run)} | | | | |")
                continue
            sft, test = run["sft"], run["eval"]["test"]
            loss = sft["loss_last"] if sft["nll_last"] is None else sft["nll_last"]
            lines.append(
                f"| {name} | {label} | {sft['steps']}{' *' if sft['stopped_by_deadline'] else ''} | {loss:.4f} "
                f"| {fmt(test['pass_rate'], True)} | {fmt(test['speedup_geomean'])} | {fmt(test['fast_1'], True)} |"
            )
    lines += [
        "",
        "Final loss: the unweighted NLL of the last logging window (a CuSeT arm's logged loss is weighted).",
    ]
    if any(r.get("sft", {}).get("stopped_by_deadline") for a in arms.values() for r in a["runs"].values()):
        lines.append("(*) stopped at the time budget before its last step.")
    lines += [
        "",
        "Over training seeds: pass and fast_1 the mean of the seeds', speedup the geometric mean over "
        "every timed pass; min-max: the spread of test pass between the arm's training runs.",
        "",
        "| arm | seeds | test pass | test pass min-max | test speedup | test fast_1 |",
        "|---|---|---|---|---|---|",
    ]
    for name, arm in arms.items():
        if "over_seeds" in arm:
            o = arm["over_seeds"]
            lo, hi = o["pass_rate_range"]
            lines.append(
                f"| {name} | {len(o['seeds'])} | {fmt(o['pass_rate'], True)} | {fmt(lo, True)}-{fmt(hi, True)} "
                f"| {fmt(o['speedup_geomean'])} | {fmt(o['fast_1'], True)} |"
            )
    n_tasks = (results.get("data") or {}).get("test", "?")
    lines += [
        "",
        f"arm - plain SFT (two-level paired bootstrap 95% over training seeds and {n_tasks} test tasks)",
        "",
        "| arm | seeds (arm / plain) | test pass | test speedup | test fast_1 |",
        "|---|---|---|---|---|",
    ]
    n_plain = len(arms.get("plain", {}).get("over_seeds", {}).get("seeds", []))
    for name, arm in arms.items():
        if "differences" in arm:
            seeds = seeds_cell(len(arm["over_seeds"]["seeds"]), n_plain)
            lines.append(difference_row(f"{name} | {seeds}", arm["differences"]["test"]))
    lines += [
        "",
        "Each resample draws each arm's training seeds with replacement, independently for the two arms, "
        "then the test tasks with replacement, the same tasks for both arms (paired over tasks), and takes "
        "the difference of the arms' metrics over the drawn seeds and tasks. With one seed an arm draws "
        f"nothing; with one on both sides the interval is {TASKS_ONLY}, though one GPU training run of "
        "a recipe can score far from another (docs/sft.md).",
        CLAIM_RULE + '"no change shown" means the interval contains zero, not that the arms are equal. '
        "Pass and fast_1 in percentage points, speedup as the difference of geometric means.",
    ]
    if "calls" in results:
        lines.append(
            "Merged from calls with the same --seed and task settings: runs pooled by (arm, training seed)."
        )
        lines += [f"- call {i}: {c['file']}" for i, c in enumerate(results["calls"], 1)]
    return "\n".join(lines) + "\n"


def sft_origin(sft: dict | None) -> str:
    """Where a call's SFT model came from (trained or a cache entry) and what its gate decided."""
    if not sft or "gate" not in sft:
        return "trained in the call (no gate or cache recorded)"
    cache = sft.get("cache")
    if cache is None:
        where = "trained in the call, not cached (no --sft-cache)"
    elif cache["reused"]:
        where = f"cache entry {cache['key']} (created {cache['created']}), reused"
        if cache.get("evaluated_again"):
            where += f", evaluated again ({cache['evaluated_again']})"
    elif cache["created"]:
        where = f"trained in the call, stored as cache entry {cache['key']} (created {cache['created']})"
    else:
        where = f"trained in the call, not cached ({cache['not_written']})"
    gate = (
        f"gate {sft['gate']} (minimum {fmt(sft['min_pass'], True)} of the RL split): attempt "
        f"{sft['attempt']} of {sft['attempts_made']} kept, training seed {sft['seed']}, RL pass "
        f"{fmt(sft['rl_pass_rate'], True)}"
    )
    weights = f"; weights {sft['weights']}" if sft.get("weights") else ""
    return f"{where}; {gate}" + (f"; {sft['stopped']}" if sft["gate"] == "failed" else "") + weights


def sft_entry(sft: dict | None) -> tuple[str, str] | None:
    """A call's SFT model as the cache entry it is (key, creation time); None where the call trained
    a model of its own that no other call can share (no --sft-cache, or not written)."""
    cache = (sft or {}).get("cache") or {}
    return (cache["key"], cache["created"]) if cache.get("created") else None


def shared_sft_model(calls: list[dict]) -> str | None:
    """How every call's arms started from one SFT model: "one call", "entry" (all from one cache
    entry) or "weights" (models of one `weights_digest`: reproducible training on fresh machines);
    None where they did not."""
    if len(calls) == 1:
        return "one call"
    entries = [sft_entry(c.get("sft")) for c in calls]
    weights = [(c.get("sft") or {}).get("weights") for c in calls]
    for how, values in (("entry", entries), ("weights", weights)):
        if values[0] is not None and all(v == values[0] for v in values):
            return how
    return None


def one_sft_model(calls: list[dict]) -> bool:
    """Whether every call's arms started from one SFT model (`shared_sft_model`)."""
    return shared_sft_model(calls) is not None


def tables(results: dict) -> str:
    """rl_demo.md: before and after RL per arm, each arm's paired differences, the learning curves; a
    merged report (`merge`) has one before-RL row per call; a --sft-arms run, its SFT tables alone."""
    if "sft_arms" in results:
        return sft_tables(results)
    arms = results.get("arms", {})
    merged = "calls" in results
    befores = [c.get("before") for c in results["calls"]] if merged else [results.get("before")]
    lines = [
        "| arm | RL steps (generations) | RL tasks pass | test pass | test speedup | test fast_1 | masked (MirrorPop) | BDR replays |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, before in enumerate(befores, 1):
        if before:
            lines.append(
                f"| SFT (before RL{f', call {i}' if merged else ''}) | 0 | {fmt(before['rl']['pass_rate'], True)} "
                f"| {fmt(before['test']['pass_rate'], True)} | {fmt(before['test']['speedup_geomean'])} "
                f"| {fmt(before['test']['fast_1'], True)} | - | - |"
            )
    for name, arm in arms.items():
        if "after" not in arm:
            lines.append(f"| {arm_label(name, arm)} | {why_not_run(arm)} | | | | | | |")
            continue
        masked = [c["mirrorpop/masked_fraction"] for c in arm["curve"] if "mirrorpop/masked_fraction" in c]
        lines.append(
            f"| {arm_label(name, arm)} | {arm['steps']} ({arm['generations']}){' *' if arm['stopped_by_deadline'] else ''} "
            f"| {fmt(arm['after']['rl']['pass_rate'], True)} | {fmt(arm['after']['test']['pass_rate'], True)} "
            f"| {fmt(arm['after']['test']['speedup_geomean'])} | {fmt(arm['after']['test']['fast_1'], True)} "
            f"| {fmt(sum(masked) / len(masked), True) if masked else '-'} | {arm['bdr']['replayed']} |"
        )
    stopped = any(a.get("stopped_by_deadline") for a in arms.values())
    note = "\n(*) stopped at the time budget before its last step.\n" if stopped else "\n"
    if not merged:
        note += f"\nSFT model: {sft_origin(results.get('sft'))}.\n"
    else:
        calls = results["calls"]
        note += "\nSFT model of each call:\n\n" + "".join(
            f"- call {i}: {sft_origin(c.get('sft'))}\n" for i, c in enumerate(calls, 1)
        )
        shared = shared_sft_model(calls)
        if shared == "one call":
            note += "\nOne call: every arm started from its SFT model.\n"
        elif shared == "entry":
            key, created = sft_entry(calls[0]["sft"])
            note += (
                f"\nAll calls started from one SFT model (cache entry {key}, created {created}): "
                "their arms compare.\n"
            )
        elif shared == "weights":
            note += (
                f"\nAll calls started from one SFT model (weights {calls[0]['sft']['weights']} in every "
                "call, trained alike): their arms compare.\n"
            )
        else:
            note += (
                "\nNot one SFT model: the calls trained models of different weights or used different "
                "cache entries, so "
                "each arm compares only with its own call's before-RL row, and arms of different calls do "
                "not compare (one SFT recipe passed 94%, 19% and 9% of the test split in three H200 runs).\n"
            )
    diff_lines = [
        "",
        f"after - before RL (paired bootstrap 95% over {(results.get('data') or {}).get('test', '?')} tasks)",
        "",
        "| arm | test pass | test speedup | test fast_1 |",
        "|---|---|---|---|",
    ]
    for name, arm in arms.items():
        if "after" in arm:
            diff_lines.append(
                difference_row(arm_label(name, arm), arm.get("differences", {}).get("test", {}))
            )
    diff_lines += [
        "",
        CLAIM_RULE + '"no change shown" means the interval contains zero, not that RL changed nothing. '
        "Pass and fast_1 in percentage points, speedup as the difference of geometric means.",
    ]
    if merged:
        diff_lines.append(
            "Merged from separate calls with the same seed: each arm's difference is against the "
            "before-RL evaluation of its own call."
        )
        diff_lines += [f"- call {i}: {c['file']}" for i, c in enumerate(results["calls"], 1)]
    curve_lines = [
        "",
        "| arm | generation | reward | pass rate (turn 1) | pass rate (any turn) | zero-variance groups |",
        "|---|---|---|---|---|---|",
    ]
    for name, arm in arms.items():
        gens = [c for c in arm.get("curve", []) if "kernel/pass_rate" in c]
        for i, c in enumerate(gens, 1):
            curve_lines.append(
                f"| {arm_label(name, arm)} | {i} | {fmt(c.get('reward'))} | {fmt(c['kernel/pass_rate'], True)} "
                f"| {fmt(c.get('primeecho/pass_rate_any_turn'), True)} | {fmt(c.get('frac_reward_zero_std'), True)} |"
            )
    return "\n".join(lines) + note + "\n".join(diff_lines) + "\n" + "\n".join(curve_lines) + "\n"


def svg_curves(results: dict, key: str = "kernel/pass_rate", width: int = 640, height: int = 320) -> str:
    """Learning curves (one line per arm) as an SVG file: the leaderboard's line chart."""
    series = {
        name: [c[key] for c in arm.get("curve", []) if key in c]
        for name, arm in results.get("arms", {}).items()
    }
    longest = max((len(v) for v in series.values()), default=1)
    x_max = max(1, longest - 1)
    curves = [(name, name, list(enumerate(values))) for name, values in series.items() if values]
    return chart.svg(
        chart.line_chart(
            curves,
            x_max,
            max(1, math.ceil(x_max / 10)),
            "generation",
            f"{key} (0 to 1)",
            aria_label="learning curves",
            width=width,
            height=height,
        )
    )


def setting(results: dict, key: str):
    """A call's setting as its rl_demo.json records it, or what it was before the setting existed."""
    return results["settings"].get(key, SETTINGS_BEFORE.get(key))


def gpu_of(results: dict) -> str | None:
    """The GPU a call ran on (None in files from before it was recorded, and on the CPU)."""
    return results.get("environment", {}).get("gpu")


def merge(files: list[Path]) -> dict:
    """One report of the arms of several calls with the same seed and tasks. An arm keeps the
    differences against its own call's "before" (its "call" says which); an arm that ran in one call
    and was skipped or failed in another counts where it ran. Each call's "sft" says where its SFT
    model came from, and "one_sft_model" whether all calls used one (the same --sft-cache entry):
    only then do arms of different calls compare. --sft-arms calls pool their runs instead
    (`merge_sft_arms`)."""
    loaded = [json.loads(Path(f).read_text()) for f in files]
    first = loaded[0]
    sft = ["sft_arms" in r for r in loaded]
    if any(sft) and not all(sft):
        kinds = ", ".join(f"{f} ({'--sft-arms' if s else 'RL'})" for f, s in zip(files, sft, strict=True))
        raise SystemExit(f"--merge takes calls of one kind; these mix --sft-arms and RL calls: {kinds}")
    for f, r in zip(files, loaded, strict=True):
        if r["settings"]["seed"] != first["settings"]["seed"] or r.get("data") != first.get("data"):
            raise SystemExit(f"{f} ran another seed or task split than {files[0]}: not comparable")
        if gpu_of(r) != gpu_of(first):  # speedups, hence rewards and verdicts of speed, are the GPU's
            raise SystemExit(f"{f} ran on {gpu_of(r)}, {files[0]} on {gpu_of(first)}: not comparable")
    if all(sft):
        return merge_sft_arms(files, loaded)
    for f, r in zip(files, loaded, strict=True):
        changed = [k for k in RL_MERGE_SETTINGS if setting(r, k) != setting(first, k)]
        if changed:
            raise SystemExit(
                f"{f} ran RL with another {', '.join(changed)} than {files[0]}: its arms do not compare"
            )
    arms: dict[str, dict] = {}
    for i, r in enumerate(loaded, 1):
        for name, arm in r.get("arms", {}).items():
            if "after" in arms.get(name, {}):
                if "after" in arm:
                    raise SystemExit(f"arm {name} ran in two of the files; merge one run of it")
                continue
            arms[name] = {**arm, "call": i}
    calls = [
        {"file": str(f), "before": r.get("before"), "sft": r.get("sft")}
        for f, r in zip(files, loaded, strict=True)
    ]
    return {
        "settings": first["settings"],
        "data": first.get("data"),
        "calls": calls,
        "one_sft_model": one_sft_model(calls),
        "arms": arms,
    }


def sft_runs(results: dict) -> dict[str, dict[str, dict]]:
    """Each SFT arm's runs by training seed; a file from before --sft-seeds (one run per arm, at
    --seed) reads as a run at --seed."""
    seed = str(results["settings"]["seed"])
    return {
        name: arm["runs"] if "runs" in arm else {seed: {k: v for k, v in arm.items() if k != "differences"}}
        for name, arm in results["sft_arms"].items()
    }


def merge_sft_arms(files: list[Path], loaded: list[dict]) -> dict:
    """The --sft-arms runs of several calls pooled by (arm, training seed), each run marked with its
    call, and the arms compared over all of them (`compare_sft_arms`). Calls must share every
    SFT_POOLED_SETTINGS value; a run evaluated in two calls is refused, while one skipped or failed
    in a call counts where it ran."""
    first = loaded[0]
    for f, r in zip(files, loaded, strict=True):
        for key in SFT_POOLED_SETTINGS:
            mine, theirs = setting(r, key), setting(first, key)
            if mine != theirs:
                raise SystemExit(
                    f"{f} ran with {key} {mine!r}, {files[0]} with {theirs!r}: their SFT runs do not pool "
                    "(the calls need the same --seed and task, training and evaluation settings)"
                )
    arms: dict[str, dict] = {}
    for i, r in enumerate(loaded, 1):
        for name, runs in sft_runs(r).items():
            pooled = arms.setdefault(name, {"runs": {}})["runs"]
            for seed, run in runs.items():
                if "eval" in pooled.get(seed, {}):
                    if "eval" in run:
                        raise SystemExit(
                            f"SFT arm {name}, training seed {seed} ran in two of the files; merge one run of it"
                        )
                    continue
                pooled[seed] = {**run, "call": i}
    arms = dict(sorted(arms.items(), key=lambda kv: kv[0] != "plain"))
    for arm in arms.values():
        arm["runs"] = dict(sorted(arm["runs"].items(), key=lambda kv: int(kv[0])))
    compare_sft_arms(arms)
    seeds = sorted({int(seed) for arm in arms.values() for seed in arm["runs"]})
    return {
        "settings": {**first["settings"], "sft_arms": list(arms), "sft_seeds": seeds},
        "data": first.get("data"),
        "calls": [{"file": str(f)} for f in files],
        "sft_arms": arms,
    }


def write_report(out: Path, results: dict) -> str:
    """rl_demo.md and learning_curves.svg in out; returns the tables."""
    report = tables(results)
    (out / "rl_demo.md").write_text(report)
    (out / "learning_curves.svg").write_text(svg_curves(results))
    return report


# ---------------------------------------------------------------------------------------- main


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--out", type=Path, required=True, help="folder for rl_demo.json, rl_demo.md and the figure"
    )
    p.add_argument(
        "--tiny", action="store_true", help="CPU, 2-layer model, a few steps, programmatic rewards"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the task split, the model and every arm")
    p.add_argument(
        "--arms",
        nargs="+",
        choices=list(ARMS),
        default=list(ARMS),
        help="RL arms to run, in this order (default: all); with fewer arms per call, more RL steps "
        "fit in the budget, and calls with the same seed and --sft-cache start from the same SFT model "
        "(see --merge)",
    )
    p.add_argument(
        "--sft-arms",
        nargs="+",
        choices=list(SFT_ARMS),
        metavar="NAME",
        help="compare SFT recipes instead of RL: one SFT model per arm (same corpus, init, seed and steps), "
        "each evaluated on the test split and compared with plain, paired over tasks; no RL. plain is "
        "required and runs first. Arms: plain (CuSeT off), cuset (every part on, the default once "
        "cuset is on), cuset_no_tagger, cuset_no_masking, cuset_no_regions, cuset_no_sensitive, "
        "cuset_no_sample_reweighting (that part alone off; confidence is no switch, so it has no arm)",
    )
    p.add_argument(
        "--sft-seeds",
        nargs="+",
        type=int,
        metavar="S",
        help="training seeds (the init model and the trainer's data order; the task split, corpus and "
        "evaluation sampling stay those of --seed). With --sft-arms: train each arm once per seed "
        "(default: --seed alone), seed after seed, every arm within a seed, and arm - plain intervals "
        "resample seeds as well as tasks. In RL mode: the seeds the SFT gate tries, in this order, one "
        "attempt each (default: --sft-attempts of them, --seed and on in steps of 1000); training is "
        "reproducible, so a seed whose model is known to pass the gate can go first",
    )
    p.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="run nothing: combine the rl_demo.json of several calls with the same seed into one "
        "rl_demo.md and learning_curves.svg in --out, each arm against its own call's before-RL numbers; "
        "--sft-arms calls (same --seed and task settings) pool their runs by (arm, training seed)",
    )
    g = p.add_argument_group("budget")
    g.add_argument(
        "--budget-s",
        type=float,
        default=None,
        help="wall-clock budget of the whole run (default 480 s; tiny 1800 s)",
    )
    g.add_argument(
        "--rl-generations",
        type=int,
        default=None,
        help="generation batches per arm (2 optimizer steps each; default 5, tiny 2)",
    )
    g.add_argument("--sft-steps", type=int, default=None, help="SFT optimizer steps (default 1600, tiny 6)")
    g = p.add_argument_group("the arms' SFT model (RL mode)")
    g.add_argument(
        "--sft-cache",
        type=Path,
        metavar="DIR",
        help="keep the SFT model and its before-RL evaluation in DIR/KEY/ (KEY: a hash of every setting "
        "and the data that determine them) and reuse a complete entry instead of training: calls with "
        "the same settings then start their arms from one SFT model",
    )
    g.add_argument(
        "--sft-min-pass",
        type=float,
        default=0.5,
        help="the SFT gate: train again (next training seed) while the SFT model passes less than this "
        "share of the RL split (default 0.5; 0: never); where no model meets it the arms are skipped",
    )
    g.add_argument(
        "--sft-attempts",
        type=int,
        default=3,
        help="SFT trainings the gate may make in all (default 3); none meets --sft-min-pass: the gate "
        "is recorded as failed and no arm runs",
    )
    g.add_argument(
        "--arm-s",
        type=float,
        default=None,
        help="training seconds one RL arm is expected to take: the first arm of a call starts only where "
        "that much is left after its evaluation's reserve, later ones by the quickest arm that ran all "
        "its steps, so that no arm is cut short (default 240: full arms on the H200 trained 72-217 s at "
        "--rl-lr 1e-4 and about 240-310 s at 3e-5; tiny 60); a skipped arm runs in a later call from "
        "the cached model",
    )
    g = p.add_argument_group("tasks and sampling")
    g.add_argument("--rl-tasks", type=int, default=None, help="tasks RL trains on (default 8, tiny 2)")
    g.add_argument(
        "--test-tasks", type=int, default=None, help="tasks neither stage trains on (default 16, tiny 2)"
    )
    g.add_argument(
        "--eval-samples", type=int, default=None, help="samples per RL-split task in evaluation (default 2)"
    )
    g.add_argument(
        "--test-samples",
        type=int,
        default=None,
        help="samples per test task in evaluation, where every claim is made (default 8, tiny 2): "
        "scripts/rl_power.py puts the chance of claiming a shift of large launches from 40%% to 68%% at "
        "89%% with 8 on 16 tasks, 35%% with 2",
    )
    g.add_argument("--eval-temperature", type=float, default=0.7, help="sampling temperature in evaluation")
    g.add_argument("--group", type=int, default=None, help="rollouts per prompt G (default 8, tiny 4)")
    g.add_argument(
        "--prompts-per-step", type=int, default=4, help="prompts per generation batch (default 4, tiny 2)"
    )
    g.add_argument("--max-new", type=int, default=None, help="completion token limit (default 288, tiny 48)")
    g = p.add_argument_group("training")
    g.add_argument("--sft-lr", type=float, default=1e-3, help="SFT learning rate (from scratch, hence high)")
    g.add_argument(
        "--sft-values",
        choices=list(SFT_VALUES),
        default="grid",
        help="the constants of the SFT tasks. grid (default): the test and RL tasks' 8 x 8 values of a and b, "
        "every combination not held out, 3 rows each (360 tasks); plain SFT then passed 0-53%% of the test "
        "split over seeds, answering the unseen combinations with wrong constants. wide: every nonzero "
        "multiple of 0.25 in [-3, 3] for a and [-2, 2] for b, each combination not held out once (2,280 "
        "tasks), too many to recall one by one, so that reading the constants is what fits them. The test "
        "and RL tasks are the same either way",
    )
    g.add_argument("--sft-batch", type=int, default=None, help="SFT batch (default 16, tiny 4)")
    g.add_argument(
        "--rl-lr",
        type=float,
        default=3e-5,
        help="RL learning rate, constant. From one SFT model on the CPU (docs/rl.md): 1e-4 fell to 25-47%% pass "
        "in 3 of 3 seeds (on the H200 it collapsed to 0%%), 1e-5 held 94-97%% but did not move the launch size "
        "in 5 generations, 3e-5 moved it (answers of >= 1024 blocks 49%% -> 68%%) and lost pass in 1 of 2 seeds",
    )
    g.add_argument(
        "--bdr-prob",
        type=float,
        default=0.25,
        help="BDR replay probability (demo: higher than the recipes' 0.125)",
    )
    g.add_argument(
        "--mirrorpop-delta",
        type=float,
        default=0.02,
        help="MirrorPop threshold delta (demo: below the recipes' 0.1, as ~95%% of an answer's tokens are near-certain template tokens that dilute the per-token mean)",
    )
    g = p.add_argument_group("verifier")
    g.add_argument("--lanes", type=int, default=12, help="concurrent verifier executions on the GPU")
    g.add_argument("--build-workers", type=int, default=6, help="verifier compile workers")
    args = p.parse_args(argv)
    tiny = args.tiny
    defaults = dict(
        budget_s=1800.0 if tiny else 480.0,
        rl_generations=2 if tiny else 5,
        sft_steps=6 if tiny else 1600,
        rl_tasks=2 if tiny else 8,
        test_tasks=2 if tiny else 16,  # 8 left every interval of the full arm too wide to read
        eval_samples=2,
        test_samples=2 if tiny else 8,
        group=4 if tiny else 8,
        max_new=48 if tiny else 288,
        sft_batch=4 if tiny else 16,
        arm_s=60.0 if tiny else 240.0,
    )
    for k, v in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if tiny:
        args.prompts_per_step = min(args.prompts_per_step, 2)
    args.model_shape = (
        dict(hidden_size=64, num_layers=2, num_heads=4, num_kv_heads=2, intermediate_size=128)
        if tiny
        else dict(hidden_size=384, num_layers=6, num_heads=6, num_kv_heads=2, intermediate_size=1024)
    )
    if args.sft_attempts < 1:
        p.error(f"--sft-attempts must be at least 1, not {args.sft_attempts}")
    if args.sft_arms:
        if "plain" not in args.sft_arms:
            p.error("--sft-arms needs plain: every other arm is compared with it")
        args.sft_arms = list(dict.fromkeys(["plain", *args.sft_arms]))
        args.sft_seeds = list(dict.fromkeys(args.sft_seeds or [args.seed]))
        if args.sft_cache is not None:
            p.error("--sft-cache is for RL mode: --sft-arms trains its own model per arm and seed")
    else:  # the gate's seeds: one attempt each
        gate = args.sft_seeds or [args.seed + SEED_STRIDE * k for k in range(args.sft_attempts)]
        args.sft_seeds = list(dict.fromkeys(gate))
        args.sft_attempts = len(args.sft_seeds)
    if (args.group * args.prompts_per_step) % 2:
        p.error("--group x --prompts-per-step must be even (two optimizer steps per generation)")
    return args


def run_rl(args, tokenizer, corpus, tasks, builder, source, deadline: float) -> None:
    """The SFT model and its evaluation before RL (`sft_model`: trained through the gate, or from
    --sft-cache), then every RL arm from that model, each evaluated after it."""
    from datasets import Dataset

    chosen = sft_model(args, tokenizer, corpus, tasks, builder, source, deadline)
    model_dir = chosen.model_dir
    if not chosen.passed:  # RL from a model that has not learned the task says nothing of RL
        args.results["arms"] = {name: {"skipped": "the SFT gate failed"} for name in args.arms}
        write_json(args)
        return

    rl_rows = [
        {"prompt": list(builder.first_turn(t)), "task_id": t.task_id}
        for t, _ in tasks.values()
        if t.task_id.startswith("rl/")
    ]
    dataset = Dataset.from_list(rl_rows)
    args.results["arms"] = {}
    eval_cost = AFTER_EVAL_RESERVE * chosen.eval_s  # until an after-RL evaluation has been timed
    full_arms_s = []  # training time of each arm that ran all its steps
    for name in args.arms:
        stop_at = arm_deadline(deadline, eval_cost, full_arms_s, time.monotonic(), args.arm_s)
        if stop_at is None:
            log.warning("arm %s skipped: too little time left in the budget", name)
            args.results["arms"][name] = {"skipped": "budget"}
            write_json(args)
            continue
        try:
            model, info = run_arm(name, ARMS[name], model_dir, tokenizer, dataset, source, args, stop_at)
            if not info["stopped_by_deadline"]:
                full_arms_s.append(info["seconds"])
            # on disk before the evaluation, so a run killed during it keeps the arm's training and curves
            args.results["arms"][name] = info | {"error": "stopped during its after-RL evaluation"}
            write_json(args)
            start = time.monotonic()
            info["after"] = {
                split: evaluate(model, tokenizer, tasks, builder, source, split, args)
                for split in ("rl", "test")
            }
            eval_cost = time.monotonic() - start
            del model
            info["differences"] = differences(args.results["before"], info["after"])
        except Exception as e:  # noqa: BLE001 - one failed arm must not lose the others
            log.exception("arm %s failed", name)
            info = {"error": f"{type(e).__name__}: {e}"}
        args.results["arms"][name] = info
        write_json(args)


def run_sft_arms(args, tokenizer, corpus, tasks, builder, source, deadline: float) -> None:
    """One SFT model per --sft-arms arm and --sft-seeds training seed, each evaluated on the test split
    (tasks, corpus and sampling fixed by --seed), then every arm compared with plain over seeds and
    tasks (`compare_sft_arms`). Seed-major, plain first within a seed, so a budget cut loses whole
    seeds rather than whole arms; a run trains all its steps or, when the time left cannot hold one,
    is skipped (`arm_deadline`), as the RL arms are."""
    from transformers import AutoModelForCausalLM

    device = "cuda" if on_gpu(args) else "cpu"
    arms = args.results["sft_arms"] = {name: {"runs": {}} for name in args.sft_arms}
    eval_cost = 0.0  # no evaluation has run before the first run
    full_runs_s = []
    for seed in args.sft_seeds:
        for name in args.sft_arms:
            stop_at = arm_deadline(deadline, eval_cost, full_runs_s, time.monotonic())
            if stop_at is None:
                log.warning("SFT arm %s, seed %d skipped: too little time left in the budget", name, seed)
                arms[name]["runs"][str(seed)] = {"skipped": "budget"}
                write_json(args)
                continue
            try:
                folder = f"sft-arms/{name}/seed-{seed}"
                run = train_sft(args, tokenizer, corpus, SFT_ARMS[name], folder, stop_at, seed=seed)
                if not run.stopped_by_deadline:
                    full_runs_s.append(run.seconds)
                start = time.monotonic()
                model = AutoModelForCausalLM.from_pretrained(run.model_dir).to(device)
                info = {
                    "sft": run.summary(),
                    "eval": {"test": evaluate(model, tokenizer, tasks, builder, source, "test", args)},
                }
                del model
                eval_cost = time.monotonic() - start
            except Exception as e:  # noqa: BLE001 - one failed run must not lose the others
                log.exception("SFT arm %s, seed %d failed", name, seed)
                info = {"error": f"{type(e).__name__}: {e}"}
            arms[name]["runs"][str(seed)] = info
            compare_sft_arms(arms)
            write_json(args)


def compare_sft_arms(arms: dict) -> None:
    """Each SFT arm's test metrics over its evaluated training seeds ("over_seeds": pass and fast_1
    the mean of the seeds', speedup the geometric mean over every timed pass, and the range of pass
    over seeds, the training variance in plain sight) and, for every arm but plain, its difference
    from plain over seeds and tasks (`seed_task_differences`); recomputed from the runs each time."""
    evaluated = {
        name: {seed: run["eval"]["test"] for seed, run in arm["runs"].items() if "eval" in run}
        for name, arm in arms.items()
    }
    for name, arm in arms.items():
        arm.pop("over_seeds", None)
        arm.pop("differences", None)
        runs = evaluated[name]
        if not runs:
            continue
        passes = [r["pass_rate"] for r in runs.values()]
        pooled = {f"{seed}:{task}": v for seed, r in runs.items() for task, v in r["per_task"].items()}
        arm["over_seeds"] = {
            "seeds": [int(seed) for seed in runs],
            **split_metrics(pooled),
            "pass_rate_range": [min(passes), max(passes)],
        }
        if name != "plain" and evaluated.get("plain"):
            diffs = seed_task_differences(
                [r["per_task"] for r in evaluated["plain"].values()], [r["per_task"] for r in runs.values()]
            )
            arm["differences"] = {"test": {m: d.to_dict() for m, d in diffs.items()}}


def main(argv=None) -> dict:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.merge:
        results = merge(args.merge)
        print(write_report(args.out, results))
        return results
    t0 = time.monotonic()
    deadline = t0 + args.budget_s
    args.results = {
        "settings": {k: v for k, v in vars(args).items() if k not in ("results",)},
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "gpu": gpu_name(),
        },
        "timing": {},
    }
    splits = family(args.seed, args.rl_tasks, args.test_tasks, args.sft_values)
    tasks = write_tasks(splits, args.out / "tasks")
    builder = PromptBuilder(PromptConfig(backend="cuda-raw"))
    corpus = sft_corpus(
        tasks,
        builder,
        "sft",
        SFT_ROWS_PER_TASK[args.sft_values],
        repair=0.3,
        seed=args.seed,
        values=args.sft_values,
    )
    texts = [m["content"] for row in corpus[:600] for m in row["messages"]]
    tokenizer = build_tokenizer(vocab_size=2048 if not args.tiny else 1024, corpus=texts)
    args.results["data"] = {k: len(v) for k, v in splits.items()} | {
        "sft_rows": len(corpus),
        "vocab": len(tokenizer),
    }

    task_map = {tid: task for tid, (task, _) in tasks.items()}
    if args.tiny:
        source = FunctionRewards(programmatic_judge(tasks, builder))
    else:
        eval_config = EvalConfig(
            device="cuda",
            trials=3,
            measure=True,
            strict=True,
            timeout_s=240.0,
            seed=args.seed,
            # short timing: lanes take turns for it (benchmark/evaluate/gpu_lock.py), and the launch-size effect is several-fold
            timing=TimingConfig(
                warmup_calls=1,
                warmup_seconds=0.0,
                steady_max_seconds=0.0,
                min_runs=5,
                min_seconds=0.0,
                max_runs=100,
                max_seconds=0.1,
            ),
        )
        source = VerifierRewards(
            task_map,
            VerifierConfig(eval=eval_config, build_workers=args.build_workers, lanes_per_device=args.lanes),
            builder.config,
            turns=3,
        )
        start = time.monotonic()  # the reference answer of one task per act must pass the strict verifier
        firsts = {spec.act: task for task, spec in tasks.values()}
        refs = [
            (task, answer(tasks[task.task_id][1], solution(tasks[task.task_id][1])))
            for task in firsts.values()
        ]
        scores = source.score(
            [{"task_id": t.task_id} for t, _ in refs], [a for _, a in refs], [1] * len(refs)
        )
        args.results["reference_answers"] = {
            t.task_id: {
                "status": s.status,
                "speedup": s.speedup,
                "flags": list(s.flags),
                "error": (s.error or "")[:2000],
            }
            for (t, _), s in zip(refs, scores, strict=True)
        }
        args.results["timing"]["reference_check_s"] = round(time.monotonic() - start, 1)
        if not all(s.passed for s in scores):
            write_json(args)
            raise SystemExit(f"reference answers fail the verifier: {args.results['reference_answers']}")
    write_json(args)

    try:
        if args.sft_arms:
            run_sft_arms(args, tokenizer, corpus, tasks, builder, source, deadline)
        else:
            run_rl(args, tokenizer, corpus, tasks, builder, source, deadline)
    finally:
        source.close()
        args.results["timing"]["total_s"] = round(time.monotonic() - t0, 1)
        if hasattr(source, "verifier"):
            args.results["verifier_stats"] = dict(source.verifier.stats)
        write_json(args)
    print(write_report(args.out, args.results))
    return args.results


if __name__ == "__main__":
    main()
