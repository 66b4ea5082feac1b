"""The child side of an evaluation: `python -m benchmark.evaluate.worker FD LIMITS`, started by
benchmark.evaluate.sandbox, or the same `serve` in a fresh fork of benchmark.evaluate.zygote.

Reads a job (JSON) from stdin. Everything about the reference (outputs for every correctness
trial and every timing input set, its timings) is computed *before* the candidate's code is
imported, or taken where it matches from what the parent kept of an earlier sample of the task
(the job's `reference`, benchmark.evaluate.reference_store); freed device memory is then poisoned, the
harness's own functions are fingerprinted, the candidate is loaded and the audit hook closes the
sandbox. The candidate is checked over
fresh-seed, alternate-shape and large-magnitude trials with the runtime anti-cheat checks, and
timed under the reference's protocol. The result is written, signed with the job's nonce, to the
private file descriptor FD; stdout and stderr belong to the candidate and are only logged."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import NoReturn

import torch

from benchmark.environment import device_environment
from benchmark.evaluate import confine
from benchmark.evaluate.anticheat import audit
from benchmark.evaluate.anticheat.census import census
from benchmark.evaluate.anticheat.integrity import (
    HarnessSnapshot,
    InputGuard,
    ThreadWatch,
    aliases,
    os_thread_count,
    output_problems,
)
from benchmark.evaluate.anticheat.kernels import kernel_flags, profile_forward
from benchmark.evaluate.candidate import (
    CandidateLoadError,
    load_candidate,
    prepare_torch_headers,
    report_clocks,
)
from benchmark.evaluate.channel import CLOCK_PREFIX, sign
from benchmark.evaluate.contention import census as gpu_census
from benchmark.evaluate.contention import wait_until_alone
from benchmark.evaluate.correctness import compare_outputs, flatten_outputs, rule_text, tolerance
from benchmark.evaluate.exact import ExactReference
from benchmark.evaluate.gpu_lock import DeviceLock
from benchmark.evaluate.program import (
    TaskProgram,
    detach_outputs,
    paired_arms,
    pin_precision,
    restate_seeds,
    time_model,
    timing_seeds,
    trial_plan,
)
from benchmark.evaluate.reference_store import (
    STORE_FORMAT,
    Fingerprint,
    Usage,
    pack,
    seal,
    storable,
    tensor_bytes,
    unpack,
)
from benchmark.evaluate.timing import TRACE_ENV, Timer, TimingConfig, least_drifted, trace_record
from benchmark.task import import_file

POISON_MIN_BYTES = 256 * 2**20  # poisoned even where the reference freed less
CONTENTION_RETRIES = 2  # timed phases repeated when a neighbour was seen around them


REFERENCE_KEYS = {
    "trial": ("outputs", "exact"),
    "timed": ("timed", "timed_exact"),
    "restated": ("restated", "restated_exact"),
}


def reference_input_sets(program: TaskProgram, plan, seed: int):
    """(kind, inputs) for every input set the reference is computed on, in the one order its
    outputs and its fingerprint follow: the trials, the timing sets, the stateful-check inputs."""
    for s, alt, scale in plan:
        yield "trial", program.inputs(s, alt, scale)
    for kind, seeds in (("timed", timing_seeds(seed)), ("restated", restate_seeds(seed))):
        for s in seeds:
            yield kind, program.inputs(s)


def rewrite_in_place(seen: list, new: list) -> list | None:
    """`seen`'s own tensors with `new`'s values copied in (same objects, same storage)."""
    for a, b in zip(seen, new, strict=True):
        if isinstance(a, torch.Tensor) != isinstance(b, torch.Tensor) or (
            isinstance(a, torch.Tensor) and (a.shape != b.shape or a.dtype != b.dtype)
        ):
            return None
    for a, b in zip(seen, new, strict=True):
        if isinstance(a, torch.Tensor):
            a.copy_(b)
    return seen


def at_seen_address(seen: list, new: list) -> list | None:
    """New tensor objects on `seen`'s storage holding `new`'s values (a recycled address)."""
    out = []
    for a, b in zip(seen, new, strict=True):
        if not isinstance(a, torch.Tensor):
            out.append(b)
            continue
        if a.shape != b.shape or a.dtype != b.dtype:
            return None
        t = torch.empty(0, dtype=a.dtype, device=a.device).set_(
            a.untyped_storage(), a.storage_offset(), a.shape, a.stride()
        )
        out.append(t.copy_(b))
    return out


def poison_free_memory(device: torch.device) -> None:
    """Fill the allocator's free memory with NaN bytes, so an output buffer that was never written
    cannot still hold the reference's result. What can hold it is memory this process reserved and
    no longer uses (at most its peak reservation less what is live), so that much is poisoned and
    kept cached for the candidate's allocations: twice the peak allocation, as before, put 28 GiB in
    each lane's child on a large task, and six lanes ran the H200 out of memory."""
    if device.type != "cuda":
        return
    torch.cuda.synchronize()
    stale = torch.cuda.max_memory_reserved(device) - torch.cuda.memory_allocated(device)
    torch.cuda.empty_cache()
    free, _ = torch.cuda.mem_get_info(device)
    size = min(int(free * 0.5), max(stale, POISON_MIN_BYTES))
    block = torch.empty(size, dtype=torch.uint8, device=device)
    block.fill_(0xFF)
    small = [torch.empty(2**19, dtype=torch.uint8, device=device).fill_(0xFF) for _ in range(64)]
    torch.cuda.synchronize()
    del block, small  # back to the caching allocator, which hands this memory out next


def holds_poison(t: object) -> bool:
    """Whether a float tensor holds the all-ones byte pattern `poison_free_memory` writes."""
    if (
        not isinstance(t, torch.Tensor)
        or not t.is_floating_point()
        or t.element_size() == 1
        or t.numel() == 0
    ):
        return False
    as_int = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    return bool((t.detach().contiguous().view(as_int) == -1).any())


def format_candidate_error(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    frames = [f for f in tb if "candidate" in os.path.basename(f.filename)]
    where = f" (candidate line {frames[-1].lineno})" if frames else ""
    return f"{type(e).__name__}: {e}{where}"[:4000]


class Evaluation:
    """One sample, phase by phase; `result` is the report sent back to the parent."""

    def __init__(self, job: dict):
        self.job = job
        self.device = torch.device(job["device"])
        self.seed = job["seed"]
        self.result: dict = {"status": None, "error": None, "flags": [], "flag_details": [], "phases": {}}
        self.t_start = time.monotonic()
        self.phases: dict[str, float] = {}
        self.os_threads_after_first_call = 0
        self.lock = DeviceLock(job.get("device_lock"))  # shared for checks, exclusive for timing
        self.neighbours: dict[str, None] = {}  # other processes seen on the GPU around timed phases
        # The process waiting for this verdict: no neighbour, even where it is not the parent (zygote).
        self.evaluator = {job["evaluator_pid"]} if job.get("evaluator_pid") else set()
        self.usage = Usage()  # what the reference phase took from the parent's store

    def flag(self, name: str, detail: str) -> None:
        if name not in self.result["flags"]:
            self.result["flags"].append(name)
        self.result["flag_details"].append(f"{name}: {detail}")

    def finish(self, status: str, error: str | None = None) -> dict:
        self.result["status"] = self.result["status"] or status
        self.result["error"] = self.result["error"] or error
        self.result["phases"] = {
            **self.phases,
            "lock_wait_s": self.lock.waited_s,
            "alone_s": self.lock.held_alone_s,
            "total_s": time.monotonic() - self.t_start,
        }
        return self.result

    def run(self) -> dict:
        job = self.job
        pin_precision()
        try:
            task_module = import_file(job["task_path"], "solbench_task")
        except BaseException as e:  # noqa: BLE001 - any failure of a task file is reported, not raised
            return self.finish("task_error", f"task {job['task_path']} failed to import: {e!r}")
        program = TaskProgram(task_module, self.device)
        self.result["env"] = device_environment(self.device)
        plan = trial_plan(job["trials"], program.n_alt(), self.seed, job.get("magnitude", 0.0))
        t0 = time.monotonic()
        self.phases["setup_s"] = t0 - self.t_start
        try:
            ref = self.reference_phase(program, task_module, plan)
        except BaseException as e:  # noqa: BLE001
            return self.finish("task_error", f"reference failed: {e!r}\n{traceback.format_exc(limit=3)}")
        self.phases["reference_s"] = time.monotonic() - t0

        threads = ThreadWatch()
        snapshot = HarnessSnapshot()
        with self.lock.shared():
            poison_free_memory(self.device)
        t0 = time.monotonic()
        try:
            model_cls = load_candidate(job["candidate_path"], job["builds_root"])
        except CandidateLoadError as e:
            self.phases["compile_s"] = time.monotonic() - t0
            return self.finish("compile_error", str(e))
        self.phases["compile_s"] = time.monotonic() - t0
        violations: list[str] = []
        audit.install([*job["write_dirs"], os.getcwd()], violations)

        try:
            status, error = self.candidate_phase(program, model_cls, plan, ref)
        except BaseException as e:  # noqa: BLE001 - a candidate may raise anything
            status, error = "runtime_error", format_candidate_error(e)
        if threads.started:
            self.flag("spawned_threads", f"{threads.started} Python thread(s) started by the candidate")
        for name in snapshot.changed():
            self.flag("harness_tampered", f"{name} was replaced")
        for v in dict.fromkeys(violations):
            self.flag("sandbox_violation", v)
        return self.finish(status, error)

    def reference_phase(self, program: TaskProgram, task_module, plan) -> dict:
        """Eager and exact outputs for every trial, timing set and stateful-check input, the floor,
        and the reference's timings: all before the candidate's code is imported. What the parent's
        store gave (the job's `reference`) stands in where this child's environment and inputs are
        the ones it was computed for; what this child computed is offered back, sealed."""
        job = self.job
        stored, mac_key = self.same_environment(job.pop("reference", None)), job.pop("store_key", None)
        had_entry = stored is not None or bool(self.usage.stale)
        model = program.build(task_module.Model, self.seed)
        ref = None
        with torch.no_grad(), self.lock.shared():
            if stored is not None and stored.get("blob"):
                fingerprint = self.fingerprint(program, model, plan)
                stored = self.same_inputs(stored, fingerprint)
                ref = self.stored_outputs(stored) if stored is not None else None
            if ref is None:
                # The fingerprint only matters to the store: a job without one is not hashed.
                ref, fingerprint = self.reference_outputs(
                    program, model, plan, mac_key is not None or stored is not None
                )
                stored = self.same_inputs(stored, fingerprint)
            kept = stored["summary"] if stored is not None else {}
            self.result["sol_ms"] = (
                kept["sol_ms"] if stored is not None else self.floor(program, model, plan[0][0])
            )
        self.timer = None
        fresh_timing = job["measure"] and self.reference_timing(program, model, kept)
        self.usage.measurements = stored is not None and not fresh_timing
        if mac_key is not None:
            self.result["reference_store"] = self.usage.describe(had_entry)
            self.offer(mac_key, ref, fingerprint, stored)
        return ref

    def reference_timing(self, program: TaskProgram, model, kept: dict) -> bool:
        """Time the reference alone, always in this process: it caps the interleaved reference of this
        same process, and another process's time differs by whatever differs between processes (the
        speedup of one kernel moved 10% between processes on the H200). torch.compile of it, with that
        baseline, is timed unless the store's entry `kept` holds it; whether that was timed here."""
        job = self.job
        self.reference_model = model  # timed again beside the candidate
        fresh = False
        with self.lock.exclusive():
            self.timer = Timer(job["device"], TimingConfig(**job.get("timing", {})))
            brief = self.timer.config.brief()
            alone = asdict(self.alone(lambda: time_model(self.timer, program, model, self.seed, brief)))
            self.result["reference_alone_time"] = alone
            if job.get("baseline") == "compile":
                compiled_time = kept.get("compile_time")
                if compiled_time is None:
                    fresh, compiled = True, torch.compile(model)
                    compiled_time = asdict(
                        self.alone(lambda: time_model(self.timer, program, compiled, self.seed))
                    )
                    del compiled
                self.result["compile_time"] = compiled_time
        return fresh

    def reference_outputs(
        self, program: TaskProgram, model, plan, fingerprinted: bool
    ) -> tuple[dict, str | None]:
        """The reference's outputs, eager and exact, on every input set, and (`fingerprinted`) the
        fingerprint of those inputs and of the model (benchmark.evaluate.reference_store.Fingerprint)."""
        fingerprint = Fingerprint(model) if fingerprinted else None
        ref: dict = {"aliases": False, **{key: [] for keys in REFERENCE_KEYS.values() for key in keys}}
        exact = ExactReference(model, program.inputs(plan[0][0], plan[0][1], plan[0][2]))
        for kind, inputs in reference_input_sets(program, plan, self.seed):
            if fingerprint is not None:
                fingerprint.update(inputs)  # first: eager may mutate its inputs
            out_key, exact_key = REFERENCE_KEYS[kind]
            ref[exact_key].append(detach_outputs(exact(inputs)))  # before eager, as above
            out = model(*inputs)
            if kind == "trial":
                ref["aliases"] |= aliases(flatten_outputs(out), inputs)
            ref[out_key].append(detach_outputs(out))
        self.exact_reference = str(exact.dtype).removeprefix("torch.") if exact.model is not None else "eager"
        self.exact_failure = exact.failure
        return ref, fingerprint.hexdigest() if fingerprint is not None else None

    # The parent's store (benchmark.evaluate.reference_store): anything wrong with an entry means computing.
    def same_environment(self, stored: dict | None) -> dict | None:
        if stored is None:
            return None
        if not isinstance(stored.get("summary"), dict) or stored["summary"].get("format") != STORE_FORMAT:
            self.usage.stale.append("another format")
            return None
        if stored["summary"].get("env") != self.result["env"]:
            self.usage.stale.append("computed in another environment")
            return None
        return stored

    def same_inputs(self, stored: dict | None, fingerprint: str | None) -> dict | None:
        if stored is None or stored["summary"].get("inputs") == fingerprint:
            return stored
        self.usage.stale.append("computed on other inputs or model weights")
        return None

    def fingerprint(self, program: TaskProgram, model, plan) -> str:
        """The fingerprint `reference_outputs` computes, from the input sets alone (no forward)."""
        fingerprint = Fingerprint(model)
        for _, inputs in reference_input_sets(program, plan, self.seed):
            fingerprint.update(inputs)
        return fingerprint.hexdigest()

    def stored_outputs(self, stored: dict) -> dict | None:
        summary = stored["summary"]
        try:
            ref = unpack(stored["blob"], self.device)
            if set(ref) != {"aliases", *(key for keys in REFERENCE_KEYS.values() for key in keys)}:
                raise ValueError(f"keys {sorted(ref)}")
        except Exception as e:  # noqa: BLE001 - an unreadable entry is computed afresh
            self.usage.stale.append(f"unreadable outputs ({e!r})"[:200])
            return None
        self.exact_reference, self.exact_failure = summary["exact_reference"], summary["exact_failure"]
        self.usage.outputs = True
        return ref

    def offer(self, mac_key: str, ref: dict, fingerprint: str, stored: dict | None) -> None:
        """What this child computed and the store lacks, sealed now, before the candidate loads: the
        outputs where they fit the job's bound, the floor, and torch.compile's time measured alone (the
        reference's own time alone is never shared: see reference_timing)."""
        blob = stored["blob"] if self.usage.outputs else self.packed(ref)
        if self.usage.measurements and (self.usage.outputs or blob is None):
            return  # nothing the store does not hold already
        alone = not self.result.get("contended")
        summary = {
            "format": STORE_FORMAT,
            "env": self.result["env"],
            "inputs": fingerprint,
            "exact_reference": self.exact_reference,
            "exact_failure": self.exact_failure,
            "sol_ms": self.result.get("sol_ms"),
            "compile_time": self.result.get("compile_time") if alone else None,
        }
        self.result["reference_offer"] = {
            "summary": summary,
            "blob": blob,
            "mac": seal(mac_key, summary, blob),
        }

    def packed(self, ref: dict) -> str | None:
        """The outputs as the store keeps them, or None where they exceed the job's bound."""
        limit = int(self.job.get("reference_entry_bytes", 0))
        if not storable(ref) or tensor_bytes(ref) * 4 // 3 > limit:
            return None
        try:
            blob = pack(ref)
        except Exception:  # noqa: BLE001 - outputs that cannot be written are not kept
            return None
        return blob if len(blob) <= limit else None

    def floor(self, program: TaskProgram, model, seed: int) -> float | None:
        """The task's speed-of-light time on this GPU from its own tensors and FLOPs (benchmark.evaluate.sol)."""
        if self.device.type != "cuda":
            return None
        from benchmark.evaluate.device_profile import load_profile
        from benchmark.evaluate.sol import count, floor_ms

        profile = load_profile(torch.cuda.get_device_properties(self.device).name)
        if profile is None:
            return None
        try:
            counts, _ = count(model, program.inputs(seed))
        except Exception:  # noqa: BLE001 - a forward the FLOP counter cannot trace has no floor
            return None
        dtype = str(self.job.get("dtype") or "float32")
        return floor_ms(counts, profile, dtype)

    def alone(self, timed):
        """Run a timed phase while no other process uses the GPU: wait for neighbours to leave, time,
        look again; repeat when one was seen, and mark the sample `contended` if one always was."""
        stats = None
        wait_s = self.timer.config.contention_wait_s
        for _ in range(CONTENTION_RETRIES + 1 if wait_s > 0 else 1):
            known = self.lock.members() | self.evaluator
            before = wait_until_alone(self.device, wait_s, known)
            stats = timed()
            after = gpu_census(self.device, known | self.lock.members())
            if not before.available:
                if self.device.type == "cuda":
                    self.result["contention_check"] = before.why
                return stats
            seen = before.neighbours + after.neighbours
            if not seen:
                return stats
            self.neighbours.update(dict.fromkeys(seen))
        self.result["contended"] = True
        self.result["gpu_neighbours"] = list(self.neighbours)
        return stats

    def candidate_phase(self, program: TaskProgram, model_cls, plan, ref) -> tuple[str, str | None]:
        t0 = time.monotonic()
        model = program.build(model_cls, self.seed)
        with self.lock.shared():
            failure = self.check_candidate(program, model, plan, ref)
        self.phases["correctness_s"] = time.monotonic() - t0
        if failure:
            return "incorrect", failure
        t0 = time.monotonic()
        if self.timer:
            self.time_candidate(program, model, ref)
        self.phases["timing_s"] = time.monotonic() - t0
        with self.lock.shared():
            stale = self.check_stateful(program, model, ref)
        if stale:
            return "incorrect", stale
        if os_thread_count() > self.os_threads_after_first_call:
            self.flag("spawned_threads", "native threads were still running after the candidate's calls")
        if self.device.type == "cuda":
            # Last, because the profiler leaves CUDA's tracing threads and overhead behind it.
            t0 = time.monotonic()
            with self.lock.shared():
                inputs = program.inputs(plan[0][0])  # made on the device
                torch.cuda.synchronize()
            with torch.no_grad():
                evidence = profile_forward(model, *inputs, device_lock=self.lock.shared)
            self.phases["profile_s"] = time.monotonic() - t0
            for name, detail in kernel_flags(evidence):
                self.flag(name, detail)
        return "pass", None

    def check_candidate(self, program: TaskProgram, model, plan, ref) -> str | None:
        """Every correctness trial with the runtime checks; the first failure's description, or None."""
        job = self.job
        checked = {"trials": len(plan), "passed": 0, "max_abs_err": 0.0, "max_rel_err": 0.0}
        first = next((o for o in flatten_outputs(ref["outputs"][0]) if isinstance(o, torch.Tensor)), None)
        a, r = tolerance(first.dtype, job.get("atol"), job.get("rtol")) if first is not None else (None, None)
        checked["reference"] = self.exact_reference
        checked["rule"] = rule_text(self.exact_reference, a, r) + (
            f" (no exact reference: {self.exact_failure})" if self.exact_failure else ""
        )
        self.result["correctness"] = checked
        cuda = self.device.type == "cuda"
        for i, ((s, alt, scale), ref_out, exact) in enumerate(
            zip(plan, ref["outputs"], ref["exact"], strict=True)
        ):
            inputs = program.inputs(s, alt, scale)
            guard = InputGuard(inputs)
            with torch.no_grad():
                if i == 0:
                    out, compute_ops = census(model, *inputs)
                    if compute_ops:
                        self.flag("aten_compute_op", "forward dispatched " + ", ".join(compute_ops[:8]))
                else:
                    out = model(*inputs)
            if cuda:
                torch.cuda.synchronize()
            if i == 0:
                self.os_threads_after_first_call = os_thread_count()
            if guard.mutated():
                self.flag("input_mutation", f"inputs {guard.mutated()} changed during trial {i}")
            outs = flatten_outputs(out)
            if aliases(outs, inputs) and not ref["aliases"]:
                self.flag("output_aliases_input", f"trial {i}")
            for name, detail in output_problems(outs, flatten_outputs(ref_out)):
                self.flag(name, detail)
            cmp = compare_outputs(ref_out, out, job.get("atol"), job.get("rtol"), exact=exact)
            checked["max_abs_err"] = max(checked["max_abs_err"], cmp.max_abs_err)
            checked["max_rel_err"] = max(checked["max_rel_err"], cmp.max_rel_err)
            if cmp.max_eager_err is not None:
                checked["max_eager_err"] = max(checked.get("max_eager_err") or 0.0, cmp.max_eager_err)
            if not cmp.ok:
                if cuda and any(holds_poison(o) for o in outs):
                    self.flag("uninitialized_output", f"trial {i}: the output holds memory nothing wrote")
                checked.update(first_failing_trial=i, detail=cmp.detail)
                kind = " (large-magnitude inputs)" if scale != 1.0 else ""
                return f"trial {i}{kind}: {cmp.detail}"
            checked["passed"] += 1
        return None

    def time_candidate(self, program: TaskProgram, model, ref) -> None:
        """Time the candidate interleaved with the reference on the same input sets, holding the device
        alone, again while the reference drifted beyond the cap (`timing.least_drifted`; the lock is
        released between tries, so another moment's host load is timed), then recheck the timed calls'
        outputs."""
        job = self.job
        kept: dict[int, object] = {}
        sets = [program.inputs(s) for s in timing_seeds(self.seed)]
        arms = paired_arms(self.reference_model, model, sets, keep=kept)

        def attempt():
            kept.clear()
            with self.lock.exclusive(), torch.no_grad():
                timed = self.alone(lambda: self.timer.interleaved(arms))
            # every try's outputs and streams are checked, whichever try counts
            for k, (expected, exact) in enumerate(zip(ref["timed"], ref["timed_exact"], strict=True)):
                if (
                    k in kept
                    and not compare_outputs(
                        expected, kept[k], job.get("atol"), job.get("rtol"), exact=exact
                    ).ok
                ):
                    self.flag("timed_output_mismatch", f"the output of timing input set {k} is wrong")
            ref_gap, gap = timed.stream_gaps_ms
            if self.device.type == "cuda" and gap > ref_gap + max(0.05, 0.25 * timed.stats[1].median_ms):
                self.flag(
                    "side_stream", f"{gap:.3f} ms of device work finished after the current stream was done"
                )
            return timed

        alone = self.result.get("reference_alone_time")
        timed, tries = least_drifted(
            attempt, alone["median_ms"] if alone else None, self.timer.config.drift_retries
        )
        if tries > 1:
            self.result["timing_tries"] = tries
        ref_stats, stats = timed.stats
        self.result["reference_time"] = asdict(ref_stats)
        self.result["candidate_time"] = asdict(stats)
        self.result["paired_speedup"] = timed.ratio
        self.result["speedup_spread"] = timed.ratio_spread
        if self.device.type == "cuda" and self.timer.config.launch_behind_flush:
            self.result["launch_cover_ms"] = timed.cover_ms
        self.result["warmup"] = asdict(timed.warmup)
        if os.environ.get(TRACE_ENV):
            self.result["timing_trace"] = trace_record(timed)

    def check_stateful(self, program: TaskProgram, model, ref) -> str | None:
        """Catch a memoized output: after the timed calls, call the candidate on a seen input rewritten
        in place (same object, same storage, new values), then on a new tensor at a seen address."""
        job = self.job
        seen = program.inputs(timing_seeds(self.seed)[0])
        cases = (
            ("an input rewritten in place", rewrite_in_place),
            ("a new input at a seen address", at_seen_address),
        )
        with torch.no_grad():
            model(*seen)
            for (what, make), s, expected, exact in zip(
                cases, restate_seeds(self.seed), ref["restated"], ref["restated_exact"], strict=True
            ):
                args = make(seen, program.inputs(s))
                if args is None:  # the task's inputs change shape with the seed: nothing to compare
                    return None
                out = model(*args)
                if self.device.type == "cuda":
                    torch.cuda.synchronize()
                cmp = compare_outputs(expected, out, job.get("atol"), job.get("rtol"), exact=exact)
                if not cmp.ok:
                    self.flag("stale_output", f"on {what}: {cmp.detail}")
                    return f"stale output on {what}: {cmp.detail}"
        return None


def build_only(job: dict) -> dict:
    """Compile the candidate's extensions into the shared cache (no task, no GPU needed). Builds run
    niced, compilers included, so on a busy host the CPU goes first to the evaluation children,
    whose timing and trailing-work measurements depend on the host being prompt."""
    os.nice(BUILD_NICENESS)
    t0 = time.monotonic()
    try:
        load_candidate(job["candidate_path"], job["builds_root"])
    except CandidateLoadError as e:
        return {
            "status": "compile_error",
            "error": str(e),
            "final": e.kind.final,
            "compile_s": time.monotonic() - t0,
        }
    return {"status": "built", "compile_s": time.monotonic() - t0}


def headers_only(job: dict) -> dict:
    """Precompile torch's extension header for the default flags (candidate.prepare_torch_headers),
    niced as builds are."""
    os.nice(BUILD_NICENESS)
    t0 = time.monotonic()
    ready = prepare_torch_headers(Path(job["builds_root"]))
    return {"status": "built", "ready": ready, "compile_s": time.monotonic() - t0}


BUILD_NICENESS = 10  # added to a build child's niceness (an unprivileged process may only raise it)


def main() -> None:
    """`python -m benchmark.evaluate.worker FD LIMITS`: a fresh interpreter serving one job."""
    serve(int(sys.argv[1]), confine.Limits.from_arg(sys.argv[2]))


def serve(fd: int, limits: confine.Limits) -> NoReturn:
    """The one body of every worker, spawned or forked: confine this process (benchmark.evaluate.confine),
    read the job from stdin, run it, write the signed result to FD and exit."""
    confine.apply(limits)
    job = json.loads(sys.stdin.read())
    nonce = job.pop("nonce")
    # Keep the channel on a descriptor of our own choosing and close the one the parent named.
    channel = os.fdopen(os.dup(fd), "w")
    os.close(fd)

    def report_clock(name: str) -> None:
        """Tell the parent which limit the time from now on counts against (benchmark.evaluate.sandbox)."""
        channel.write(json.dumps({"clock": name, "mac": sign(nonce, CLOCK_PREFIX + name)}) + "\n")
        channel.flush()

    report_clocks(report_clock, job.pop("clock", "run"))
    try:
        only = {"build": build_only, "headers": headers_only}.get(job.get("mode"))
        result = only(job) if only else Evaluation(job).run()
    except BaseException as e:  # noqa: BLE001 - report harness failures rather than die silently
        result = {"status": "runtime_error", "error": f"harness error: {e!r}\n{traceback.format_exc()}"}
    body = json.dumps(result)
    channel.write(json.dumps({"body": body, "mac": sign(nonce, body)}) + "\n")
    channel.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip atexit handlers and non-daemon threads a candidate may have left


if __name__ == "__main__":
    main()
