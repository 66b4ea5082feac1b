"""The judge: the process that decides a sample's verdict, and never runs the candidate's code.

It imports the task, computes the reference's outputs (eager and exact) on every input set it will
use, the floor and the reference's timings, or takes them from what the parent kept of an earlier
sample (benchmark.evaluate.reference_store). Every input set is drawn from seeds that derive from
the job's secret input seed. Meanwhile the candidate's process (benchmark.evaluate.candidate_server)
imports the candidate. Then the judge drives it through the channel (benchmark.evaluate.link): it
writes each input set to the arena, has forward called on it, reads the outputs back and compares
them itself; it times the reference in this process and the candidate in its own, round by round,
and makes every statistic from the raw times it is sent, checking them against the wall time it saw
and the kernels the profiler saw. The expected outputs and the comparison never leave this process.

The result is written, signed with the job's nonce, to the private descriptor the parent gave
(benchmark.evaluate.worker); it reports its clock there too: "wait" while it waits for the device
lock, which no limit is charged for."""

from __future__ import annotations

import os
import re
import statistics
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch

from benchmark.environment import device_environment
from benchmark.evaluate.anticheat.integrity import aliases
from benchmark.evaluate.anticheat.kernels import KernelEvidence, evidence, kernel_flags
from benchmark.evaluate.boundary import (
    MEMORY_ENV,
    PHASES,
    ROOM_ENV,
    TASK_ERROR,
    Calibration,
    Call,
    Done,
    Fetch,
    Finish,
    JudgeJob,
    JudgeReport,
    Kernels,
    Observations,
    Outputs,
    Ping,
    Prepare,
    Profile,
    Restate,
    Setup,
    StoredReference,
    TimingSets,
    ValueSpec,
)
from benchmark.evaluate.contention import census as gpu_census
from benchmark.evaluate.contention import memory_reading, wait_until_alone
from benchmark.evaluate.correctness import compare_outputs, flatten_outputs, rule_text, tolerance
from benchmark.evaluate.exact import ExactReference
from benchmark.evaluate.gpu_lock import DeviceLock
from benchmark.evaluate.link import CandidateClient, CandidateLost, CandidateRaised, Link, Rechecks, RemoteArm
from benchmark.evaluate.program import (
    TaskProgram,
    cuda_on_cpu,
    detach_outputs,
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
    storable,
    tensor_bytes,
    unpack,
)
from benchmark.evaluate.timing import (
    TRACE_ENV,
    Interleaved,
    LocalArm,
    Timer,
    least_drifted,
    prepare_host,
    trace_record,
)
from benchmark.evaluate.transfer import Arena, Opaque, Uncopied, aligned, dtype_named, tensor_specs
from benchmark.task import import_file
from benchmark.verdict import Correctness, TimingStats

CONTENTION_RETRIES = 2  # timed phases repeated when a neighbour was seen around them
REFERENCE_KEYS = {
    "trial": ("outputs", "exact"),
    "timed": ("timed", "timed_exact"),
    "restated": ("restated", "restated_exact"),
}
REFERENCE_KEYS_OUT = tuple(out for out, _ in REFERENCE_KEYS.values())
# The wall-time cross-check of the candidate's reported times (`Judge.check_reported_times`): the
# candidate's process may spend at most this much longer per timed call than the reference's does in
# this process, beyond the channel's round trip, before its reported times are called unaccounted for.
UNACCOUNTED_MS = 0.2
UNACCOUNTED_SHARE = 0.5  # ... or this share of its own reported median, whichever is larger
CLOCK_SLACK = 1.01  # a reported call may not last longer than the judge saw it take (clocks differ slightly)
PROFILE_SLACK = 1.5  # the profiled call's kernels may take this much of the reported median ...
PROFILE_SLACK_MS = 0.02  # ... plus this, before the reported times are called too short for them
PROFILE_TRIES = 3  # profiles taken before one over that bound is flagged
# Expected outputs (eager and exact, of every input set) the judge keeps on the device; those beyond are
# computed again when their comparison comes (`Deferred`). A big task's eleven sets held 8+ GiB per
# judge, which kept lanes from running side by side; copying them to host memory instead cost each
# sample 8 s.
REFERENCE_DEVICE_BYTES = 2 * 2**30
PINGS = 15  # round trips timed to know the channel's own latency
UNACCOUNTED_MIN_CALLS = 10  # timed calls of each arm below which the medians say too little to judge
# Recorded (env `timing_unaccounted_ms`, `timing_walls_ms`) but not flagged while honest candidates
# still show a cost of the channel that is not accounted for (dev/LOG.md, 2026-12-06)
FLAG_UNACCOUNTED = False
# Work left running by the candidate's process (`Judge.check_left_work`): the reference right after
# the candidate's call may run this much slower than right after its own ...
DEFERRED_RATIO = 1.5
DEFERRED_WAIT_MS = 0.5  # ... or wait this much longer for the GPU (or this share of the candidate's median)
DEFERRED_WAIT_SHARE = 0.5


def reference_input_sets(plan, seed: int):
    """(kind, (seed, alternate shape, scale)) of every input set the reference is computed on, in the
    one order its outputs and its fingerprint follow: the trials, the timing sets, the stateful-check
    inputs (`TaskProgram.inputs` makes each)."""
    for args in plan:
        yield "trial", tuple(args)
    for kind, seeds in (("timed", timing_seeds(seed)), ("restated", restate_seeds(seed))):
        for s in seeds:
            yield kind, (s, None, 1.0)


@dataclass(frozen=True)
class Deferred:
    """An expected output the judge did not keep (REFERENCE_DEVICE_BYTES): the input set it is
    computed again from when its comparison comes (`Judge.expected`)."""

    seed: int
    alt: int | None
    scale: float


def holds_poison(t: object) -> bool:
    """Whether a float tensor holds the all-ones byte pattern the candidate's process wrote into its
    free memory before the candidate ran (benchmark.evaluate.candidate_server.poison_free_memory)."""
    if (
        not isinstance(t, torch.Tensor)
        or not t.is_floating_point()
        or t.element_size() == 1
        or t.numel() == 0
    ):
        return False
    as_int = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    return bool((t.detach().contiguous().view(as_int) == -1).any())


def room(values: object, layout: bool) -> int:
    """Arena bytes `values` take (benchmark.evaluate.transfer.Arena.pack): the storage span of each
    tensor with `layout`, else its values."""
    if isinstance(values, torch.Tensor):
        if not layout or values.numel() == 0:
            return aligned(values.numel() * values.element_size())
        span = 1 + sum((d - 1) * s for d, s in zip(values.shape, values.stride(), strict=True))
        return aligned(span * values.element_size())
    if isinstance(values, list | tuple):
        return sum(room(v, layout) for v in values)
    return 0


class Judge:
    """One sample, phase by phase; `run` returns the report sent back to the parent."""

    def __init__(
        self,
        job: JudgeJob,
        link: Link,
        report_clock: Callable[[str], None] | None = None,
        report_phase: Callable[[str], None] | None = None,
    ):
        self.job = job
        self.report_phase = report_phase or (lambda name: None)
        self.device = torch.device(job.device)
        self.cuda = self.device.type == "cuda"
        self.client = CandidateClient(link)
        self.report_clock = report_clock or (lambda name: None)
        self.lock = DeviceLock(job.device_lock, on_wait=self._waiting)
        self.flags: list[str] = []
        self.flag_details: list[str] = []
        self.phases: dict[str, float] = {}
        self.t_start = time.monotonic()
        self.env: dict[str, str] = {}
        self.correctness = Correctness()
        self.times: dict[str, dict | None] = {}
        self.ratio: tuple[float | None, float | None] = (None, None)
        self.sol_ms: float | None = None
        self.contended = False
        self.neighbours: dict[str, None] = {}  # other processes seen on the GPU around timed phases
        self.waited_for: dict[str, None] = {}  # ... and those waited for before one, gone by then
        self.waited_s = 0.0
        self.offer: StoredReference | None = None
        self.trace: dict | None = None
        self.usage = Usage()  # what the reference phase took from the parent's store
        self.exact_reference, self.exact_failure = "eager", None
        self.timer: Timer | None = None
        self.arena: Arena | None = None
        self.in_room = 0  # arena bytes the largest input set takes, exact layout
        self.kept_on_device = 0  # bytes of expected outputs kept on the device (`keeps`) ...
        self.out_room = 0  # ... and the largest expected output, packed
        self.program: TaskProgram | None = None
        self.exact_model: ExactReference | None = None  # held where an expected output is `Deferred`
        self.timing_specs: tuple | None = None
        self.candidate_pid: int | None = None
        self._doing = "setup"

    # bookkeeping

    def phase(self, name: str) -> None:
        """What the judge does from now on (PHASES), told to the parent as it changes."""
        self._doing = name
        self.report_phase(name)

    @property
    def doing(self) -> str:
        return PHASES[self._doing]

    def _waiting(self, waiting: bool) -> None:
        self.report_clock("wait" if waiting else "run")

    def flag(self, name: str, detail: str) -> None:
        if name not in self.flags:
            self.flags.append(name)
        self.flag_details.append(f"{name}: {detail}")

    def report(self, status: str, error: str | None = None, lost: str | None = None) -> JudgeReport:
        phases = {
            **self.phases,
            "lock_wait_s": self.lock.waited_s,
            "alone_s": self.lock.held_alone_s,
            "total_s": time.monotonic() - self.t_start,
        }

        def stats(name: str) -> TimingStats | None:
            d = self.times.get(name)
            return TimingStats(**d) if d else None

        return JudgeReport(
            status=status,
            error=error,
            flag_details=tuple(self.flag_details),
            correctness=self.correctness,
            reference_alone_time=stats("reference_alone_time"),
            reference_time=stats("reference_time"),
            candidate_time=stats("candidate_time"),
            compile_time=stats("compile_time"),
            paired_speedup=self.ratio[0],
            speedup_spread=self.ratio[1],
            sol_ms=self.sol_ms,
            contended=self.contended,
            env=self.env,
            phases=phases,
            reference_offer=self.offer,
            timing_trace=self.trace,
            candidate_lost=lost,
        )

    # the sample

    def run(self) -> JudgeReport:
        job = self.job
        pin_precision()
        try:
            task_module = import_file(job.task_path, "solbench_task")
        except BaseException as e:  # noqa: BLE001 - any failure of a task file is reported, not raised
            cause = cuda_on_cpu(e, self.device) or repr(e)
            return self.report(TASK_ERROR, f"task {job.task_path} failed to import: {cause}")
        program = self.program = TaskProgram(task_module, self.device)
        self.device_env = dict(device_environment(self.device))  # what the store's entries must match
        self.env.update(self.device_env)
        plan = trial_plan(job.trials, program.n_alt(), job.input_seed, job.magnitude)
        t0 = time.monotonic()
        self.phases["setup_s"] = t0 - self.t_start
        self.phase("reference")
        try:
            ref = self.reference_phase(program, task_module, plan)
        except BaseException as e:  # noqa: BLE001
            cause = cuda_on_cpu(e, self.device)
            why = cause or f"{e!r}\n{traceback.format_exc(limit=3)}"
            return self.report(TASK_ERROR, f"reference failed: {why}")
        self.phases["reference_s"] = time.monotonic() - t0
        try:
            try:
                status, error = self.candidate_phase(program, plan, ref)
            except CandidateRaised as e:
                status, error = "runtime_error", str(e)
            self.note_memory()
            if self.client.loaded is not None and self.client.loaded.error is None:
                self.phase("observations")  # whatever the verdict: flags stand beside it
                self.observe(self.client.ask(Finish(), Observations))
        except CandidateLost as e:
            return self.report(
                "runtime_error", f"the candidate's process ended during {self.doing} ({e})", self.doing
            )
        finally:
            if self.arena is not None:
                self.arena.close()
            # (the candidate's process stays admitted to the lock: the parent dismisses it once gone)
        if self.neighbours:
            self.env["gpu_neighbours"] = "; ".join(self.neighbours)
        if self.waited_for:
            self.env["neighbour_wait"] = f"{self.waited_s:.2f} s for " + "; ".join(self.waited_for)
        return self.report(status, error)

    # the reference

    def reference_phase(self, program: TaskProgram, task_module, plan) -> dict:
        """Eager and exact outputs for every trial, timing set and stateful-check input, the floor,
        and the reference's timings. What the parent's store gave (the job's `reference`) stands in
        where this judge's environment and inputs are the ones it was computed for; what this judge
        computed is offered back for the next sample."""
        job = self.job
        stored = self.same_environment(job.reference)
        had_entry = stored is not None or bool(self.usage.stale)
        model = program.build(task_module.Model, job.seed)
        ref = None
        fingerprinted = job.keeps_reference or stored is not None
        with torch.no_grad(), self.lock.shared():
            if stored is not None and stored.blob:
                fingerprint = self.fingerprint(program, model, plan)
                stored = self.same_inputs(stored, fingerprint)
                ref = self.stored_outputs(stored) if stored is not None else None
            if ref is None:
                ref, fingerprint = self.reference_outputs(program, model, plan, fingerprinted)
                stored = self.same_inputs(stored, fingerprint)
            kept = stored.summary if stored is not None else {}
            self.sol_ms = kept["sol_ms"] if stored is not None else self.floor(program, model, plan[0][0])
        self.out_room = max(self.out_room, *(room(o, False) for key in REFERENCE_KEYS_OUT for o in ref[key]))
        fresh_timing = job.measure and self.reference_timing(program, model, kept)
        self.usage.measurements = stored is not None and not fresh_timing
        self.reference_model = model
        if job.keeps_reference:
            self.env["reference_store"] = self.usage.describe(had_entry)
            self.offer_reference(ref, fingerprint, stored)
        return ref

    def reference_timing(self, program: TaskProgram, model, kept: dict) -> bool:
        """The timer, and (with that baseline) torch.compile of the reference timed, unless the
        store's entry `kept` holds it; whether that was timed here. The reference's own time alone is
        taken beside the candidate's process (`time_alone`)."""
        job = self.job
        compiled_time = kept.get("compile_time") if job.baseline == "compile" else None
        fresh = job.baseline == "compile" and compiled_time is None
        # The timer's calibration (`CallTimer`'s empty brackets) holds the device shared, as the
        # candidate's process makes its own: taking it alone drains every other lane's device work
        # once more per sample. Alone only where torch.compile's time is measured here.
        with self.lock.exclusive() if fresh else self.lock.shared():
            self.timer = Timer(job.device, job.timing)
            if fresh:
                compiled = torch.compile(model)
                compiled_time = asdict(
                    self.alone(lambda: time_model(self.timer, program, compiled, job.input_seed))
                )
                del compiled
        if compiled_time is not None:
            self.times["compile_time"] = compiled_time
        return fresh

    def _note_inputs(self, inputs: list) -> None:
        """Arena room: the largest input set, with its exact layout."""
        self.in_room = max(self.in_room, room(inputs, True))

    def reference_outputs(
        self, program: TaskProgram, model, plan, fingerprinted: bool
    ) -> tuple[dict, str | None]:
        """The reference's outputs, eager and exact, on every input set, and (`fingerprinted`) the
        fingerprint of those inputs and of the model (benchmark.evaluate.reference_store.Fingerprint)."""
        fingerprint = Fingerprint(model) if fingerprinted else None
        ref: dict = {"aliases": False, **{key: [] for keys in REFERENCE_KEYS.values() for key in keys}}
        exact = ExactReference(model, program.inputs(*plan[0]))
        deferred = 0
        for kind, args in reference_input_sets(plan, self.job.input_seed):
            inputs = program.inputs(*args)
            self._note_inputs(inputs)
            if fingerprint is not None:
                fingerprint.update(inputs)  # first: eager may mutate its inputs
            exact_out = detach_outputs(exact(inputs))  # before eager, as above
            out = model(*inputs)
            if kind == "trial":
                ref["aliases"] |= aliases(flatten_outputs(out), inputs)
            out = detach_outputs(out)
            self.out_room = max(self.out_room, room(out, False))
            out_key, exact_key = REFERENCE_KEYS[kind]
            if self.keeps((out, exact_out), kind):
                ref[out_key].append(out)
                ref[exact_key].append(exact_out)
            else:
                deferred += 1
                ref[out_key].append(Deferred(*args))
                ref[exact_key].append(None)
            del out, exact_out
        if deferred:
            self.exact_model = exact
            self.env["reference_deferred_sets"] = str(deferred)
            torch.cuda.empty_cache()  # the dropped outputs' blocks back to the driver, for the other lanes
        self.exact_reference = str(exact.dtype).removeprefix("torch.") if exact.model is not None else "eager"
        self.exact_failure = exact.failure
        return ref, fingerprint.hexdigest() if fingerprint is not None else None

    def keeps(self, value, kind: str) -> bool:
        """Whether this judge keeps an input set's expected outputs: while those kept fit in
        REFERENCE_DEVICE_BYTES, and always the first set's and a timing set's (their comparisons run
        inside the exclusive hold of the device, which a forward of the reference would lengthen).
        The rest are computed again for their comparison (`expected`)."""
        size = tensor_bytes(value)
        over = self.kept_on_device and self.kept_on_device + size > REFERENCE_DEVICE_BYTES
        if self.cuda and kind != "timed" and over:
            return False
        self.kept_on_device += size
        return True

    def expected(self, out, exact) -> tuple[object, object]:
        """An input set's expected outputs, eager and exact: as kept, or computed again from the same
        seeds in the same order (exact first: eager may mutate its inputs)."""
        if not isinstance(out, Deferred):
            return out, exact
        inputs = self.program.inputs(out.seed, out.alt, out.scale)
        with torch.no_grad():
            exact = detach_outputs(self.exact_model(inputs))
            return detach_outputs(self.reference_model(*inputs)), exact

    # the parent's store (benchmark.evaluate.reference_store): anything wrong with an entry means computing

    def same_environment(self, stored: StoredReference | None) -> StoredReference | None:
        if stored is None:
            return None
        if stored.summary.get("format") != STORE_FORMAT:
            self.usage.stale.append("another format")
            return None
        if stored.summary.get("env") != self.device_env:
            self.usage.stale.append("computed in another environment")
            return None
        return stored

    def same_inputs(self, stored: StoredReference | None, fingerprint: str | None) -> StoredReference | None:
        if stored is None or stored.summary.get("inputs") == fingerprint:
            return stored
        self.usage.stale.append("computed on other inputs or model weights")
        return None

    def fingerprint(self, program: TaskProgram, model, plan) -> str:
        """The fingerprint `reference_outputs` computes, from the input sets alone (no forward)."""
        fingerprint = Fingerprint(model)
        for _, args in reference_input_sets(plan, self.job.input_seed):
            inputs = program.inputs(*args)
            self._note_inputs(inputs)
            fingerprint.update(inputs)
        return fingerprint.hexdigest()

    def stored_outputs(self, stored: StoredReference) -> dict | None:
        summary = stored.summary
        try:
            ref = unpack(stored.blob, self.device)
            if set(ref) != {"aliases", *(key for keys in REFERENCE_KEYS.values() for key in keys)}:
                raise ValueError(f"keys {sorted(ref)}")
        except Exception as e:  # noqa: BLE001 - an unreadable entry is computed afresh
            self.usage.stale.append(f"unreadable outputs ({e!r})"[:200])
            return None
        self.exact_reference, self.exact_failure = summary["exact_reference"], summary["exact_failure"]
        self.usage.outputs = True
        return ref

    def offer_reference(self, ref: dict, fingerprint: str, stored: StoredReference | None) -> None:
        """What this judge computed and the store lacks: the outputs where they fit the job's bound,
        the floor, and torch.compile's time measured alone (the reference's own time alone is never
        shared: see reference_timing)."""
        blob = stored.blob if self.usage.outputs else self.packed(ref)
        if self.usage.measurements and (self.usage.outputs or blob is None):
            return  # nothing the store does not hold already
        summary = {
            "format": STORE_FORMAT,
            "env": self.device_env,
            "inputs": fingerprint,
            "exact_reference": self.exact_reference,
            "exact_failure": self.exact_failure,
            "sol_ms": self.sol_ms,
            "compile_time": self.times.get("compile_time") if not self.contended else None,
        }
        self.offer = StoredReference(summary, blob)

    def packed(self, ref: dict) -> str | None:
        """The outputs as the store keeps them, or None where they exceed the job's bound."""
        limit = self.job.reference_entry_bytes
        if not storable(ref) or tensor_bytes(ref) * 4 // 3 > limit:
            return None
        try:
            blob = pack(ref)
        except Exception:  # noqa: BLE001 - outputs that cannot be written are not kept
            return None
        return blob if len(blob) <= limit else None

    def floor(self, program: TaskProgram, model, seed: int) -> float | None:
        """The task's speed-of-light time on this GPU from its own tensors and FLOPs (benchmark.evaluate.sol)."""
        if not self.cuda:
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
        return floor_ms(counts, profile, str(self.job.dtype or "float32"))

    def known_pids(self) -> set[int]:
        """Processes on the GPU that are part of this evaluation or wait their turn under its lock."""
        known = self.lock.members()
        if self.job.evaluator_pid:
            known.add(self.job.evaluator_pid)
        if self.candidate_pid:
            known.add(self.candidate_pid)
        return known

    def alone(self, timed):
        """Run a timed phase while no other process uses the GPU: wait for neighbours to leave, time,
        look again; repeat when one was seen, and mark the sample `contended` if one always was."""
        stats = None
        wait_s = self.timer.config.contention_wait_s
        for _ in range(CONTENTION_RETRIES + 1 if wait_s > 0 else 1):
            t0 = time.monotonic()
            before = wait_until_alone(self.device, wait_s, self.known_pids())
            if before.waited_for:  # gone before the timing: no retry, but the wait held the device
                self.waited_s += time.monotonic() - t0
                self.waited_for.update(dict.fromkeys(before.waited_for))
            stats = timed()
            after = gpu_census(self.device, self.known_pids())
            if not before.available:
                if self.cuda:
                    self.env["contention_check"] = f"unavailable: {before.why}"
                return stats
            seen = before.neighbours + after.neighbours
            if not seen:
                return stats
            self.neighbours.update(dict.fromkeys(seen))
        self.contended = True
        return stats

    # the candidate, through its process

    def candidate_phase(self, program: TaskProgram, plan, ref) -> tuple[str, str | None]:
        self.phase("import")
        loaded = self.client.wait_loaded()
        self.candidate_pid = self.job.candidate_pid or loaded.pid  # the parent's word, where it gave it
        self.phases["compile_s"] = loaded.compile_s
        if loaded.error is not None:
            return "compile_error", loaded.error
        t0 = time.monotonic()
        self.phase("build")
        self.setup(program)
        self.phase("checks")
        with self.lock.shared():
            failure = self.check_candidate(program, plan, ref)
        self.phases["correctness_s"] = time.monotonic() - t0
        if failure:
            return "incorrect", failure
        t0 = time.monotonic()
        if self.timer:
            self.phase("timing")
            self.time_candidate(program, ref)
        self.phases["timing_s"] = time.monotonic() - t0
        self.phase("stateful")
        with self.lock.shared():
            stale = self.check_stateful(program, ref)
        if stale:
            return "incorrect", stale
        if self.cuda:  # last: the profiler leaves CUDA's tracing threads and overhead behind it
            t0 = time.monotonic()
            self.phase("profile")
            self.profile_candidate()
            self.phases["profile_s"] = time.monotonic() - t0
        return "pass", None

    def setup(self, program: TaskProgram) -> None:
        """The arena (room for every input set, the timing sets at once, the timing slot and the
        largest output), then ModelNew built in the candidate's process from the reference's own
        random state."""
        self.timing_room = self.in_room * len(timing_seeds(0))
        in_region = aligned(max(self.in_room, self.timing_room))
        self.slot_offset = in_region
        self.out_offset = in_region + aligned(self.in_room)
        self.arena, fds = Arena.create(self.out_offset + self.out_room, self.device)
        init, rng = program.init_values(self.job.seed)
        with self.lock.shared():
            specs, _ = self.arena.pack(init, 0, in_region, layout=True)
            calibration = self.client.ask(
                Setup(self.arena.handle, rng, tuple(specs), self.job.timing.flush_l2, self.poison_room()),
                Calibration,
                fds,
            )
        self.calibration = calibration

    def poison_room(self) -> int:
        """Device memory a call takes in the candidate's process: its inputs copied out of the arena,
        their pristine copies (the mutation check), the outputs and as much again for their work."""
        return 2 * (self.in_room + self.out_room)

    def send_inputs(self, inputs: list) -> tuple[ValueSpec, ...]:
        specs, _ = self.arena.pack(inputs, 0, self.out_offset, layout=True)
        return tuple(specs)

    def received(self, reply: Outputs) -> object:
        """The candidate's output, copied out of the arena: a tensor on the device it was on (the CPU,
        or this device; elsewhere an empty stand-in on the meta device, which no comparison passes);
        an output too large to come back stands in as a meta tensor of the shape it claimed."""
        values = self.arena.unpack(reply.outputs, self.device)
        return _placed(values[0], reply.outputs[0], self.device) if values else None

    def output_flags(self, reply: Outputs, ref_out) -> None:
        """What the output's description says: plain tensors with real storage, and the reference's
        layout where not contiguous."""
        refs = [r for r in flatten_outputs(ref_out)]
        for i, (spec, r) in enumerate(zip(tensor_specs(reply.outputs), refs, strict=False)):
            if not spec.plain:
                self.flag("output_not_plain_tensor", f"output {i} is a tensor subclass")
            elif not spec.storage or spec.device.startswith("meta"):
                self.flag("output_not_plain_tensor", f"output {i} has no real storage")
            elif isinstance(r, torch.Tensor) and spec.shape == tuple(r.shape) and spec.stride != r.stride():
                if spec.stride != _contiguous_stride(spec.shape):
                    self.flag("output_layout", f"output {i} strides {spec.stride}, reference {r.stride()}")

    def compare(self, expected, reply: Outputs, exact):
        got = self.received(reply)
        expected, exact = self.expected(expected, exact)
        return got, compare_outputs(expected, got, self.job.atol, self.job.rtol, exact=exact)

    def check_candidate(self, program: TaskProgram, plan, ref) -> str | None:
        """Every correctness trial; the first failure's description, or None."""
        job = self.job
        checked = {"trials": len(plan), "passed": 0, "max_abs_err": 0.0, "max_rel_err": 0.0}
        first = next((o for o in flatten_outputs(ref["outputs"][0]) if isinstance(o, torch.Tensor)), None)
        a, r = tolerance(first.dtype, job.atol, job.rtol) if first is not None else (None, None)
        rule = rule_text(self.exact_reference, a, r) + (
            f" (no exact reference: {self.exact_failure})" if self.exact_failure else ""
        )
        try:
            for i, ((s, alt, scale), ref_out, exact) in enumerate(
                zip(plan, ref["outputs"], ref["exact"], strict=True)
            ):
                inputs = program.inputs(s, alt, scale)
                reply = self.client.ask(
                    Call(self.send_inputs(inputs), self.out_offset, self.out_room, census=i == 0), Outputs
                )
                if i == 0 and reply.compute_ops:
                    self.flag("aten_compute_op", "forward dispatched " + ", ".join(reply.compute_ops[:8]))
                if reply.mutated:
                    self.flag("input_mutation", f"inputs {list(reply.mutated)} changed during trial {i}")
                if reply.aliases and not ref["aliases"]:
                    self.flag("output_aliases_input", f"trial {i}")
                ref_out, exact = self.expected(ref_out, exact)
                self.output_flags(reply, ref_out)
                got, cmp = self.compare(ref_out, reply, exact)
                checked["max_abs_err"] = max(checked["max_abs_err"], cmp.max_abs_err)
                checked["max_rel_err"] = max(checked["max_rel_err"], cmp.max_rel_err)
                if cmp.max_eager_err is not None:
                    checked["max_eager_err"] = max(checked.get("max_eager_err") or 0.0, cmp.max_eager_err)
                if not cmp.ok:
                    if self.cuda and any(holds_poison(o) for o in flatten_outputs(got)):
                        self.flag("uninitialized_output", f"trial {i}: the output holds memory nothing wrote")
                    checked.update(first_failing_trial=i, detail=cmp.detail)
                    kind = " (large-magnitude inputs)" if scale != 1.0 else ""
                    return f"trial {i}{kind}: {cmp.detail}"
                checked["passed"] += 1
            return None
        finally:
            self.correctness = Correctness(**checked, reference=self.exact_reference, rule=rule)

    def send_timing_sets(self, program: TaskProgram) -> list[list]:
        """The timing input sets, written to the arena once and announced to the candidate's process
        with their places in the timing slot (`slot_arm`)."""
        sets = [program.inputs(s) for s in timing_seeds(self.job.input_seed)]
        offset, specs, slots = 0, [], []
        for inputs in sets:
            packed, offset = self.arena.pack(inputs, offset, self.slot_offset, layout=True)
            specs.append(tuple(packed))
            slots.append(tuple(self.arena.place(inputs, self.slot_offset, self.out_offset, layout=True)[0]))
        self.client.ask(TimingSets(tuple(specs), tuple(slots), self.spin_s), Done)
        self.timing_specs, self.timing_slots = tuple(specs), tuple(slots)
        return sets

    def time_candidate(self, program: TaskProgram, ref) -> None:
        """Time the candidate, in its process, interleaved with the reference in this one on the same
        input sets, holding the device alone; again while the reference drifted beyond the cap
        (`timing.least_drifted`). Timed calls' outputs are fetched and checked at random."""
        prepare_host(self.device)
        with self.lock.shared():
            sets = self.send_timing_sets(program)
        reference = LocalArm(
            self.timer.calls, *slot_arm(self.reference_model, self.arena, sets, self.timing_slots)
        )
        walled = _WalledArm(reference, self.cuda)

        def recheck(k: int) -> None:
            reply = self.client.ask(Fetch(self.out_offset, self.out_room), Outputs)
            _, cmp = self.compare(ref["timed"][k], reply, ref["timed_exact"][k])
            if not cmp.ok:
                self.flag("timed_output_mismatch", f"the output of a timed call on input set {k} is wrong")

        rtt = self.round_trip_ms()
        remote: RemoteArm | None = None

        holds: list[str] = []  # each try's exclusive hold, split (`timing_hold_s`)

        def attempt():
            nonlocal remote
            rechecks = Rechecks(recheck)
            remote = RemoteArm(
                self.client, self.calibration, len(sets), on_timed=rechecks.after_call, spin_s=self.spin_s
            )
            walled.reset()
            asked = time.monotonic()
            with self.lock.exclusive(), torch.no_grad():
                held = time.monotonic()
                timed = self.alone(lambda: self.timer.interleaved([walled, remote]))
                rechecks.settle()
                alone_from = time.monotonic()
                if "reference_alone_time" not in self.times:  # warm now, in the same hold of the device
                    self.time_alone(reference, len(sets))
                end = time.monotonic()
            holds.append(hold_split(held - asked, end - held, timed, end - alone_from))
            ref_gap, gap = timed.stream_gaps_ms
            if self.cuda and gap > ref_gap + max(0.05, 0.25 * timed.stats[1].median_ms):
                self.flag(
                    "side_stream", f"{gap:.3f} ms of device work finished after the current stream was done"
                )
            self.check_reported_times(walled, remote, rtt, timed)
            self.check_left_work(walled, timed)
            return timed

        timed, tries = least_drifted(
            attempt, lambda: self.times["reference_alone_time"]["median_ms"], self.timer.config.drift_retries
        )
        if tries > 1:
            self.env["timing_tries"] = str(tries)
        self.env["timing_hold_s"] = "; ".join(holds)
        ref_stats, stats = timed.stats
        self.times["reference_time"] = asdict(ref_stats)
        self.times["candidate_time"] = asdict(stats)
        self.ratio = (timed.ratio, timed.ratio_spread)
        if self.cuda and self.timer.config.launch_behind_flush:
            self.env["launch_cover_ms"] = f"{timed.cover_ms:.3f}"
            self.env["launch_cover_cycles"] = str(self.timer.cover_cycles)  # the same for both arms
        w = timed.warmup
        self.env["timing_warmup"] = f"{w.rounds} rounds, {w.seconds:.3f} s, settled {w.settled}"
        if os.environ.get(TRACE_ENV):
            self.trace = trace_record(timed)

    def time_alone(self, reference: LocalArm, n_sets: int) -> None:
        """The reference's time alone, the cap of its interleaved time (REFERENCE_DRIFT_CAP): a brief
        timing beside the candidate's process making empty calls, so that both see the same
        protocol, round trips and all (on the CPU a process that ran the other's turn runs a short
        call slower), and only the candidate's own work differs. Always timed in this judge:
        another process's time differs by whatever differs between processes. Called holding the
        device alone, right after the first interleaved timing (so its warm-up serves this too)."""
        idle = RemoteArm(self.client, self.calibration, n_sets, empty=True, spin_s=self.spin_s)
        timed = self.alone(lambda: self.timer.interleaved([reference, idle], self.timer.config.brief()))
        self.times["reference_alone_time"] = asdict(timed.stats[0])

    @property
    def spin_s(self) -> float:
        """How long each side polls for the other's message while timing (TimingConfig.spin_ms)."""
        return self.job.timing.spin_ms / 1e3

    def round_trip_ms(self) -> float:
        """The channel's own latency: the median of PINGS empty requests."""
        trips = []
        for _ in range(PINGS):
            t0 = time.perf_counter()
            self.client.ask(Ping(), Done)
            trips.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(trips)

    def check_reported_times(self, reference: _WalledArm, remote: RemoteArm, rtt_ms: float, timed) -> None:
        """The candidate's reported times against what the judge saw: no timed call may claim longer
        than its request took; and the candidate's process may not spend much longer per call than
        the reference's bracket takes here plus the channel's round trip (time it did not report,
        such as work done before its clock started or after it stopped). Medians, recorded in env."""
        if not remote.walls_ms or not reference.walls_ms:
            return
        over = sum(
            c > CLOCK_SLACK * w + 0.01 for c, w in zip(remote.claimed_ms, remote.walls_ms, strict=True)
        )
        extra = statistics.median(w - c for w, c in zip(remote.walls_ms, remote.claimed_ms, strict=True))
        own = statistics.median(w - c for w, c in zip(reference.walls_ms, reference.claimed_ms, strict=True))
        claimed = statistics.median(remote.claimed_ms)
        unaccounted = extra - own - rtt_ms
        self.env["timing_unaccounted_ms"] = f"{unaccounted:.4f}"
        self.env[
            "timing_walls_ms"
        ] = (  # medians: the candidate's request, its report; the reference's; the round trip
            f"{statistics.median(remote.walls_ms):.4f} {claimed:.4f}; "
            f"{statistics.median(reference.walls_ms):.4f} {statistics.median(reference.claimed_ms):.4f}; {rtt_ms:.4f}"
        )
        enough = min(len(remote.walls_ms), len(reference.walls_ms)) >= UNACCOUNTED_MIN_CALLS
        if over:
            self.flag("timing_mismatch", f"{over} timed call(s) reported longer than the judge saw them take")
        if FLAG_UNACCOUNTED and enough and unaccounted > max(UNACCOUNTED_MS, UNACCOUNTED_SHARE * claimed):
            self.flag(
                "timing_mismatch",
                f"each timed call took {unaccounted:.3f} ms more in the candidate's process than it reported "
                f"(median {claimed:.3f} ms reported)",
            )

    def check_left_work(self, reference: _WalledArm, timed) -> None:
        """Work the candidate's process left running after reporting a call done overlaps the reference
        call that follows it: in the interleaved order the reference follows the candidate in odd
        rounds and itself in even ones, so honest timings make the two halves alike (on CUDA, whose
        events see only the device). Recorded in env;
        flagged where the reference after the candidate ran DEFERRED_RATIO slower, or on CUDA waited
        for the GPU beyond DEFERRED_WAIT_MS (or DEFERRED_WAIT_SHARE of the candidate's median) longer."""
        ref_times = timed.samples[0]
        after, before = ref_times[1::2], ref_times[0::2]
        if not self.cuda or min(len(after), len(before)) < UNACCOUNTED_MIN_CALLS:
            return  # on the CPU the other process's run evicts this one's caches: the halves differ anyway
        ratio = statistics.median(after) / max(statistics.median(before), 1e-9)
        text = f"{ratio:.4f}"
        waited = None
        if reference.waits_ms:
            odd = [w for i, w in reference.waits_ms.items() if i % 2 == 1]
            even = [w for i, w in reference.waits_ms.items() if i % 2 == 0]
            if odd and even:
                waited = statistics.median(odd) - statistics.median(even)
                text += f", waited {waited:+.4f} ms"
        self.env["reference_after_candidate"] = text
        claimed = timed.stats[1].median_ms
        if ratio > DEFERRED_RATIO or (
            waited is not None and waited > max(DEFERRED_WAIT_MS, DEFERRED_WAIT_SHARE * claimed)
        ):
            self.flag(
                "deferred_work",
                f"the reference call right after the candidate's ran {ratio:.2f}x its time after its own"
                + (f" and waited {waited:.3f} ms longer for the GPU" if waited is not None else ""),
            )

    def check_stateful(self, program: TaskProgram, ref) -> str | None:
        """Catch a memoized output: after the timed calls, call the candidate on a seen input (timing
        set 0) rewritten in place (same object, same storage, new values), then on a new tensor at a
        seen address."""
        if self.timing_specs is None:
            self.send_timing_sets(program)
        seen = program.inputs(timing_seeds(self.job.input_seed)[0])
        self.client.ask(Prepare(0), Done)
        self.client.ask(Restate("call", self.out_offset, self.out_room), Outputs)
        cases = (("an input rewritten in place", "in_place"), ("a new input at a seen address", "at_address"))
        for (what, how), s, expected, exact in zip(
            cases, restate_seeds(self.job.input_seed), ref["restated"], ref["restated_exact"], strict=True
        ):
            new = program.inputs(s)
            if not _same_layout(
                seen, new
            ):  # the task's inputs change shape with the seed: nothing to compare
                return None
            reply = self.client.ask(
                Restate(how, self.out_offset, self.out_room, self.send_inputs(new)), Outputs
            )
            _, cmp = self.compare(expected, reply, exact)
            if not cmp.ok:
                self.flag("stale_output", f"on {what}: {cmp.detail}")
                return f"stale output on {what}: {cmp.detail}"
        return None

    def profile_candidate(self) -> None:
        """One profiled forward in the candidate's process, the call alone on the device (a long kernel
        time-sliced with another process's counts their time as its own); its kernels judged here, and
        their device time checked against the reported call times. A profile over that bound is taken
        again, up to PROFILE_TRIES in all (a process outside the lock can still share the device), and
        flagged only when every try is over it: work the timed calls hid is there every time."""
        reported = self.times.get("candidate_time")
        bound_ms = PROFILE_SLACK * reported["median_ms"] + PROFILE_SLACK_MS if reported else None
        seen_ms = []
        for attempt in range(PROFILE_TRIES):
            ev = self.profiled_call()
            if attempt == 0:
                for name, detail in kernel_flags(ev):
                    self.flag(name, detail)
            seen_ms.append(ev.device_us / 1e3)
            if bound_ms is None or seen_ms[-1] <= bound_ms:
                break
        self.env["profile_kernels_ms"] = " ".join(f"{ms:.4f}" for ms in seen_ms)
        if bound_ms is not None and min(seen_ms) > bound_ms:
            self.flag(
                "timing_mismatch",
                f"the profiled call ran {min(seen_ms):.3f} ms of kernels (least of {len(seen_ms)} tries); "
                f"the timed calls reported {reported['median_ms']:.3f} ms",
            )

    def profiled_call(self) -> KernelEvidence:
        self.client.ask(Profile("start", 0), Done)
        with self.lock.exclusive():
            self.client.ask(Profile("call"), Done)
        return evidence(self.client.ask(Profile("stop"), Kernels).records)

    def note_memory(self) -> None:
        """The device memory this sample's two processes hold, and the room the lock's holders share,
        for the parent's lanes (benchmark.verify.verifier.DeviceShare admits samples by it). Read at
        the end, while both still hold their caches, so it is near their peak."""
        pair = {os.getpid(), *([self.candidate_pid] if self.candidate_pid else [])}
        reading = memory_reading(self.device, pair, self.lock.members()) if self.cuda else None
        if reading is not None:
            self.env[MEMORY_ENV] = str(reading.pair_bytes // 2**20)
            self.env[ROOM_ENV] = str(reading.room_bytes // 2**20)
            # the judge's own share, to tell the pair's parts apart: its allocator's reserve now and at
            # its peak, its live peak, the expected outputs it keeps and its arena
            for key, nbytes in (
                ("device_judge_mib", torch.cuda.memory_reserved(self.device)),
                ("device_judge_peak_mib", torch.cuda.max_memory_reserved(self.device)),
                ("device_judge_live_peak_mib", torch.cuda.max_memory_allocated(self.device)),
                ("device_kept_mib", self.kept_on_device),
                ("device_arena_mib", self.arena.nbytes if self.arena is not None else 0),
            ):
                self.env[key] = str(nbytes // 2**20)

    def observe(self, seen: Observations) -> None:
        if seen.threads_started:
            self.flag("spawned_threads", f"{seen.threads_started} Python thread(s) started by the candidate")
        if seen.native_threads_left:
            self.flag("spawned_threads", "native threads were still running after the candidate's calls")
        if seen.library_threads:  # not the candidate's (integrity.LIBRARY_THREAD_OWNERS): said, not flagged
            self.env["library_threads"] = " ".join(sorted(set(seen.library_threads)))
        for name in seen.tampered:
            self.flag("harness_tampered", f"{name} was replaced")
        for v in seen.violations:
            self.flag("sandbox_violation", v)


HOLD_PARTS = ("waited", "held", "warm-up", "rounds", "alone", "other")  # `hold_split`'s, in its order


def hold_parts(env: dict[str, str]) -> list[dict[str, float]]:
    """Each try's `hold_split` in a verdict's `timing_hold_s` as {part: seconds}; none where the
    verdict has none (no timing, or a run from before it was recorded)."""
    return [
        dict((k, float(v)) for k, v in re.findall(r"([a-z-]+) (-?[\d.]+)", t))
        for t in env.get("timing_hold_s", "").split("; ")
        if t
    ]


def hold_split(waited_s: float, hold_s: float, timed: Interleaved, alone_s: float) -> str:
    """One timing try's exclusive hold of the device, split: what the suite's wall time is bound by
    (the lanes' holds follow one another). `waited`: from asking for the hold to having it (the other
    lanes' device work drained first); `other`: the neighbour census, the rechecks' settling."""
    other = hold_s - timed.warmup.seconds - timed.rounds_s - alone_s
    return (
        f"waited {waited_s:.3f}, held {hold_s:.3f}: warm-up {timed.warmup.seconds:.3f}, "
        f"rounds {timed.rounds_s:.3f}, alone {alone_s:.3f}, other {other:.3f}"
    )


def slot_arm(model, arena: Arena, sets: list[list], slots: tuple) -> tuple[Callable, Callable]:
    """(call, prepare) timing the reference on the timing slot: before each call the set is written
    from this process's own copy into the slot, and the model reads it there, as the candidate's
    process reads it before its call. The two arms read the same memory: a memory-bound kernel's
    speed depends on where its buffers lie, and separate copies in two processes differ."""
    current: list = []

    def prepare(i: int) -> None:
        k = i % len(sets)
        arena.write(sets[k], slots[k])
        current[:] = arena.views(slots[k])

    def call(i: int) -> object:
        return model(*current)

    return call, prepare


class _WalledArm:
    """The reference's arm, in this process, keeping for each timed call the wall time it took beside
    its reported time, and on CUDA how long its commands waited for the GPU before they began
    (`waits_ms`: the host's time around the call less the device's, events on this stream): work
    another process left running on the GPU makes this process's next call wait."""

    def __init__(self, arm: LocalArm, cuda: bool):
        self.arm, self.cuda = arm, cuda
        self.overhead_ms, self.gap_floor_ms = arm.overhead_ms, arm.gap_floor_ms
        self.reset()

    def reset(self) -> None:
        self.walls_ms: list[float] = []
        self.claimed_ms: list[float] = []
        self.waits_ms: dict[int, float] = {}  # round -> ms

    def warm(self, i: int, covered: bool, cover_cycles: int) -> tuple[float, float]:
        return self.arm.warm(i, covered, cover_cycles)

    def timed(self, i: int, behind_flush: bool, cover_cycles: int) -> tuple[float, float]:
        t0 = time.perf_counter()  # the input set's copy counted as in the candidate's request
        if self.arm.prepare:
            self.arm.prepare(i)
        if self.cuda:
            first, last = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            first.record()
        t1 = time.perf_counter()
        stream, gap = self.arm.timer.once(lambda: self.arm.call(i), behind_flush, cover_cycles)
        wall = (time.perf_counter() - t0) * 1e3
        if self.cuda:
            last.record()
            last.synchronize()
            self.waits_ms[i] = max((time.perf_counter() - t1) * 1e3 - first.elapsed_time(last), 0.0)
        self.walls_ms.append(wall)
        self.claimed_ms.append(stream + gap)
        return stream, gap


def _contiguous_stride(shape: tuple[int, ...]) -> tuple[int, ...]:
    stride, acc = [], 1
    for d in reversed(shape):
        stride.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(stride))


def _same_layout(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        isinstance(x, torch.Tensor) == isinstance(y, torch.Tensor)
        and (not isinstance(x, torch.Tensor) or (x.shape == y.shape and x.dtype == y.dtype))
        for x, y in zip(a, b, strict=True)
    )


def _placed(value: object, spec: ValueSpec, device: torch.device) -> object:
    """`value` (copied out of the arena onto `device`) where the candidate's tensor was: on the CPU
    if it was there, as a meta stand-in if it was elsewhere or did not come back."""
    if isinstance(value, list | tuple):
        items = [_placed(v, s, device) for v, s in zip(value, spec.items, strict=True)]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, Uncopied):
        s = value.spec
        try:
            return torch.empty(s.shape, dtype=dtype_named(s.dtype), device="meta")
        except Exception:  # noqa: BLE001 - a description that makes no tensor is no tensor
            return Opaque(f"tensor of shape {s.shape}")
    if isinstance(value, torch.Tensor) and torch.device(spec.device).type != device.type:
        return (
            value.cpu()
            if spec.device.startswith("cpu")
            else torch.empty(value.shape, dtype=value.dtype, device="meta")
        )
    return value
