"""Fixtures for the evaluation's own parts."""

from __future__ import annotations

import os
import socket
import threading
import types

import pytest

from benchmark.evaluate.boundary import JudgeJob
from benchmark.evaluate.timing import TimingConfig


@pytest.fixture
def make_judge():
    """`make_judge(**job_fields)`: a Judge (benchmark.evaluate.judge) on a CPU job whose channel's
    other end (`judge.peer`, a socket) nobody serves yet, for testing its parts without a candidate's
    process."""
    from benchmark.evaluate.judge import Judge
    from benchmark.evaluate.link import Link

    ends = []

    def make(**fields) -> Judge:
        ours, theirs = socket.socketpair()
        ends.extend([ours, theirs])
        job = JudgeJob(
            **{
                "task_path": "",
                "device": "cpu",
                "trials": 1,
                "seed": 0,
                "input_seed": 0,
                "baseline": "eager",
                "measure": True,
                "magnitude": 0.0,
                "timing": TimingConfig(),
                **fields,
            }
        )
        judge = Judge(job, Link(ours))
        judge.peer = theirs
        return judge

    yield make
    for end in ends:
        end.close()


@pytest.fixture
def served_judge(make_judge):
    """`served_judge(model_cls, program, **job_fields)`: a Judge whose channel leads to a candidate
    server for `model_cls` run in a thread of this process (its `Loaded` sent, ModelNew built from
    `program`'s init values), for testing the judge's phases against real replies."""
    from benchmark.evaluate.anticheat.integrity import StateDigest
    from benchmark.evaluate.boundary import CandidateJob, Loaded
    from benchmark.evaluate.candidate_server import CandidateServer
    from benchmark.evaluate.link import Link

    def make(model_cls, program, in_room: int = 1 << 16, out_room: int = 1 << 16, **fields):
        judge = make_judge(**fields)
        link = Link(judge.peer)
        link.send(Loaded(os.getpid(), 0.0))
        server = CandidateServer(CandidateJob("", "", "cpu"), link, model_cls)
        watch = types.SimpleNamespace(started=0)
        threading.Thread(target=server.serve, args=(watch, StateDigest(), []), daemon=True).start()
        judge.in_room, judge.out_room = in_room, out_room
        judge.client.wait_loaded()
        judge.setup(program)
        return judge

    return make
