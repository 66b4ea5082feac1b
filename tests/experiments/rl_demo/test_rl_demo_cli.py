"""The flags of experiments.rl_demo: the arms a call runs, --sft-arms and --sft-seeds, the gate and cache options."""

from __future__ import annotations

import pytest

from experiments.rl_demo import (
    cli,
    state,
)


def test_every_arm_by_default_and_a_chosen_few_in_their_order(tmp_path):
    assert cli.parse_args(["--out", str(tmp_path)]).arms == list(state.ARMS)
    assert cli.parse_args(["--out", str(tmp_path), "--arms", "no_bdr", "full"]).arms == ["no_bdr", "full"]
    with pytest.raises(SystemExit):
        cli.parse_args(["--out", str(tmp_path), "--arms", "no_such_arm"])


def test_sft_arms_need_plain_and_run_it_first_and_train_at_seed_by_default(tmp_path):
    args = cli.parse_args(["--out", str(tmp_path), "--sft-arms", "cuset", "plain", "cuset_no_regions"])
    assert args.sft_arms == ["plain", "cuset", "cuset_no_regions"]
    assert args.sft_seeds == [0]
    assert cli.parse_args(["--out", str(tmp_path), "--seed", "3", "--sft-arms", "plain"]).sft_seeds == [3]
    seeds = ["--sft-arms", "plain", "--sft-seeds", "2", "0", "2"]
    assert cli.parse_args(["--out", str(tmp_path), *seeds]).sft_seeds == [2, 0]
    assert cli.parse_args(["--out", str(tmp_path)]).sft_arms is None
    for wrong in (["--sft-arms", "cuset"], ["--sft-arms", "plain", "no_such_arm"]):
        with pytest.raises(SystemExit):
            cli.parse_args(["--out", str(tmp_path), *wrong])


def test_gate_and_cache_options(tmp_path):
    args = cli.parse_args(["--out", str(tmp_path)])
    assert (args.sft_cache, args.sft_min_pass, args.sft_attempts, args.arm_s) == (None, 0.5, 3, 240.0)
    assert cli.parse_args(["--out", str(tmp_path), "--tiny"]).arm_s == 60.0
    for wrong in (["--sft-attempts", "0"], ["--sft-arms", "plain", "--sft-cache", str(tmp_path)]):
        with pytest.raises(SystemExit):
            cli.parse_args(["--out", str(tmp_path), *wrong])
