"""The child side of an evaluation: `python -m benchmark.evaluate.worker FD LIMITS [LINK_FD]`, started
by benchmark.evaluate.sandbox, or the same `serve` in a fresh fork of benchmark.evaluate.zygote.

Reads an `Envelope` (JSON) from stdin and serves its role: "judge" (benchmark.evaluate.judge, which
decides the verdict and never runs the candidate's code), "candidate" (the candidate's process,
benchmark.evaluate.candidate_server, which runs nothing else), "build" or "headers" (a build child).
The judge and the candidate's process talk over the channel on LINK_FD (benchmark.evaluate.link).
Each child writes its clock changes and its result, signed with the envelope's nonce, to the private
file descriptor FD; stdout and stderr are only logged."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import NoReturn

from benchmark.evaluate import confine
from benchmark.evaluate.boundary import (
    BuildJob,
    BuildReport,
    CandidateJob,
    Envelope,
    JudgeJob,
    JudgeReport,
    decode,
    encode,
)
from benchmark.evaluate.candidate import (
    CandidateLoadError,
    load_candidate,
    prepare_torch_headers,
    report_clocks,
)
from benchmark.evaluate.channel import CLOCK_PREFIX, PHASE_PREFIX, sign

BUILD_NICENESS = 10  # added to a build child's niceness (an unprivileged process may only raise it)


def build_only(job: BuildJob) -> BuildReport:
    """Compile the candidate's extensions into the shared cache (no task, no GPU needed); without a
    candidate, precompile torch's extension header for the default flags (candidate.prepare_torch_headers).
    Builds run niced, compilers included, so on a busy host the CPU goes first to the evaluation
    children, whose timing and trailing-work measurements depend on the host being prompt."""
    os.nice(BUILD_NICENESS)
    t0 = time.monotonic()
    if job.candidate_path is None:
        ready = prepare_torch_headers(Path(job.builds_root))
        return BuildReport("built", ready=ready, compile_s=time.monotonic() - t0)
    try:
        load_candidate(job.candidate_path, job.builds_root)
    except CandidateLoadError as e:
        return BuildReport("compile_error", str(e), e.kind.final, time.monotonic() - t0)
    return BuildReport("built", compile_s=time.monotonic() - t0)


def run_role(envelope: Envelope, link_fd: int | None, report_clock, report_phase) -> object:
    """What the envelope's role does; its result record (None for the candidate's process, whose
    answers went over the channel)."""
    if envelope.role == "build":
        return build_only(decode(BuildJob, envelope.job))
    if envelope.role == "judge":
        from benchmark.evaluate.judge import Judge
        from benchmark.evaluate.link import Link

        confine.protect()
        job = decode(JudgeJob, envelope.job)
        return Judge(job, Link(socket.socket(fileno=link_fd)), report_clock, report_phase).run()
    if envelope.role == "candidate":
        from benchmark.evaluate.candidate_server import serve_candidate
        from benchmark.evaluate.link import Link

        serve_candidate(decode(CandidateJob, envelope.job), Link(socket.socket(fileno=link_fd)))
        return None
    raise ValueError(f"no role {envelope.role!r}")


def main() -> None:
    """`python -m benchmark.evaluate.worker FD LIMITS [LINK_FD]`: a fresh interpreter serving one job."""
    link = int(sys.argv[3]) if len(sys.argv) > 3 else None
    serve(int(sys.argv[1]), confine.Limits.from_arg(sys.argv[2]), link)


def serve(fd: int, limits: confine.Limits, link_fd: int | None = None) -> NoReturn:
    """The one body of every worker, spawned or forked: confine this process (benchmark.evaluate.confine),
    read the envelope from stdin, serve its role, write the signed result to FD and exit."""
    confine.apply(limits)
    envelope = decode(Envelope, json.loads(sys.stdin.read()))
    nonce = envelope.nonce
    # Keep the channel on a descriptor of our own choosing and close the one the parent named.
    channel = os.fdopen(os.dup(fd), "w")
    os.close(fd)

    def report_clock(name: str) -> None:
        """Tell the parent which limit the time from now on counts against (benchmark.evaluate.sandbox)."""
        channel.write(json.dumps({"clock": name, "mac": sign(nonce, CLOCK_PREFIX + name)}) + "\n")
        channel.flush()

    def report_phase(name: str) -> None:
        """Tell the parent what this process is doing now (the judge's phases)."""
        channel.write(json.dumps({"phase": name, "mac": sign(nonce, PHASE_PREFIX + name)}) + "\n")
        channel.flush()

    report_clocks(report_clock, envelope.clock)
    try:
        result = run_role(envelope, link_fd, report_clock, report_phase)
    except BaseException as e:  # noqa: BLE001 - report harness failures rather than die silently
        error = f"harness error: {e!r}\n{traceback.format_exc()}"
        result = (
            JudgeReport("runtime_error", error)
            if envelope.role == "judge"
            else BuildReport("runtime_error", error)
        )
    if result is not None:
        body = encode(result)
        channel.write(json.dumps({"body": body, "mac": sign(nonce, body)}) + "\n")
        channel.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip atexit handlers and non-daemon threads a candidate may have left


if __name__ == "__main__":
    main()
