"""What the samples in flight are doing: the registry a progress bar reads, and the judge's phase
messages that feed it."""

import json
import os

import pytest

from benchmark.evaluate import activity
from benchmark.evaluate.boundary import PHASES
from benchmark.evaluate.channel import PHASE_PREFIX, sign
from benchmark.evaluate.sandbox import PairClock, Pipe


def test_a_sample_is_in_flight_for_its_block_only_the_longest_running_first():
    with activity.track("a#0", "compile") as first:
        with activity.track("b#1", "setup") as second:
            assert activity.in_flight() == [first, second]
        assert activity.in_flight() == [first]
    assert activity.in_flight() == []


def test_a_sample_that_raises_leaves_the_registry():
    with pytest.raises(RuntimeError), activity.track("a#0", "setup"):
        raise RuntimeError("the sample failed")
    assert activity.in_flight() == []


def test_a_sample_describes_its_phase_its_wait_and_its_age():
    sample = activity.Sample("relu#2", "setup", started=100.0)
    sample.enter("observations")
    assert sample.describe(now=112.4) == "relu#2 wrap-up 12s"
    sample.wait(True)
    assert sample.describe(now=130.0) == "relu#2 waits for the device 30s"


def test_every_phase_of_the_judge_has_a_short_name():
    assert set(PHASES) <= set(activity.SHORT)


def test_the_judges_signed_phase_messages_reach_the_sample_and_forged_ones_do_not():
    read_fd, write_fd = os.pipe()
    nonce = "n" * 64
    sample = activity.Sample("t#0", "setup")
    pipe = Pipe(read_fd, nonce, on_clock=lambda name: None, on_phase=sample.enter)
    lines = [
        {"phase": "timing", "mac": sign(nonce, PHASE_PREFIX + "timing")},
        {"phase": "profile", "mac": sign("another nonce", PHASE_PREFIX + "profile")},
    ]
    os.write(write_fd, "".join(json.dumps(line) + "\n" for line in lines).encode())
    os.close(write_fd)
    pipe.read()
    os.close(read_fd)
    assert sample.phase == "timing" and pipe.phase == "timing"


def test_the_judge_waiting_for_the_device_shows_on_the_sample():
    sample = activity.Sample("t#0", "checks")
    clock = PairClock(sample)
    clock.judge_says("wait")
    assert sample.waiting
    clock.judge_says("run")
    assert not sample.waiting
