"""The build pipeline: configuration in, dataset folders out, resumable at every item.

    python -m datasets_builder build --config configs/datasets/h200_500.yaml --out OUT

Stages, each with a progress bar and a journal under OUT/state (state.py):
  synthesize  generate task files (variants, compositions, blocks) and import task folders -> OUT/tasks
  screen      normalized-AST deduplication, decontamination against the benchmark suite
  tasks       per task, in worker processes: the suite validator, tensor metadata and, with the
              Inductor teacher, its candidates; every candidate goes to the strict verifier as
              soon as it exists (verification overlaps the remaining tasks)
  teach       with a model teacher: k samples per task, then repair turns with the verifier's feedback
  repair      mutants of verified solutions, verified (teachers without turns)
  timing      a random subset of kept solutions re-verified with timing, one at a time on the device
  assemble    RFT pool, splits, cards, parquet folders (OUT/dataset, OUT/suite), OUT/build_stats.json

A time budget (budget.minutes) stops scheduling new tasks, mutants and timings in time for the
rest to finish; a later run with the same OUT continues where the budget (or a kill) stopped it."""

from __future__ import annotations

import json
import logging
import os
import random
import shutil
import time
from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from tqdm import tqdm

from benchmark.environment import torch_versions
from benchmark.multiturn import open_samples
from benchmark.suite import Suite, load_suite
from benchmark.suite import docs as suite_docs
from benchmark.task import Task, load_task
from benchmark.verdict import Verdict
from datasets_builder import synth_blocks, synth_compose, synth_variants, task_worker
from datasets_builder.assemble import BuildData, assemble
from datasets_builder.card import stats_markdown
from datasets_builder.config import BuildConfig
from datasets_builder.decontam import SuiteIndex, screen
from datasets_builder.dedup import deduplicate
from datasets_builder.export import task_rows, write_suite_folder, write_train_folder
from datasets_builder.filter import RejectionFilter, kept
from datasets_builder.importer import SourceRecord, import_folder
from datasets_builder.prompting import first_turn
from datasets_builder.repair import mutate
from datasets_builder.state import BuildState
from datasets_builder.task_source import render
from datasets_builder.teachers.base import Candidate

log = logging.getLogger(__name__)
MAX_WORKER_CRASHES = 2


@dataclass(frozen=True)
class BuildResult:
    out: Path
    dataset: Path
    suite: Path | None
    stats: dict


class Builder:
    def __init__(
        self,
        config: BuildConfig,
        out: str | Path,
        *,
        cache: str | Path | None = None,
        offline_teacher=None,
        model_teacher=None,
        verifier=None,
        timing_verifier=None,
        progress: bool = True,
    ):
        """`cache` holds the verifier's builds and Triton cache and the model completions (default
        OUT/cache); `offline_teacher` (an object with propose(task, module), run per task) and
        `model_teacher` (a teachers.model.ModelTeacher-like object) replace the ones the config builds."""
        self.config = config
        self.out = Path(
            out
        ).resolve()  # workers run in folders of their own: a relative path would not hold there
        self.cache = Path(cache).resolve() if cache is not None else self.out / "cache"
        self.state = BuildState(self.out)
        self.pool_root = self.out / "tasks"
        self.offline_teacher = offline_teacher
        self.model_teacher = model_teacher
        self._verifier = verifier
        self._timing_verifier = timing_verifier
        self._own: list = []  # verifiers this builder made (and closes)
        self.progress = progress
        self.t0 = time.monotonic()
        self.run_id = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
        minutes = config.budget.minutes
        self.deadline = self.t0 + minutes * 60 if minutes > 0 else None
        self.stop_reason: str | None = None
        self.seconds: dict[str, float] = defaultdict(float)
        key_task = lambda r: r["task_id"]  # noqa: E731
        self.synth = self.state.journal("synth", key_task)
        self.screened = self.state.journal("screen", key_task)
        self.records = self.state.journal("tasks", key_task)
        self.verdicts = self.state.journal("verdicts", lambda r: r["candidate"]["candidate_id"])
        self.mutants = self.state.journal("mutants", lambda r: r["candidate"]["candidate_id"])
        self.timed = self.state.journal("timing", lambda r: r["candidate_id"])
        self._tasks: dict[str, Task] = {}
        self._suite: tuple[Suite, SuiteIndex] | None = None
        self._solved: set[str] = {
            r["candidate"]["task_id"] for r in self.verdicts.values() if kept(Verdict.from_dict(r["verdict"]))
        }
        self.gpu, self.profile = self._device()

    # ------------------------------------------------------------------------------------ helpers
    def _bar(self, **kw):
        return tqdm(disable=not self.progress, dynamic_ncols=True, **kw)

    def _device(self):
        if self.config.device != "cuda":
            return "cpu", None
        import torch

        from benchmark.evaluate.device_profile import load_profile, measure_profile, save_profile

        if not torch.cuda.is_available():
            raise RuntimeError("the build config asks for device cuda, but no CUDA device is visible")
        gpu = torch.cuda.get_device_name()
        devices = self.out / "devices"
        profile = load_profile(gpu) or load_profile(gpu, devices)
        if profile is None:
            log.info("measuring the %s profile (bandwidth, matrix rates) for speed-of-light floors", gpu)
            profile = measure_profile("cuda")
            save_profile(profile, devices)
        return gpu, profile

    def _save_elapsed(self) -> None:
        """Time spent so far in this run, kept after every stage, so killed runs still count."""
        runs = self.state.stages().get("runs", {})
        seconds = dict(runs.get("seconds", {}))
        seconds[self.run_id] = round(time.monotonic() - self.t0, 1)
        self.state.mark_done("runs", {"seconds": seconds})

    def _elapsed_total(self) -> float:
        seconds = self.state.stages().get("runs", {}).get("seconds", {})
        return sum(v for k, v in seconds.items() if k != self.run_id) + (time.monotonic() - self.t0)

    def _time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _out_of_time(self, reserve: float | None = None) -> bool:
        left = self._time_left()
        return left is not None and left < (self.config.budget.reserve_s if reserve is None else reserve)

    def _should_stop(self) -> bool:
        """Whether to stop scheduling new tasks: the target count is reached or the budget nearly spent."""
        if self.stop_reason:
            return True
        target = self.config.budget.target_tasks
        if target and len(self._solved) >= target:
            self.stop_reason = f"the target of {target} tasks with a kept solution was reached"
        elif self._out_of_time():
            self.stop_reason = f"the time budget of {self.config.budget.minutes:g} min was nearly spent"
        if self.stop_reason:
            log.info("no new task is scheduled: %s", self.stop_reason)
        return bool(self.stop_reason)

    def suite_index(self) -> tuple[Suite, SuiteIndex]:
        """The benchmark suite decontamination compares with, and its index (built once)."""
        if self._suite is None:
            suite = load_suite(self.config.screen.suite)
            self._suite = (suite, SuiteIndex((t.task_id, t.source) for t in suite.tasks))
        return self._suite

    def task(self, task_id: str) -> Task:
        if task_id not in self._tasks:
            rec = self.synth.get(task_id)
            self._tasks[task_id] = load_task(self.pool_root / rec["path"], root=self.pool_root)
        return self._tasks[task_id]

    def _sol_ms(self, task_id: str) -> float | None:
        meta = (self.records.get(task_id) or {}).get("metadata")
        return meta.get("sol_ms") if meta else None

    def _make_verifier(self, measure: bool, lanes: int):
        from benchmark.evaluate.harness import EvalConfig
        from benchmark.evaluate.timing import TimingConfig
        from benchmark.verify.verifier import Verifier, VerifierConfig

        v = self.config.verify
        eval_config = EvalConfig(
            device=self.config.device,
            trials=v.trials,
            measure=measure,
            strict=v.strict,
            timeout_s=v.timeout_s,
            baseline=self.config.timing.baseline if measure else "eager",
            timing=TimingConfig(max_seconds=self.config.timing.max_seconds),
            cache_dir=self.cache / "solbench",
        )
        verifier = Verifier(
            VerifierConfig(eval=eval_config, build_workers=v.build_workers, lanes_per_device=lanes)
        )
        self._own.append(verifier)
        return verifier

    @property
    def verifier(self):
        if self._verifier is None:
            self._verifier = self._make_verifier(
                self.config.verify.measure, self.config.verify.lanes_per_device
            )
        return self._verifier

    @property
    def timing_verifier(self):
        if self._timing_verifier is None:
            self._timing_verifier = self._make_verifier(True, 1)
        return self._timing_verifier

    def _filter(self, journal, bar) -> RejectionFilter:
        def on_verdict(candidate: Candidate, verdict: Verdict) -> None:
            journal.append({"candidate": candidate.to_dict(), "verdict": verdict.to_dict()})
            if journal is self.verdicts and kept(verdict):
                self._solved.add(candidate.task_id)
            bar.update(1)
            bar.set_postfix(kept=len(self._solved))

        def on_submit(candidate: Candidate) -> None:
            bar.total += 1
            bar.refresh()

        return RejectionFilter(self.verifier, self.task, self._sol_ms, on_verdict, on_submit)

    # ------------------------------------------------------------------------------------ stages
    def run(self) -> BuildResult:
        try:
            for stage in (
                self.synthesize,
                self.screen,
                self.process_tasks,
                self.teach,
                self.repair,
                self.time_subset,
            ):
                t = time.monotonic()
                stage()
                self.seconds[stage.__name__] += time.monotonic() - t
                self._save_elapsed()
            t = time.monotonic()
            result = self.assemble()
            self.seconds["assemble"] += time.monotonic() - t
            self._save_elapsed()
            return result
        finally:
            for v in self._own:
                v.close()

    def synthesize(self) -> None:
        if self.state.done("synthesize"):
            return
        cfg = self.config.synthesis
        specs = [
            *synth_variants.generate(
                replace(cfg.variants, seed=cfg.variants.seed or self.config.seed), self.config.size
            ),
            *synth_compose.generate(
                replace(cfg.compose, seed=cfg.compose.seed or self.config.seed), self.config.size
            ),
            *synth_blocks.generate(
                replace(cfg.blocks, seed=cfg.blocks.seed or self.config.seed), self.config.size
            ),
        ]
        bar = self._bar(total=len(specs), desc="synthesize", unit="task")
        for spec in specs:
            rel = Path(f"level{spec.level}") / f"{spec.name}.py"
            self._write_task(
                rel,
                render(spec),
                {
                    "family": spec.family,
                    "level": spec.level,
                    "dtype": spec.dtype,
                    "ops": list(spec.ops),
                    "origin": "synthesized",
                },
            )
            bar.update(1)
        bar.close()
        imported, errors, sources = 0, [], []
        for imp in cfg.imports:
            result = import_folder(imp)
            errors += result.errors
            sources.append(self._keep_license(result.record))
            for t in result.tasks:
                level = t.level if t.level is not None else 0
                self._write_task(
                    Path(f"level{level}") / f"{t.name}.py",
                    t.source,
                    {"family": "imported", "level": t.level, "dtype": None, "ops": [], "origin": t.origin},
                )
                imported += 1
        self.state.mark_done(
            "synthesize",
            {"synthesized": len(specs), "imported": imported, "import_errors": errors, "sources": sources},
        )

    def _keep_license(self, record: SourceRecord) -> dict:
        """The source's record, its licence file copied to OUT/sources/ (published with the dataset)."""
        out = record.to_dict()
        if record.license_file:
            kept = self.out / "sources" / f"{record.name}-{Path(record.license_file).name}"
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(record.license_file, kept)
            out["license_file"] = kept.relative_to(self.out).as_posix()
        return out

    def _write_task(self, rel: Path, source: str, info: dict) -> None:
        path = self.pool_root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != source:
            path.write_text(source)
        task_id = rel.with_suffix("").as_posix()
        if task_id not in self.synth:
            self.synth.append({"task_id": task_id, "path": rel.as_posix(), **info})

    def screen(self) -> None:
        if self.state.done("screen"):
            return
        items = [(r["task_id"], (self.pool_root / r["path"]).read_text()) for r in self.synth.values()]
        dedup = deduplicate(items)
        suite, index = self.suite_index()
        sources = dict(items)
        matches, audit = screen(
            self._bar(iterable=[(k, sources[k]) for k in dedup.kept], desc="screen", unit="task"),
            index,
            self.config.screen.program_threshold,
            self.config.screen.model_threshold,
        )
        for tid in dedup.unparsable:
            self.screened.append({"task_id": tid, "kept": False, "reason": "unparsable"})
        for tid, first in dedup.duplicates.items():
            self.screened.append(
                {"task_id": tid, "kept": False, "reason": "duplicate", "duplicate_of": first}
            )
        for m in matches:
            self.screened.append(
                {
                    "task_id": m.item_id,
                    "kept": not m.contaminated,
                    "reason": "contaminated" if m.contaminated else "",
                    **asdict(m),
                }
            )
        self.state.mark_done(
            "screen",
            {
                "candidates": len(items),
                "duplicates": len(dedup.duplicates),
                "unparsable": len(dedup.unparsable),
                "audit": audit.to_dict(),
                "suite": str(suite.root),
                "suite_version": suite.version,
            },
        )

    def _task_order(self) -> list[str]:
        kept_ids = sorted(r["task_id"] for r in self.screened.values() if r.get("kept"))
        random.Random(f"order:{self.config.seed}").shuffle(kept_ids)
        return kept_ids

    def _worker_options(self) -> task_worker.WorkerOptions:
        return task_worker.WorkerOptions(
            device=self.config.device,
            fast=self.config.validation.fast,
            timing_seconds=self.config.validation.timing_seconds,
            timeout_s=self.config.validation.timeout_s,
            seed=self.config.seed,
            teacher="inductor"
            if self.config.teacher.kind == "inductor" and self.offline_teacher is None
            else None,
            variants=self.config.teacher.variants,
            profile=self.profile.to_dict() if self.profile else None,
        )

    def _record_task(self, record: dict, flt: RejectionFilter) -> None:
        self.records.append(record)
        for c in record.get("candidates", ()):
            flt.submit(Candidate.from_dict(c))

    def process_tasks(self) -> None:
        order = self._task_order()
        todo = [t for t in order if t not in self.records]
        vbar = self._bar(desc="verify", unit="cand", total=0)
        flt = self._filter(self.verdicts, vbar)
        for rec in self.records.values():  # candidates of tasks done before a kill, still without a verdict
            for c in rec.get("candidates", ()):
                if c["candidate_id"] not in self.verdicts:
                    flt.submit(Candidate.from_dict(c))
        bar = self._bar(total=len(todo), desc="tasks", unit="task")
        workers = self.config.validation.workers
        if workers <= 0:
            task_worker.init(self._worker_options(), teacher=self.offline_teacher)
            for tid in todo:
                if self._should_stop():
                    break
                self._record_task(
                    task_worker.process(
                        str(self.pool_root / self.synth.get(tid)["path"]), str(self.pool_root)
                    ),
                    flt,
                )
                bar.update(1)
        else:
            self._process_in_pool(todo, workers, flt, bar)
        bar.close()
        flt.wait()
        vbar.close()
        if not self.stop_reason and all(t in self.records for t in order):
            self.state.mark_done("tasks", {"tasks": len(order)})

    def _process_in_pool(self, todo: list[str], workers: int, flt: RejectionFilter, bar) -> None:
        import multiprocessing

        if self.offline_teacher is not None:
            raise ValueError("a teacher object given in code runs only in-process; set validation.workers: 0")
        context = multiprocessing.get_context("spawn")
        queue = list(reversed(todo))
        crashes: dict[str, int] = defaultdict(int)
        options = self._worker_options()

        def new_pool():
            return ProcessPoolExecutor(
                workers, mp_context=context, initializer=task_worker.init, initargs=(options,)
            )

        pool = new_pool()
        pending: dict = {}
        try:
            while queue or pending:
                while queue and len(pending) < 2 * workers and not self._should_stop():
                    tid = queue.pop()
                    path = str(self.pool_root / self.synth.get(tid)["path"])
                    pending[pool.submit(task_worker.process, path, str(self.pool_root))] = tid
                if not pending:
                    break
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                broken = False
                for f in done:
                    tid = pending.pop(f)
                    try:
                        self._record_task(f.result(), flt)
                        bar.update(1)
                    except BrokenProcessPool:
                        broken = True
                        crashes[tid] += 1
                        if crashes[tid] >= MAX_WORKER_CRASHES:
                            self._record_task(
                                {
                                    "task_id": tid,
                                    "valid": False,
                                    "report": {
                                        "failures": ["worker: the worker process died twice on this task"]
                                    },
                                    "candidates": [],
                                    "skips": [],
                                    "error": "worker crashed",
                                    "metadata": None,
                                },
                                flt,
                            )
                            bar.update(1)
                        else:
                            queue.append(tid)
                    except Exception as e:  # noqa: BLE001 - recorded, the build goes on
                        self._record_task(
                            {
                                "task_id": tid,
                                "valid": False,
                                "report": {"failures": [f"worker: {type(e).__name__}: {e}"[:500]]},
                                "candidates": [],
                                "skips": [],
                                "error": repr(e)[:500],
                                "metadata": None,
                            },
                            flt,
                        )
                        bar.update(1)
                if broken:
                    for tid in list(pending.values()):
                        crashes[tid] += 1
                        queue.append(tid)
                    pending.clear()
                    pool.shutdown(wait=False, cancel_futures=True)
                    log.warning("a worker process died; restarting the pool")
                    pool = new_pool()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def teach(self) -> None:
        """Model teachers: k samples per valid task, then repair turns fed with the verifier's feedback."""
        cfg = self.config.teacher
        if cfg.kind != "model":
            return
        from benchmark.models import GenerationRequest
        from benchmark.models.base import BackendOptions, SamplingParams
        from datasets_builder.metadata import TaskMetadata
        from datasets_builder.teachers.model import ModelTeacher

        teacher = self.model_teacher or ModelTeacher(
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
                cache_dir=self.cache / "completions",
            ),
        )
        builder = self.config.prompts.builder()
        valid = sorted(t for t, r in self.records.records.items() if r.get("valid"))
        for turn in range(1, cfg.turns + 1):
            if self._out_of_time():
                break
            history: dict[tuple[str, int], dict[int, tuple[Candidate, Verdict]]] = defaultdict(dict)
            for r in self.verdicts.values():
                c = Candidate.from_dict(r["candidate"])
                if c.teacher == teacher.name:
                    history[(c.task_id, c.sample)][c.turn] = (c, Verdict.from_dict(r["verdict"]))
            judged = {(tid, s, t): v for (tid, s), turns in history.items() for t, (_, v) in turns.items()}
            requests, parents = [], {}
            for tid, s in open_samples(turn, valid, cfg.samples, judged, finished=kept):
                task = self.task(tid)
                if turn == 1:
                    meta = (self.records.get(tid) or {}).get("metadata")
                    messages = first_turn(
                        builder, task, TaskMetadata.from_dict(meta) if meta else None, self.config.prompts
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
            bar = self._bar(total=0, desc=f"teach turn {turn}", unit="cand")
            flt = self._filter(self.verdicts, bar)
            for c in teacher.generate(requests, parents):
                flt.submit(c)
            flt.wait()
            bar.close()

    def repair(self) -> None:
        cfg = self.config.repair
        if cfg.mutations_per_task <= 0 or cfg.max_tasks <= 0 or self._out_of_time():
            return
        by_task: dict[str, list[Candidate]] = defaultdict(list)
        for r in self.verdicts.values():
            c = Candidate.from_dict(r["candidate"])
            if kept(Verdict.from_dict(r["verdict"])) and not c.teacher.startswith("model:"):
                by_task[c.task_id].append(c)
        rng = random.Random(f"repair:{self.config.seed}")
        tasks = sorted(by_task)
        rng.shuffle(tasks)
        done_parents = {r["candidate"]["parent"] for r in self.mutants.values()}
        bar = self._bar(desc="repair", unit="mutant", total=0)
        flt = self._filter(self.mutants, bar)
        for tid in tasks[: cfg.max_tasks]:
            if self._out_of_time():
                break
            parents = sorted(by_task[tid], key=lambda c: c.candidate_id)
            task_rng = random.Random(f"repair:{self.config.seed}:{tid}")
            for parent in task_rng.sample(parents, min(cfg.mutations_per_task, len(parents))):
                if parent.candidate_id in done_parents:
                    continue
                mutant = mutate(parent, task_rng)
                if mutant is not None:
                    flt.submit(mutant)
        flt.wait()
        bar.close()

    def time_subset(self) -> None:
        n = self.config.timing.subset
        if n <= 0 or self.config.verify.measure:
            return
        kept_ids = sorted(
            cid for cid, r in self.verdicts.records.items() if kept(Verdict.from_dict(r["verdict"]))
        )
        todo = timing_choice(kept_ids, set(self.timed.records), n, self.config.seed)
        if not todo:
            return
        bar = self._bar(total=len(todo), desc="timing", unit="cand")
        for cid in todo:
            if self._out_of_time(reserve=min(self.config.budget.reserve_s, 20.0)):
                break
            c = Candidate.from_dict(self.verdicts.get(cid)["candidate"])
            future = self.timing_verifier.submit(
                self.task(c.task_id),
                c.code,
                sample=c.sample,
                turn=c.turn,
                model=c.teacher,
                sol_ms=self._sol_ms(c.task_id),
            )
            try:
                verdict = future.result()
            except Exception as e:  # noqa: BLE001 - a timing failure is recorded, not fatal
                log.warning("timing %s failed: %r", cid, e)
                continue
            self.timed.append({"candidate_id": cid, "verdict": verdict.to_dict()})
            bar.update(1)
        bar.close()

    def assemble(self) -> BuildResult:
        from benchmark.suite.manifest import Manifest, merge
        from benchmark.suite.validate import TaskReport

        data = BuildData(
            tasks={t: self.task(t) for t in self.records.records if t in self.synth},
            info={r["task_id"]: r for r in self.synth.values()},
            records=dict(self.records.records),
            verdicts={
                cid: (Candidate.from_dict(r["candidate"]), Verdict.from_dict(r["verdict"]))
                for cid, r in self.verdicts.records.items()
            },
            mutants={
                cid: (Candidate.from_dict(r["candidate"]), Verdict.from_dict(r["verdict"]))
                for cid, r in self.mutants.records.items()
            },
            timing={r["candidate_id"]: Verdict.from_dict(r["verdict"]) for r in self.timed.values()},
        )
        screen_info = self.state.stages().get("screen", {})
        synth_info = self.state.stages().get("synthesize", {})
        suite, index = self.suite_index()
        rows, solution_stats = assemble(
            data,
            self.config.prompts,
            index,
            self.config.rft.m,
            self.config.rft.threshold,
            self.config.seed,
            self.config.screen.program_threshold,
            self.config.screen.model_threshold,
        )
        valid_tasks = tuple(data.tasks[t] for t in data.valid())
        synth_suite = Suite(root=self.pool_root.resolve(), tasks=valid_tasks)
        reports = [TaskReport.from_dict(self.records.get(t.task_id)["report"]) for t in valid_tasks]
        manifest = merge(
            Manifest(), synth_suite, reports, self.gpu, self.profile, torch_versions(("triton",)), prune=True
        )
        manifest.save(self.pool_root / "manifest.json")
        tasks_rows = task_rows(synth_suite, manifest)
        this_run = time.monotonic() - self.t0
        runs = self.state.stages().get("runs", {}).get("seconds", {})
        stats = {
            "device": self.gpu,
            # the eager times' device record, so the card's task tables can be rendered again from the rows
            "manifest_devices": {slug: asdict(run) for slug, run in manifest.devices.items()},
            "versions": torch_versions(("triton",)),
            "config": self.config.to_dict(),
            "time": {
                "total_s": round(self._elapsed_total(), 1),
                "this_run_s": round(this_run, 1),
                "runs": len(set(runs) | {self.run_id}),
                "stages_s": {k: round(v, 1) for k, v in self.seconds.items()},
            },
            "tasks": {
                "candidates": screen_info.get("candidates"),
                "duplicates": screen_info.get("duplicates"),
                "unparsable": screen_info.get("unparsable"),
                "synthesized": self.state.stages().get("synthesize", {}).get("synthesized"),
                "imported": self.state.stages().get("synthesize", {}).get("imported"),
            },
            "decontamination_tasks": screen_info.get("audit", {}),
            "suite": {
                "version": screen_info.get("suite_version") or suite.version,
                "solutions_version": suite.version,
                "tasks": len(suite.tasks),
            },
            "sources": synth_info.get("sources", []),
            "import_errors": synth_info.get("import_errors", []),
            "solutions": solution_stats,
            "teacher": _teacher_info(self.config, self.offline_teacher),
            "rft": {"m": self.config.rft.m, "threshold": self.config.rft.threshold},
            "budget": {
                "minutes": self.config.budget.minutes,
                "target_tasks": self.config.budget.target_tasks,
                "stopped_early": bool(self.stop_reason),
                "reason": self.stop_reason,
                "tasks_not_processed": sum(
                    1 for r in self.screened.values() if r.get("kept") and r["task_id"] not in self.records
                ),
            },
            "splits": {k: len(v) for k, v in rows.items()} | {"tasks": len(tasks_rows)},
        }
        dataset = write_train_folder(
            self.out / "dataset",
            rows,
            tasks_rows,
            stats,
            self.config.output.name,
            self.config.output.license,
            self.config.output.repo,
            task_statistics=suite_docs.statistics(
                list(valid_tasks),
                manifest,
                families={t.task_id: data.info[t.task_id]["family"] for t in valid_tasks},
            ),
            license_files=[self.out / s["license_file"] for s in stats["sources"] if s.get("license_file")],
        )
        suite_dir = (
            write_suite_folder(self.out / "suite", suite, self.config.output.license)
            if self.config.output.export_suite
            else None
        )
        (self.out / "build_stats.json").write_text(
            json.dumps(stats, indent=1, sort_keys=True, default=str) + "\n"
        )
        (self.out / "stats.md").write_text(stats_markdown(stats))
        log.info("dataset: %s; %s", dataset, ", ".join(f"{k} {v}" for k, v in stats["splits"].items()))
        return BuildResult(self.out, dataset, suite_dir, stats)


def timing_choice(kept_ids: list[str], timed: set[str], n: int, seed: int) -> list[str]:
    """The kept solutions still to time so that `n` in all are: the ones timed by an earlier run of
    the build count, and the rest are drawn at random (seeded) from those not timed yet."""
    done = [cid for cid in kept_ids if cid in timed]
    rest = [cid for cid in kept_ids if cid not in timed]
    return random.Random(f"timing:{seed}").sample(rest, max(0, min(n - len(done), len(rest))))


def _teacher_info(config: BuildConfig, offline_teacher=None) -> dict:
    t = config.teacher
    if offline_teacher is not None:
        return {"kind": f"offline teacher given in code ({type(offline_teacher).__name__})"}
    if t.kind == "none":
        return {"kind": "none (tasks and prompts only)"}
    if t.kind == "inductor":
        return {
            "kind": "inductor (TorchInductor's Triton code, launched directly from ModelNew)",
            "variants": ", ".join(t.variants),
        }
    return {
        "kind": "model",
        "model": t.model,
        "samples per task": t.samples,
        "turns": t.turns,
        "temperature": t.temperature,
        "top_p": t.top_p,
    }


def build(config: BuildConfig, out: str | Path, **kw) -> BuildResult:
    return Builder(config, out, **kw).run()
