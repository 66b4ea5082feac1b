"""The verdict record: one per evaluated sample, shared by the run directory, metrics, leaderboard,
dataset builder and RL rewards. Frozen dataclasses that serialise to JSON by construction."""

from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1
# how device memory running out reads, lower-cased: torch's OutOfMemoryError, and the CUDA libraries'
# own statuses when their handle or workspace could not be allocated (cuBLAS's came from a reference
# that passes alone, on a device whose other lanes held their memory)
OUT_OF_MEMORY = (
    "out of memory",
    "cublas_status_alloc_failed",
    "cudnn_status_alloc_failed",
    "cufft_alloc_failed",
    "cusolver_status_alloc_failed",
    "cusparse_status_alloc_failed",
    "curand_status_allocation_failed",
)


def says_out_of_memory(error: str | None) -> bool:
    """Whether an error's text says device memory ran out (a candidate's or a reference's)."""
    text = (error or "").lower()
    return any(marker in text for marker in OUT_OF_MEMORY)


class Status(enum.StrEnum):
    PASS = "pass"
    COMPILE_ERROR = "compile_error"
    RUNTIME_ERROR = "runtime_error"
    INCORRECT = "incorrect"
    CHEAT = "cheat"
    TIMEOUT = "timeout"
    NO_CODE = "no_code"


@dataclass(frozen=True)
class TimingStats:
    """Per-call times of one model under the timing protocol, in milliseconds."""

    runs: int
    median_ms: float
    mean_ms: float
    std_ms: float
    min_ms: float
    max_ms: float
    rel_err: float  # estimated relative standard error of the median

    @classmethod
    def from_dict(cls, d: dict | None) -> TimingStats | None:
        return None if d is None else cls(**d)


@dataclass(frozen=True)
class Correctness:
    trials: int = 0  # trials run (including alternate-shape and large-magnitude trials)
    passed: int = 0  # trials whose every output matched
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    first_failing_trial: int | None = None
    detail: str | None = None  # human-readable reason for the first failure
    reference: str | None = None  # what outputs were compared with: "float64", "float32" or "eager"
    rule: str | None = None  # the acceptance bound, in words, with its constants
    max_eager_err: float | None = None  # the eager reference's own largest error against `reference`

    @property
    def fraction(self) -> float:
        return self.passed / self.trials if self.trials else 0.0


@dataclass(frozen=True)
class Phases:
    """Wall time of the sample, split by phase, in seconds. `startup_s` is the child's start (interpreter,
    imports) before the evaluation begins; `setup_s` the task's import and the device's first query;
    `reference_s` the reference's outputs and timing (and the device context, created on first use);
    `profile_s` the kernel-evidence pass on CUDA. `lock_wait_s` is the part of these spent waiting
    for the device lock (other lanes' checks and timings); `alone_s` the part spent holding it
    exclusively (timing): while one lane holds it no other lane's work runs, so lanes sharing a device
    verify at most 3600 / alone_s samples per hour."""

    compile_s: float = 0.0
    correctness_s: float = 0.0
    timing_s: float = 0.0
    total_s: float = 0.0
    startup_s: float = 0.0
    reference_s: float = 0.0
    profile_s: float = 0.0
    setup_s: float = 0.0
    lock_wait_s: float = 0.0
    alone_s: float = 0.0


@dataclass(frozen=True)
class Verdict:
    task_id: str
    status: Status
    sample: int = 0
    turn: int = 1
    level: int | None = None
    model: str = ""
    flags: tuple[str, ...] = ()
    error: str | None = None
    correctness: Correctness = field(default_factory=Correctness)
    candidate_time: TimingStats | None = None
    reference_time: TimingStats | None = None  # timed interleaved with the candidate
    reference_alone_time: TimingStats | None = (
        None  # beside the candidate's idle process, the cap of reference_time
    )
    compile_time: TimingStats | None = None  # torch.compile of the reference, when timed
    speedup: float | None = (
        None  # reference median / candidate median (see benchmark.evaluate.harness.speedup)
    )
    speedup_spread: float | None = (
        None  # (max - min) / median of the speedup over blocks of interleaved calls
    )
    speedup_compile: float | None = None
    sol_ms: float | None = None  # speed-of-light floor of the task on this device
    sol_fraction: float | None = None  # sol_ms / candidate median
    contended: bool = False  # another process used the GPU while timing: no speedup is reported
    limit: str | None = None  # with a timeout: the limit it hit, "build" or "run"
    phases: Phases = field(default_factory=Phases)
    task_hash: str = ""
    code_hash: str = ""
    device: str = ""
    env: dict[str, str] = field(default_factory=dict)
    strict: bool = True
    schema: int = SCHEMA_VERSION

    @classmethod
    def unmeasured(cls, status: Status, error: str | None, **fields) -> Verdict:
        """A verdict no execution child measured: no code, a backend's or the verifier's failure, a
        stand-in judge. It carries no flags; `fields` are the sample's identity (task_id first)."""
        return cls(status=status, error=error, **fields)

    @classmethod
    def flagged(cls, status: Status, error: str | None, flag_details: list[str], **fields) -> Verdict:
        """A verdict with the anti-cheat findings `flag_details` ("name: detail" each). Strict mode
        turns any flag into the `cheat` verdict, the details leading the error text; `no_code`
        stays as it is (there was nothing to judge)."""
        names = tuple(dict.fromkeys(d.split(":", 1)[0] for d in flag_details))
        if names and fields.get("strict", True) and status is not Status.NO_CODE:
            status = Status.CHEAT
            error = "\n".join(flag_details) + (f"\n{error}" if error else "")
        return cls(status=status, error=error, flags=names, **fields)

    @property
    def correct(self) -> bool:
        return self.status is Status.PASS

    @property
    def out_of_memory(self) -> bool:
        """Whether the sample failed because device memory ran out (torch's message, from the
        candidate or the harness): on a device shared by several lanes, perhaps the neighbours' doing."""
        return self.status is Status.RUNTIME_ERROR and says_out_of_memory(self.error)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        del d["status"]
        d["verdict"] = self.status.value  # the contract's name for the outcome
        d["flags"] = list(self.flags)
        d["correct"] = self.correct
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        d = dict(d)
        d.pop("correct", None)
        status = Status(d.pop("verdict"))
        return cls(
            **{
                **d,
                "status": status,
                "flags": tuple(d.get("flags", ())),
                "correctness": Correctness(**d.get("correctness", {})),
                "candidate_time": TimingStats.from_dict(d.get("candidate_time")),
                "reference_time": TimingStats.from_dict(d.get("reference_time")),
                "reference_alone_time": TimingStats.from_dict(d.get("reference_alone_time")),
                "compile_time": TimingStats.from_dict(d.get("compile_time")),
                "phases": Phases(**d.get("phases", {})),
                "env": dict(d.get("env", {})),
            }
        )

    @property
    def error_line(self) -> str | None:
        """The error's first line, whole (it may hold the figures that decided the verdict)."""
        lines = (self.error or "").strip().splitlines()
        return lines[0] if lines else None

    def summary(self) -> str:
        """One human line: status, speedup and the error's first line."""
        parts = [f"{self.task_id}#{self.sample}", self.status.value]
        if self.speedup is not None:
            parts.append(f"{self.speedup:.2f}x")
        if self.flags:
            parts.append("flags=" + ",".join(self.flags))
        if self.error_line:
            parts.append(self.error_line)
        return " ".join(parts)
