"""The teach stage (model teachers only): k samples per valid task, then repair turns prompted with
the verifier's feedback on the turn before (benchmark.multiturn), every candidate through the
verifier and journalled in verdicts.jsonl. Samples already judged are not asked again."""

from __future__ import annotations

from collections import defaultdict

from benchmark.multiturn import open_samples
from benchmark.verdict import Verdict
from datasets_builder.filter import kept
from datasets_builder.prompting import first_turn
from datasets_builder.stages.context import BuildContext
from datasets_builder.teachers.base import Candidate


def run(ctx: BuildContext) -> None:
    cfg = ctx.config.teacher
    if cfg.kind != "model":
        return
    from benchmark.models import GenerationRequest
    from datasets_builder.metadata import TaskMetadata

    teacher = ctx.model_teacher or _model_teacher(ctx)
    builder = ctx.config.prompts.builder()
    records = ctx.journals.records
    valid = sorted(
        t
        for t, r in records.records.items()
        if r.get("valid") and (not cfg.levels or ctx.task(t).level in cfg.levels)
    )
    for turn in range(1, cfg.turns + 1):
        if ctx.budget.out_of_time():
            break
        history: dict[tuple[str, int], dict[int, tuple[Candidate, Verdict]]] = defaultdict(dict)
        for r in ctx.journals.verdicts.values():
            c = Candidate.from_dict(r["candidate"])
            if c.teacher == teacher.name:
                history[(c.task_id, c.sample)][c.turn] = (c, Verdict.from_dict(r["verdict"]))
        judged = {(tid, s, t): v for (tid, s), turns in history.items() for t, (_, v) in turns.items()}
        requests, parents = [], {}
        for tid, s in open_samples(turn, valid, cfg.samples, judged, finished=kept):
            task = ctx.task(tid)
            if turn == 1:
                meta = (records.get(tid) or {}).get("metadata")
                messages = first_turn(
                    builder, task, TaskMetadata.from_dict(meta) if meta else None, ctx.config.prompts
                )
            else:
                prev, verdict = history[(tid, s)][turn - 1]
                if prev.completion is None:
                    continue
                messages = builder.next_turn(prev.messages, prev.completion, verdict, cfg.turns)
                parents[(tid, s)] = prev.candidate_id
            requests.append(GenerationRequest(task=task, sample=s, turn=turn, messages=tuple(messages)))
        if not requests:
            continue
        bar = ctx.bar(total=0, desc=f"teach turn {turn}", unit="cand")
        flt = ctx.rejection_filter(ctx.journals.verdicts, bar)
        for c in teacher.generate(requests, parents):
            flt.submit(c)
        flt.wait()
        bar.close()


def _model_teacher(ctx: BuildContext):
    """The model teacher the config describes, its completions cached under the build's cache."""
    from benchmark.models.base import BackendOptions, SamplingParams
    from datasets_builder.teachers.model import ModelTeacher

    cfg = ctx.config.teacher
    return ModelTeacher(
        cfg.model,
        SamplingParams(
            samples=cfg.samples,
            temperature=cfg.temperature,
            top_p=cfg.top_p,
            max_tokens=cfg.max_tokens,
            seed=cfg.seed,
        ),
        BackendOptions(
            base_url=cfg.base_url,
            api_key_env=cfg.api_key_env,
            concurrency=cfg.concurrency,
            dtype=cfg.dtype,
            cache_dir=ctx.cache / "completions",
        ),
    )
