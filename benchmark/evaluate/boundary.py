"""What crosses a process boundary in an evaluation, as frozen dataclasses: the jobs the parent
sends (to the judge, the candidate's process and the build child), the reports they return, and the
messages between the judge and the candidate's process (benchmark.evaluate.link). Built in one
place, read by attribute.

Every record travels as JSON (`encode`) and is read back by `decode`, which checks each field's type
against the record's annotations and refuses unknown fields: the judge reads the candidate's
process's messages this way, and that process runs code the judge must not trust."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

from benchmark.evaluate.timing import TimingConfig
from benchmark.verdict import Correctness, TimingStats

# A judge's status when the task itself failed (it does not import, its reference raises).
TASK_ERROR = "task_error"
# The judge's phases, as it names them to the parent while it works, and in words.
PHASES = {
    "setup": "the judge's set-up",
    "reference": "the reference phase",
    "import": "the candidate's import",
    "build": "building ModelNew",
    "checks": "the correctness trials",
    "timing": "the timing",
    "stateful": "the stateful checks",
    "profile": "the profiled call",
    "observations": "the last observations",
}
REFERENCE_PHASES = ("setup", "reference")  # the task's own work: a death there is the task's
# A verdict's env entries for device memory (MiB, read by the judge through NVML near its end): what
# the sample's two processes held, and the room the device's lanes share (its total less what
# processes outside the lock hold). The verifier's lanes admit samples by them.
MEMORY_ENV = "device_pair_mib"
ROOM_ENV = "device_room_mib"


class BoundaryError(ValueError):
    """A message that is not the record it claims to be."""


def encode(record: Any) -> str:
    """A record (or a list or dict of them) as one line of JSON."""
    return json.dumps(_plain(record), separators=(",", ":"))


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        kind = getattr(type(value), "KIND", None)
        return {"type": kind, **out} if kind else out
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def decode(cls: type, data: Any) -> Any:
    """`data` (parsed JSON) as an instance of the dataclass `cls`, every field checked."""
    return _coerce(cls, data, cls.__name__)


def _coerce(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _coerce(option, value, where)
            except BoundaryError as e:
                errors.append(str(e))
        raise BoundaryError(f"{where}: {type(value).__name__} fits none of {tp}")
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise BoundaryError(f"{where}: expected an object, got {type(value).__name__}")
        kind = getattr(tp, "KIND", None)
        value = dict(value)
        if kind is not None and value.pop("type", kind) != kind:
            raise BoundaryError(f"{where}: not a {kind}")
        hints = _hints(tp)
        names = {f.name for f in dataclasses.fields(tp)}
        unknown = set(value) - names
        if unknown:
            raise BoundaryError(f"{where}: unknown fields {sorted(unknown)}")
        kwargs = {name: _coerce(hints[name], value[name], f"{where}.{name}") for name in value}
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as e:
            raise BoundaryError(f"{where}: {e}") from e
    if origin in (list, tuple):
        if not isinstance(value, list | tuple):
            raise BoundaryError(f"{where}: expected a list, got {type(value).__name__}")
        args = typing.get_args(tp)
        item = args[0] if args else Any
        items = [_coerce(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, dict):
            raise BoundaryError(f"{where}: expected an object, got {type(value).__name__}")
        _, item = typing.get_args(tp) or (str, Any)
        return {str(k): _coerce(item, v, f"{where}.{k}") for k, v in value.items()}
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BoundaryError(f"{where}: expected a number, got {type(value).__name__}")
        return float(value)
    if tp in (int, str, bool):
        if type(value) is not tp:
            raise BoundaryError(f"{where}: expected {tp.__name__}, got {type(value).__name__}")
        return value
    raise BoundaryError(f"{where}: no rule for {tp}")


# What the parent keeps of the reference between samples (benchmark.evaluate.reference_store).


@dataclass(frozen=True)
class StoredReference:
    """`summary` (JSON: format, env, inputs fingerprint, exact reference, floor, torch.compile's
    time) and `blob`, the reference's outputs as `reference_store.pack` writes them, or None where
    they were larger than the entry bound."""

    summary: dict[str, Any]
    blob: str | None = None

    @property
    def nbytes(self) -> int:
        return len(json.dumps(self.summary)) + len(self.blob or "")


# The jobs.


@dataclass(frozen=True)
class Envelope:
    """What a child reads on its stdin: its role, its job (the role's record), the nonce its messages
    to the parent are signed with, and the clock its time first counts against."""

    role: str  # "judge", "candidate" or "build"
    job: dict[str, Any]
    nonce: str
    clock: str = "run"


@dataclass(frozen=True)
class JudgeJob:
    """Everything the judge needs to check and time one sample; the candidate is not in it."""

    task_path: str
    device: str
    trials: int
    seed: int  # the models' seed: ModelNew is built from it as the reference is (public)
    input_seed: int  # every input set's seed derives from it; never sent to the candidate's process
    baseline: str
    measure: bool
    magnitude: float
    timing: TimingConfig
    atol: float | None = None
    rtol: float | None = None
    dtype: str | None = None
    device_lock: str | None = None
    evaluator_pid: int | None = None  # the process waiting for the verdict: not a GPU neighbour
    candidate_pid: int | None = None  # the candidate's process as the parent started it (not as it says)
    reference: StoredReference | None = None  # an earlier sample's reference work, from the parent's store
    reference_entry_bytes: int = 0  # largest outputs the store keeps
    keeps_reference: bool = False  # whether the parent keeps a store (the judge then fingerprints)


@dataclass(frozen=True)
class CandidateJob:
    """The candidate's process: what to import, where its builds live, where it may write."""

    candidate_path: str
    builds_root: str
    device: str
    write_dirs: tuple[str, ...] = ()


@dataclass(frozen=True)
class BuildJob:
    """A build child: compile a candidate's extensions, or (no candidate) precompile torch's header."""

    builds_root: str
    candidate_path: str | None = None


# The reports.


@dataclass(frozen=True)
class BuildReport:
    status: str  # "built" or "compile_error"
    error: str | None = None
    final: bool = False  # the error decides the verdict (benchmark.evaluate.candidate.LoadErrorKind)
    compile_s: float = 0.0
    ready: dict[str, bool] = field(default_factory=dict)  # headers made, for a header job


@dataclass(frozen=True)
class JudgeReport:
    """The judge's verdict material; the parent turns it into a Verdict (benchmark.evaluate.harness)."""

    status: str  # a benchmark.verdict.Status value, or TASK_ERROR
    error: str | None = None
    flag_details: tuple[str, ...] = ()  # "flag: detail", in the order found
    correctness: Correctness = field(default_factory=Correctness)
    reference_alone_time: TimingStats | None = None
    reference_time: TimingStats | None = None
    candidate_time: TimingStats | None = None
    compile_time: TimingStats | None = None
    paired_speedup: float | None = None
    speedup_spread: float | None = None
    sol_ms: float | None = None
    contended: bool = False
    env: dict[str, str] = field(default_factory=dict)
    phases: dict[str, float] = field(default_factory=dict)
    reference_offer: StoredReference | None = None
    timing_trace: dict[str, Any] | None = None
    candidate_lost: str | None = None  # what the judge was doing when the candidate's process went away


# Values in the arena (benchmark.evaluate.transfer), both ways.


@dataclass(frozen=True)
class ValueSpec:
    """One input or output value: a tensor whose bytes lie in the arena (`offset`, `nbytes`, packed
    contiguously; `stride` is its own layout), a JSON value, a list or tuple of values, or (`opaque`)
    an output that is none of these, named by its type."""

    kind: str  # "tensor", "value", "list", "tuple" or "opaque"
    offset: int = 0
    nbytes: int = 0
    shape: tuple[int, ...] = ()
    stride: tuple[int, ...] = ()
    dtype: str = ""
    device: str = ""  # outputs: the device the candidate's tensor was on
    value: Any = None  # "value": the JSON value; "opaque": the type's name
    items: tuple[ValueSpec, ...] = ()
    plain: bool = True  # outputs: exactly torch.Tensor (not a subclass)
    storage: bool = True  # outputs: real storage (not meta, not storage-less)
    copied: bool = True  # its bytes are in the arena (False: more than the room given)
    span: bool = False  # its storage span travelled (exact layout), not its values packed


@dataclass(frozen=True)
class ArenaHandle:
    """How the candidate's process maps the judge's arena: a memfd passed with the message
    ("memfd"), or a CUDA IPC handle (`payload`, the judge's torch.multiprocessing reduction)."""

    kind: str  # "memfd" or "cuda_ipc"
    nbytes: int
    payload: str = ""  # base64


# The judge's requests to the candidate's process, and its replies (benchmark.evaluate.link).


@dataclass(frozen=True)
class Setup:
    """Map the arena, poison free device memory, build ModelNew(*init) from the random state the
    reference was built from, and calibrate the CallTimer."""

    KIND: ClassVar[str] = "setup"
    arena: ArenaHandle
    rng: dict[str, str]  # the random state to build ModelNew from (base64 of torch's state tensors)
    init: tuple[ValueSpec, ...] = ()
    flush_l2: bool = True  # the CallTimer flushes the L2 before each call
    poison_bytes: int = 0  # device memory to poison at least: what a call's copies and outputs take


@dataclass(frozen=True)
class Call:
    """Call forward on fresh copies of `inputs` (from the arena), write its outputs to the arena at
    `out_offset` (at most `out_bytes`); `census`: under the op census."""

    KIND: ClassVar[str] = "call"
    inputs: tuple[ValueSpec, ...]
    out_offset: int
    out_bytes: int
    census: bool = False


@dataclass(frozen=True)
class TimingSets:
    """The timing input sets, written to the arena once; `Prepare` copies set i to `slots[i]`, its
    place in the arena's timing slot, which the candidate's calls then read in place (the judge's
    reference reads the same slot)."""

    KIND: ClassVar[str] = "timing_sets"
    sets: tuple[tuple[ValueSpec, ...], ...]
    slots: tuple[tuple[ValueSpec, ...], ...]
    spin_s: float = 0.0  # how long to poll for the next request after a timed or warm-up call


@dataclass(frozen=True)
class Prepare:
    KIND: ClassVar[str] = "prepare"
    index: int  # which timing set


@dataclass(frozen=True)
class Warm:
    """Copy timing set `index` into the timing slot (untimed), then one warm-up call."""

    KIND: ClassVar[str] = "warm"
    index: int
    covered: bool
    cover_cycles: int  # of the device-side wait, converted by the judge (`CallTimer.cycles`)
    call: bool = True  # False: an empty call (the reference timed beside an idle candidate's process)


@dataclass(frozen=True)
class Timed:
    """Copy timing set `index` into the timing slot (untimed), then one timed call: prepared and
    called in one request, as the judge's own arm does, with no wait between them."""

    KIND: ClassVar[str] = "timed"
    index: int
    behind_flush: bool
    cover_cycles: int
    call: bool = True  # False: an empty call, as in Warm


@dataclass(frozen=True)
class Fetch:
    """Write the output of the last call to the arena (the judge rechecks timed calls at random)."""

    KIND: ClassVar[str] = "fetch"
    out_offset: int
    out_bytes: int


@dataclass(frozen=True)
class Restate:
    """Call forward on the input slot after giving it `inputs`' values: `how` "call" (as it is),
    "in_place" (written into the same tensors) or "at_address" (new tensors on the same storage)."""

    KIND: ClassVar[str] = "restate"
    how: str
    out_offset: int
    out_bytes: int
    inputs: tuple[ValueSpec, ...] = ()


@dataclass(frozen=True)
class Profile:
    """`step` "start" (timing set `index` copied in, then the profiler started), "call" (one forward
    on it) or "stop" (the kernels it saw)."""

    KIND: ClassVar[str] = "profile"
    step: str
    index: int = 0


@dataclass(frozen=True)
class Finish:
    KIND: ClassVar[str] = "finish"


@dataclass(frozen=True)
class Ping:
    """Nothing to do: the judge times the channel's own round trip with it."""

    KIND: ClassVar[str] = "ping"


REQUESTS: dict[str, type] = {
    r.KIND: r for r in (Setup, Call, TimingSets, Prepare, Warm, Timed, Fetch, Restate, Profile, Finish, Ping)
}


@dataclass(frozen=True)
class Loaded:
    """Sent once, unasked, when the candidate's import ended: its process id, and the load error."""

    KIND: ClassVar[str] = "loaded"
    pid: int
    compile_s: float
    error: str | None = None
    error_kind: str | None = None  # benchmark.evaluate.candidate.LoadErrorKind


@dataclass(frozen=True)
class Done:
    """A request that needs no answer but its end (setup, timing sets, prepare)."""

    KIND: ClassVar[str] = "done"


@dataclass(frozen=True)
class Failed:
    """The candidate's code raised while serving a request."""

    KIND: ClassVar[str] = "failed"
    error: str


@dataclass(frozen=True)
class Outputs:
    """What a call returned (its values in the arena) and what the candidate's process saw of it."""

    KIND: ClassVar[str] = "outputs"
    outputs: tuple[ValueSpec, ...]
    mutated: tuple[int, ...] = ()  # inputs whose values the call changed
    aliases: bool = False  # an output shares storage with an input
    compute_ops: tuple[str, ...] = ()  # with `census`: ATen compute ops forward dispatched
    os_threads: int = 0  # the process's threads after the call


@dataclass(frozen=True)
class Times:
    """Raw numbers of one call (benchmark.evaluate.timing.CallTimer): warm (launch ms, call ms) or
    timed (stream ms, trailing ms)."""

    KIND: ClassVar[str] = "times"
    first: float
    second: float


@dataclass(frozen=True)
class KernelRecord:
    name: str
    device_us: float
    on_current_stream: bool


@dataclass(frozen=True)
class Kernels:
    KIND: ClassVar[str] = "kernels"
    records: tuple[KernelRecord, ...]
    marker_seen: bool = True


@dataclass(frozen=True)
class Observations:
    """The candidate's process's own look at itself after the calls."""

    KIND: ClassVar[str] = "observations"
    threads_started: int  # Python threads started since the candidate loaded
    native_threads_left: bool  # more OS threads than after the first call
    violations: tuple[str, ...] = ()  # what the audit hook refused
    tampered: tuple[str, ...] = ()  # harness state changed since before the candidate loaded
    library_threads: tuple[str, ...] = ()  # the starter module of each thread a compiler library started


@dataclass(frozen=True)
class Calibration:
    """The candidate's CallTimer: what its bracket costs (benchmark.evaluate.timing.CallTimer)."""

    KIND: ClassVar[str] = "calibration"
    overhead_ms: float
    gap_floor_ms: float


REPLIES: dict[str, type] = {
    r.KIND: r for r in (Loaded, Done, Failed, Outputs, Times, Kernels, Observations, Calibration)
}
