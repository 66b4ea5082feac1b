"""The records that cross a process boundary: every one round-trips through JSON unchanged, and a
message that is not the record it claims to be is refused field by field (the judge reads the
candidate's process's messages so)."""

from __future__ import annotations

import json

import pytest

from benchmark.evaluate.boundary import (
    REPLIES,
    REQUESTS,
    BoundaryError,
    Call,
    JudgeJob,
    JudgeReport,
    Outputs,
    StoredReference,
    Times,
    ValueSpec,
    decode,
    encode,
)
from benchmark.evaluate.timing import TimingConfig
from benchmark.verdict import Correctness, TimingStats

STATS = TimingStats(runs=3, median_ms=1.5, mean_ms=1.6, std_ms=0.1, min_ms=1.4, max_ms=1.8, rel_err=0.01)


@pytest.mark.parametrize(
    "record",
    [
        JudgeJob(
            "t.py",
            "cuda",
            5,
            0,
            12345,
            "eager",
            True,
            100.0,
            TimingConfig(min_runs=7),
            atol=1e-3,
            reference=StoredReference({"format": 1, "env": {"torch": "2.11"}}, "QUJD"),
        ),
        JudgeReport(
            "pass",
            flag_details=("side_stream: 1 kernel",),
            correctness=Correctness(trials=5, passed=5, max_abs_err=1e-6, reference="float64"),
            candidate_time=STATS,
            env={"device": "cuda"},
            phases={"total_s": 1.0},
        ),
        Call(
            (ValueSpec("tensor", 0, 64, (4, 4), (4, 1), "float32"), ValueSpec("value", value=3)),
            256,
            1024,
            census=True,
        ),
        Outputs(
            (ValueSpec("tuple", items=(ValueSpec("tensor", 0, 8, (2,), (1,), "float32"),)),), mutated=(0,)
        ),
    ],
    ids=["job", "report", "call", "outputs"],
)
def test_records_round_trip(record):
    assert decode(type(record), json.loads(encode(record))) == record


def test_every_message_kind_is_registered_once():
    assert set(REQUESTS).isdisjoint(REPLIES)
    assert all(cls.KIND == kind for kind, cls in {**REQUESTS, **REPLIES}.items())


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"type": "times", "first": 1.0, "second": "2"}, "expected a number"),
        ({"type": "times", "first": True, "second": 2.0}, "expected a number"),
        ({"type": "times", "first": 1.0}, "second"),
        ({"type": "times", "first": 1.0, "second": 2.0, "extra": 0}, "unknown fields"),
        ({"type": "outputs", "first": 1.0, "second": 2.0}, "not a times"),
        ([1.0, 2.0], "expected an object"),
    ],
)
def test_a_reply_that_is_not_its_record_is_refused(data, why):
    with pytest.raises(BoundaryError, match=why):
        decode(Times, data)


def test_nested_fields_are_checked_too():
    good = json.loads(encode(Outputs((ValueSpec("tensor", shape=(2, 2)),))))
    good["outputs"][0]["shape"] = [2, "2"]
    with pytest.raises(BoundaryError, match=r"Outputs\.outputs\[0\]\.shape\[1\]"):
        decode(Outputs, good)
