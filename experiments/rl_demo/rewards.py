"""Where the demonstration's rewards come from: the strict verifier on the GPU (`verifier_source`), whose
first act is to check that the family's reference answers pass it (`check_reference_answers`), or on
CPU machines, which cannot run CUDA candidates, the --tiny stand-in (`programmatic_judge`), which reads
the act and the constants out of an answer and runs nothing. Statuses and rewards follow the
verifier's shaping either way."""

from __future__ import annotations

from benchmark.evaluate.harness import EvalConfig
from benchmark.evaluate.timing import TimingConfig
from benchmark.extract import extract_code
from benchmark.prompts import PromptBuilder
from benchmark.task import Task
from benchmark.verdict import Status, Verdict
from benchmark.verify.reward import shaped_reward
from benchmark.verify.verifier import VerifierConfig
from experiments.rl_demo.family import Spec, answer, read_answer, solution
from trainers.rl_rewards import FunctionRewards, RewardSource, Score, VerifierRewards


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


def tiny_source(tasks: dict[str, tuple[Task, Spec]], builder: PromptBuilder) -> FunctionRewards:
    """The --tiny reward source: `programmatic_judge` in the trainer's reward protocol."""
    return FunctionRewards(programmatic_judge(tasks, builder))


def verifier_source(
    tasks: dict[str, tuple[Task, Spec]], builder: PromptBuilder, seed: int, lanes: int, build_workers: int
) -> VerifierRewards:
    """The strict verifier on the GPU, with a short timing: lanes take turns for it
    (benchmark/evaluate/gpu_lock.py), and the launch-size effect is several-fold."""
    eval_config = EvalConfig(
        device="cuda",
        trials=3,
        measure=True,
        strict=True,
        timeout_s=240.0,
        seed=seed,
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
    return VerifierRewards(
        {task_id: task for task_id, (task, _) in tasks.items()},
        VerifierConfig(eval=eval_config, build_workers=build_workers, lanes_per_device=lanes),
        builder.config,
        turns=3,
    )


def check_reference_answers(source: RewardSource, tasks: dict[str, tuple[Task, Spec]]) -> tuple[bool, dict]:
    """The reference answer of one task per act through the source: whether all pass, and what each got
    (rl_demo.json's "reference_answers"). RL from rewards that fail a correct answer says nothing."""
    firsts = {spec.act: (task, spec) for task, spec in tasks.values()}
    refs = [(task, answer(spec, solution(spec))) for task, spec in firsts.values()]
    scores = source.score([{"task_id": t.task_id} for t, _ in refs], [a for _, a in refs], [1] * len(refs))
    record = {
        t.task_id: {
            "status": s.status,
            "speedup": s.speedup,
            "flags": list(s.flags),
            "error": (s.error or "")[:2000],
        }
        for (t, _), s in zip(refs, scores, strict=True)
    }
    return all(s.passed for s in scores), record
