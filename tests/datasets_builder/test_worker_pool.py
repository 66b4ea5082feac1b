"""The crash-restarting worker pool: a worker that dies loses no item, the pool starts again with
its initializer, an item that always kills its worker is given up, an exception is an item's outcome,
and should_stop stops scheduling. Workers are spawned processes that import this module."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from datasets_builder.worker_pool import RestartingPool

OFFSET = 0  # set in each worker by the pool's initializer


def set_offset(offset: int) -> None:
    global OFFSET
    OFFSET = offset


def square(key: int, crash_on: int | None = None, marker: str | None = None) -> int:
    """key * key + OFFSET; kills its worker on `crash_on` (once, when `marker` names a file to leave)."""
    if key == crash_on and (marker is None or not Path(marker).exists()):
        if marker is not None:
            Path(marker).touch()
        os._exit(1)
    if key < 0:
        raise ValueError(f"negative key {key}")
    return key * key + OFFSET


def test_a_worker_crash_loses_nothing_and_the_pool_restarts(tmp_path):
    keys = list(range(8))
    marker = str(tmp_path / "crashed")
    with RestartingPool(2, set_offset, (100,)) as pool:
        outcomes = list(pool.run(square, keys, lambda k: (k, 3, marker)))
    assert Path(marker).exists() and pool.restarts == 1
    assert sorted(o.key for o in outcomes) == keys  # every item once, none lost, none twice
    assert {o.key: o.result for o in outcomes} == {k: k * k + 100 for k in keys}  # initializer ran again
    assert not any(o.crashed or o.error for o in outcomes)


def test_an_item_that_always_kills_its_worker_is_given_up():
    with RestartingPool(1, max_crashes=2, window=1) as pool:  # one in flight: the crash is its own
        outcomes = {o.key: o for o in pool.run(square, [0, 1, 2], lambda k: (k, 1))}
    assert outcomes[1].crashed and outcomes[1].result is None and pool.restarts == 2
    assert (outcomes[0].result, outcomes[2].result) == (0, 4)
    assert not outcomes[0].crashed and not outcomes[2].crashed


def test_an_exception_is_the_items_outcome_and_the_pool_stays():
    with RestartingPool(1) as pool:
        outcomes = {o.key: o for o in pool.run(square, [2, -1, 3], lambda k: (k,))}
    assert isinstance(outcomes[-1].error, ValueError) and "negative key -1" in str(outcomes[-1].error)
    assert (outcomes[2].result, outcomes[3].result) == (4, 9) and pool.restarts == 0


def test_should_stop_stops_scheduling():
    seen: list[int] = []
    with RestartingPool(1, window=1) as pool:
        for outcome in pool.run(square, [5, 6, 7], lambda k: (k,), should_stop=lambda: bool(seen)):
            seen.append(outcome.key)
    assert seen == [5]


def test_the_pool_is_used_in_a_with_block_and_needs_a_worker():
    with pytest.raises(ValueError, match="at least one worker"):
        RestartingPool(0)
    with pytest.raises(RuntimeError, match="with block"):
        next(RestartingPool(1).run(square, [1], lambda k: (k,)))
