"""The candidate's process: it imports the candidate and serves the judge's requests, and holds
nothing the verdict is made of. No task module, no reference, no expected output, no seed of any
input set and no statistic is ever in this process; the candidate can read and write all of it and
gain nothing but its own outputs and its own raw call times, which the judge checks
(benchmark.evaluate.judge).

Before the candidate's code runs, the process has given up what would reach other processes
(benchmark.evaluate.confine.harden), made its CUDA context, and fingerprinted the state its serving
code reaches (anticheat.integrity.StateDigest). Then it imports the candidate (time compiling counts
against the build limit, benchmark.evaluate.candidate), tells the judge (`Loaded`), installs the
audit hook, and answers the judge's requests one by one (benchmark.evaluate.boundary): build
ModelNew, call it on inputs from the arena, time a call with the CallTimer, fetch the last output,
call it on restated inputs, profile a call, and last report what it saw of itself."""

from __future__ import annotations

import base64
import os
import time
import traceback

import torch

from benchmark.evaluate import confine
from benchmark.evaluate.anticheat import audit
from benchmark.evaluate.anticheat.census import census
from benchmark.evaluate.anticheat.integrity import (
    InputGuard,
    StateDigest,
    ThreadWatch,
    aliases,
    os_thread_count,
)
from benchmark.evaluate.anticheat.kernels import KernelProfile
from benchmark.evaluate.boundary import (
    REQUESTS,
    BoundaryError,
    Calibration,
    Call,
    CandidateJob,
    Done,
    Failed,
    Fetch,
    Finish,
    Kernels,
    Loaded,
    Observations,
    Outputs,
    Ping,
    Prepare,
    Profile,
    Restate,
    Setup,
    Timed,
    Times,
    TimingSets,
    Warm,
)
from benchmark.evaluate.candidate import CandidateLoadError, load_candidate
from benchmark.evaluate.correctness import flatten_outputs
from benchmark.evaluate.link import CandidateLost, Link, read_record
from benchmark.evaluate.program import pin_precision
from benchmark.evaluate.timing import CallTimer, prepare_host
from benchmark.evaluate.transfer import Arena

POISON_MIN_BYTES = 256 * 2**20  # free device memory filled with NaN bytes before the candidate runs


def poison_free_memory(device: torch.device, at_least: int = 0) -> None:
    """Fill this process's free device memory with all-ones bytes (NaN), at least POISON_MIN_BYTES
    and `at_least` of it, and leave it cached for the candidate's allocations, so an output buffer
    nothing wrote is recognisable (`holds_poison`) rather than holding whatever the memory held before."""
    if device.type != "cuda":
        return
    torch.cuda.synchronize()
    stale = torch.cuda.max_memory_reserved(device) - torch.cuda.memory_allocated(device)
    free, _ = torch.cuda.mem_get_info(device)
    size = min(int(free * 0.5), max(stale, POISON_MIN_BYTES, at_least))
    block = torch.empty(size, dtype=torch.uint8, device=device)
    block.fill_(0xFF)
    small = [torch.empty(2**19, dtype=torch.uint8, device=device).fill_(0xFF) for _ in range(64)]
    torch.cuda.synchronize()
    del block, small  # back to the caching allocator, which hands this memory out next


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


def _nothing() -> None:
    pass


def format_candidate_error(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    frames = [f for f in tb if "candidate" in os.path.basename(f.filename)]
    where = f" (candidate line {frames[-1].lineno})" if frames else ""
    return f"{type(e).__name__}: {e}{where}"[:4000]


def _set_rng(states: dict[str, str], device: torch.device) -> None:
    """The judge's random state right after its `get_init_inputs()`, so ModelNew draws the same
    parameters the reference drew (as a KernelBench answer expects)."""
    torch.set_rng_state(torch.frombuffer(bytearray(base64.b64decode(states["cpu"])), dtype=torch.uint8))
    if device.type == "cuda" and "cuda" in states:
        state = torch.frombuffer(bytearray(base64.b64decode(states["cuda"])), dtype=torch.uint8)
        torch.cuda.set_rng_state(state, device)


class CandidateServer:
    """The served state of one candidate: the arena, the model, the input slot and the last output."""

    def __init__(self, job: CandidateJob, link: Link, model_cls: type):
        self.job = job
        self.link = link
        self.model_cls = model_cls
        self.device = torch.device(job.device)
        self.cuda = self.device.type == "cuda"
        self.arena: Arena | None = None
        self.model = None
        self.timer: CallTimer | None = None
        self.sets: tuple = ()
        self.spin_s = 0.0  # after a timed or warm-up call, how long to poll for the next (TimingSets)
        self.slot: list = []
        self.last: object = None
        self.profile: KernelProfile | None = None
        self.os_threads_after_first_call: int | None = None
        self.threads_before_profile: int | None = None  # the count the last observations use, where profiled
        self.profile_inputs: list = []

    def serve(self, threads: ThreadWatch, digest: StateDigest, violations: list[str]) -> None:
        """Answer requests until the judge closes the channel."""
        self.threads, self.digest, self.violations = threads, digest, violations
        spin = 0.0
        while True:
            try:
                message, fds = self.link.receive(spin)
            except CandidateLost:
                return
            try:
                request = read_record(message, REQUESTS)
            except BoundaryError as e:
                self.link.send(Failed(f"harness error: a malformed request ({e})"))
                continue
            try:
                reply = self.handle(request, fds)
            except BaseException as e:  # noqa: BLE001 - the candidate's code may raise anything
                reply = Failed(format_candidate_error(e))
            self.link.send(reply)
            # While timing, the next call comes within the reference's: be awake for it.
            spin = self.spin_s if isinstance(request, Warm | Timed) else 0.0

    def handle(self, request: object, fds: list[int]):
        if isinstance(request, Setup):
            return self.setup(request, fds)
        if isinstance(request, Call):
            return self.call(request)
        if isinstance(request, TimingSets):
            if len(request.slots) != len(request.sets):
                raise BoundaryError("every timing set needs its place in the slot")
            self.sets, self.slots, self.spin_s = request.sets, request.slots, request.spin_s
            prepare_host(self.device)  # the timing starts
            return Done()
        if isinstance(request, Prepare):
            self.prepare(request.index)
            return Done()
        if isinstance(request, Warm):
            self.prepare(request.index)
            call = self._call_slot if request.call else _nothing
            with torch.no_grad():  # outside the bracket, as the judge's own arm has it
                launch, took = self.timer.warm(call, request.covered, request.cover_cycles)
            return Times(launch, took)
        if isinstance(request, Timed):
            self.prepare(request.index)
            call = self._call_slot if request.call else _nothing
            with torch.no_grad():
                stream, gap = self.timer.once(call, request.behind_flush, request.cover_cycles)
            return Times(stream, gap)
        if isinstance(request, Fetch):
            specs, _ = self.arena.pack(
                [self.last], request.out_offset, request.out_offset + request.out_bytes
            )
            return Outputs(tuple(specs))
        if isinstance(request, Restate):
            return self.restate(request)
        if isinstance(request, Profile):
            return self.profiled(request)
        if isinstance(request, Finish):
            return self.observations()
        if isinstance(request, Ping):
            return Done()
        raise BoundaryError(f"no handler for {type(request).__name__}")

    def setup(self, request: Setup, fds: list[int]) -> Calibration:
        self.arena = Arena.attach(request.arena, fds)
        self.timer = CallTimer(self.device, request.flush_l2)  # its flush buffer before the poison
        poison_free_memory(self.device, request.poison_bytes)
        init = self.arena.unpack(request.init, self.device)
        _set_rng(request.rng, self.device)
        with torch.device(self.device):
            model = self.model_cls(*init)
        self.model = model.to(self.device) if isinstance(model, torch.nn.Module) else model
        return Calibration(self.timer.overhead_ms, self.timer.gap_floor_ms)

    def prepare(self, index: int) -> None:
        """Timing set `index`, copied fresh into the arena's timing slot and read there in place,
        where the judge's reference reads it too."""
        self.arena.copy(self.sets[index], self.slots[index])
        self.slot = self.arena.views(self.slots[index])

    def _call_slot(self) -> object:
        self.last = self.model(*self.slot)
        return self.last

    def call(self, request: Call) -> Outputs:
        inputs = self.arena.unpack(request.inputs, self.device)
        guard = InputGuard(inputs)
        with torch.no_grad():
            if request.census:
                out, compute_ops = census(self.model, *inputs)
            else:
                out, compute_ops = self.model(*inputs), []
        if self.cuda:
            torch.cuda.synchronize()
        threads = os_thread_count()
        if self.os_threads_after_first_call is None:
            self.os_threads_after_first_call = threads
        specs, _ = self.arena.pack([out], request.out_offset, request.out_offset + request.out_bytes)
        return Outputs(
            tuple(specs),
            mutated=tuple(guard.mutated()),
            aliases=aliases(flatten_outputs(out), inputs),
            compute_ops=tuple(compute_ops[:16]),
            os_threads=threads,
        )

    def restate(self, request: Restate) -> Outputs:
        if request.how == "call":
            args = self.slot
        else:
            new = self.arena.unpack(request.inputs, self.device)
            make = {"in_place": rewrite_in_place, "at_address": at_seen_address}[request.how]
            args = make(self.slot, new)
            if args is None:
                raise BoundaryError("the restated inputs do not fit the seen ones")
        with torch.no_grad():
            out = self.model(*args)
        if self.cuda:
            torch.cuda.synchronize()
        specs, _ = self.arena.pack([out], request.out_offset, request.out_offset + request.out_bytes)
        return Outputs(tuple(specs))

    def profiled(self, request: Profile):
        if request.step == "start":  # the inputs copied first: their copies are not the candidate's kernels
            # The profiler starts tracing threads of its own; the judge may profile again: the first count.
            if self.threads_before_profile is None:
                self.threads_before_profile = os_thread_count()
            self.profile_inputs = self.arena.unpack(self.sets[request.index], self.device)
            torch.cuda.synchronize()
            self.profile = KernelProfile()
            self.profile.start()
            return Done()
        if request.step == "call":
            with torch.no_grad():
                self.profile.call(self.model, *self.profile_inputs)
            return Done()
        records, marker_seen = self.profile.stop()
        return Kernels(tuple(records), marker_seen)

    def observations(self) -> Observations:
        threads = (
            self.threads_before_profile if self.threads_before_profile is not None else os_thread_count()
        )
        native_left = (
            self.os_threads_after_first_call is not None and threads > self.os_threads_after_first_call
        )
        return Observations(
            threads_started=self.threads.started,
            native_threads_left=native_left,
            violations=tuple(dict.fromkeys(self.violations)),
            tampered=tuple(self.digest.changed()),
            library_threads=tuple(self.threads.library),
        )


def serve_candidate(job: CandidateJob, link: Link) -> None:
    """The whole life of the candidate's process after its confinement (benchmark.evaluate.worker):
    its CUDA context made (now, while the judge works on the reference; and before the hardening, so
    that the driver's own set-up meets no refused call), then hardened (confine.harden)."""
    pin_precision()
    device = torch.device(job.device)
    if device.type == "cuda":
        torch.empty(1, device=device)
    confine.harden()
    threads = ThreadWatch()  # from before the import: threads the import starts count too
    digest = StateDigest()
    t0 = time.monotonic()
    try:
        model_cls = load_candidate(job.candidate_path, job.builds_root)
    except CandidateLoadError as e:
        link.send(Loaded(os.getpid(), time.monotonic() - t0, str(e), e.kind.value))
        return
    link.send(Loaded(os.getpid(), time.monotonic() - t0))
    violations: list[str] = []
    audit.install([*job.write_dirs, os.getcwd()], violations)
    CandidateServer(job, link, model_cls).serve(threads, digest, violations)
