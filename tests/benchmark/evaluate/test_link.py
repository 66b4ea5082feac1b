"""The judge's side of the channel reads every reply as untrusted: a reply that is not JSON, not the
record due, too long, or none at all ends the sample (CandidateLost), never the judge; the
candidate's own error comes back as CandidateRaised; descriptors it sends are not kept."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from benchmark.evaluate.boundary import Done, Loaded, Prepare, Times
from benchmark.evaluate.link import (
    MAX_MESSAGE,
    CandidateClient,
    CandidateLost,
    CandidateRaised,
    Link,
    Rechecks,
)


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    client = CandidateClient(Link(ours))
    yield client, theirs
    ours.close()
    theirs.close()


def _answer(peer: socket.socket, *lines: bytes) -> None:
    peer.sendall(b"".join(line + b"\n" for line in lines))


def _send_quietly(peer: socket.socket, data: bytes) -> None:
    try:
        peer.sendall(data)
    except OSError:
        pass  # the judge stopped reading


def test_a_reply_of_the_kind_due_is_read(pair):
    client, peer = pair
    _answer(peer, b'{"type":"loaded","pid":7,"compile_s":0.5}', b'{"type":"times","first":1.0,"second":0.0}')
    assert client.wait_loaded() == Loaded(7, 0.5)
    assert client.ask(Prepare(0), Times) == Times(1.0, 0.0)


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        b"[1, 2]",
        b'{"type":"done"}',  # not the kind due
        b'{"type":"times","first":"fast","second":0.0}',
        b'{"type":"verdict","status":"pass"}',
    ],
)
def test_a_reply_that_is_not_due_ends_the_sample(pair, line):
    client, peer = pair
    _answer(peer, b'{"type":"loaded","pid":7,"compile_s":0.5}', line)
    with pytest.raises(CandidateLost):
        client.ask(Prepare(0), Times)


def test_the_candidates_error_is_its_own(pair):
    client, peer = pair
    _answer(peer, b'{"type":"loaded","pid":7,"compile_s":0.5}', b'{"type":"failed","error":"ValueError: no"}')
    with pytest.raises(CandidateRaised, match="ValueError: no"):
        client.ask(Prepare(0), Done)


def test_a_closed_channel_or_an_endless_line_ends_the_sample(pair):
    client, peer = pair
    _answer(peer, b'{"type":"loaded","pid":7,"compile_s":0.5}')
    flood = threading.Thread(
        target=lambda: _send_quietly(peer, b"x" * (MAX_MESSAGE + (1 << 16))), daemon=True
    )
    flood.start()
    with pytest.raises(CandidateLost, match="longer than"):
        client.ask(Prepare(0), Done)
    peer.close()
    flood.join(10)
    other, theirs = socket.socketpair()
    theirs.close()
    with pytest.raises(CandidateLost, match="closed"):
        CandidateClient(Link(other)).wait_loaded()
    other.close()


def test_descriptors_the_candidate_sends_are_closed(pair):
    client, peer = pair
    r, w = os.pipe()
    before = len(os.listdir("/proc/self/fd"))
    socket.send_fds(peer, [b'{"type":"loaded","pid":7,"compile_s":0.5}\n'], [r])
    client.wait_loaded()  # a copy of r arrived with the message
    assert len(os.listdir("/proc/self/fd")) == before  # ... and was closed
    os.close(r)
    os.close(w)


def test_rechecks_are_drawn_after_the_call_and_at_least_one_per_timing():
    fetched: list[int] = []
    rechecks = Rechecks(fetched.append, seed=0)
    for k in range(400):
        rechecks.after_call(k % 3)
    assert 0 < len(fetched) <= 24 and len(set(fetched)) == 3
    none_drawn = Rechecks(fetched.append, seed=0)
    none_drawn.rng.random = lambda: 1.0  # never drawn
    none_drawn.after_call(2)
    fetched.clear()
    none_drawn.settle()
    assert fetched == [2]
