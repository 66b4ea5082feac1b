"""experiments.rl_demo.family: the held-out tasks and the values of the SFT tasks."""

from __future__ import annotations

from experiments.rl_demo import (
    family,
)


def test_wide_sft_tasks_hold_out_the_same_test_and_rl_tasks_and_every_value_of_theirs():
    grid, wide = family.family(0, 8, 16), family.family(0, 8, 16, "wide")
    assert (wide["test"], wide["rl"]) == (grid["test"], grid["rl"])
    assert len(grid["sft"]) == 360 and len(wide["sft"]) == len(set(wide["sft"])) == 6 * 24 * 16 - 24
    assert not set(wide["sft"]) & set(grid["test"] + grid["rl"])
    held = grid["test"] + grid["rl"]
    assert {s.a for s in held} <= {s.a for s in wide["sft"]} and {s.b for s in held} <= {
        s.b for s in wide["sft"]
    }
    assert family.family(1, 8, 16, "wide")["sft"] != wide["sft"]  # the order is seeded
