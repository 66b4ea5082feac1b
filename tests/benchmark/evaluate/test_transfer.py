"""The arena between the judge and the candidate's process: inputs keep their exact layout, outputs
come back as values with their own layout described, and nothing outside what was packed is read."""

from __future__ import annotations

import os

import pytest
import torch

from benchmark.evaluate.boundary import BoundaryError, ValueSpec
from benchmark.evaluate.transfer import Arena, Opaque, Uncopied

CPU = torch.device("cpu")


@pytest.fixture
def pair():
    """The judge's arena and the candidate's view of it (the memfd passed as a descriptor would be)."""
    judge, fds = Arena.create(1 << 16, CPU)
    candidate = Arena.attach(judge.handle, [os.dup(fds[0])])
    yield judge, candidate
    candidate.close()
    judge.close()


def test_inputs_keep_their_layout(pair):
    judge, candidate = pair
    x = torch.randn(4, 8)
    values = [
        x,
        x.t(),  # transposed: same storage, another stride
        torch.randn(1, 5).expand(3, 5),  # stride 0
        x[:, 2:5],  # a view into the middle of a storage
        torch.tensor([True, False]),
        torch.randn(3).to(torch.bfloat16),
        torch.empty(0, 3),
        7,
        2.5,
        None,
        "name",
        torch.float16,
        [torch.arange(3), (True, 1)],
    ]
    specs, _ = judge.pack(values, 0, judge.nbytes, layout=True)
    got = candidate.unpack(specs, CPU)
    for want, have in zip(values[:-1], got[:-1], strict=True):
        if isinstance(want, torch.Tensor):
            assert torch.equal(want, have) and want.stride() == have.stride() and want.dtype == have.dtype
        else:
            assert have == want
    nested = got[-1]
    assert isinstance(nested, list) and torch.equal(nested[0], torch.arange(3)) and nested[1] == (True, 1)


def test_outputs_come_back_as_values_with_their_stride_described(pair):
    judge, candidate = pair
    y = torch.randn(3, 5).t()
    specs, _ = candidate.pack([y, object()], 0, candidate.nbytes)
    got = judge.unpack(specs, CPU)
    assert torch.equal(got[0], y) and got[0].is_contiguous() and specs[0].stride == (1, 5)
    assert got[1] == Opaque("object")


def test_an_output_larger_than_its_room_is_described_not_copied(pair):
    judge, candidate = pair
    specs, next_offset = candidate.pack([torch.ones(1000)], 0, 100)
    assert not specs[0].copied and next_offset == 0
    (got,) = judge.unpack(specs, CPU)
    assert isinstance(got, Uncopied) and got.spec.shape == (1000,)


@pytest.mark.parametrize(
    "spec",
    [
        ValueSpec("tensor", offset=1 << 20, nbytes=16, shape=(4,), stride=(1,), dtype="float32"),  # outside
        ValueSpec("tensor", offset=0, nbytes=8, shape=(4,), stride=(1,), dtype="float32"),  # too few bytes
        ValueSpec("tensor", offset=0, nbytes=16, shape=(4,), stride=(1,), dtype="os.system"),  # no dtype
        ValueSpec("tensor", offset=0, nbytes=16, shape=(4, 4), stride=(4, 1), dtype="float32", span=True),
        ValueSpec("spreadsheet"),
    ],
    ids=["outside", "short", "dtype", "span", "kind"],
)
def test_a_spec_that_does_not_hold_is_refused(pair, spec):
    judge, _ = pair
    with pytest.raises(BoundaryError):
        judge.unpack([spec], CPU)


def test_the_candidates_writes_reach_the_judges_arena(pair):
    judge, candidate = pair
    candidate.region(0, 4).copy_(torch.tensor([1, 2, 3, 4], dtype=torch.uint8))
    assert judge.region(0, 4).tolist() == [1, 2, 3, 4]


def test_the_timing_slot_is_read_in_place_by_both_sides(pair):
    """Both processes read the timing slot where it lies: the candidate copies a timing set into it
    and its views are the arena's bytes; the judge writes its own copy of the set there and reads
    the same bytes (a memory-bound call's speed depends on where its buffers lie)."""
    judge, candidate = pair
    x = torch.randn(6, 4)
    values = [x.t(), torch.randn(5), 3]
    sets, end = judge.pack(values, 0, 4096, layout=True)
    slot, _ = judge.pack([torch.zeros_like(x).t(), torch.zeros(5), 3], 8192, 16384, layout=True)
    candidate.copy(tuple(sets), tuple(slot))
    seen = candidate.views(slot)
    assert (
        torch.equal(seen[0], x.t()) and seen[0].stride() == x.t().stride() and torch.equal(seen[1], values[1])
    )
    assert seen[2] == 3
    seen[1][0] = 42.0  # a view, not a copy: the judge's side of the arena sees the write
    assert float(judge.views(slot)[1][0]) == 42.0
    judge.write(values, tuple(slot))  # the judge's own copy overwrites whatever the candidate left
    mine = judge.views(slot)
    assert torch.equal(mine[1], values[1])
    assert mine[0].untyped_storage().data_ptr() == judge.buffer.untyped_storage().data_ptr()


def test_a_slot_of_another_size_is_refused(pair):
    judge, _ = pair
    sets, _ = judge.pack([torch.randn(8)], 0, 4096, layout=True)
    slot, _ = judge.pack([torch.randn(4)], 8192, 16384, layout=True)
    with pytest.raises(BoundaryError, match="do not fit"):
        judge.copy(tuple(sets), tuple(slot))
    with pytest.raises(BoundaryError, match="does not fit"):
        judge.write([torch.randn(8)], tuple(slot))


@pytest.mark.parametrize("layout", [True, False])
def test_placing_gives_packings_specs_and_writes_nothing(pair, layout):
    judge, _ = pair
    x = torch.randn(4, 8)
    values = [x.t(), torch.randn(1, 5).expand(3, 5), x[:, 2:5], torch.empty(0, 3), [torch.arange(3), 2.5]]
    judge.region(0, judge.nbytes).zero_()
    placed, end = judge.place(values, 64, judge.nbytes, layout=layout)
    assert not judge.region(0, judge.nbytes).any()  # nothing written
    packed, packed_end = judge.pack(values, 64, judge.nbytes, layout=layout)
    assert placed == packed and end == packed_end
    tight, _ = judge.place([x], 0, 16, layout=layout)  # 128 bytes do not fit 16
    assert not tight[0].copied and tight[0].nbytes == x.numel() * 4
