"""scripts/rl_demo.py's arguments without a run: the arms a call runs (one per GPU stage gives each
more RL steps in its budget)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import rl_demo  # noqa: E402


def test_every_arm_by_default_and_a_chosen_few_in_their_order(tmp_path):
    assert rl_demo.parse_args(["--out", str(tmp_path)]).arms == list(rl_demo.ARMS)
    assert rl_demo.parse_args(["--out", str(tmp_path), "--arms", "no_bdr", "full"]).arms == ["no_bdr", "full"]
    with pytest.raises(SystemExit):
        rl_demo.parse_args(["--out", str(tmp_path), "--arms", "no_such_arm"])
