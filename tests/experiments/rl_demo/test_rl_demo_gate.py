"""experiments.rl_demo.gate: the SFT gate trains again with the next seed below --sft-min-pass, keeps the best where none passes, and leaves a call cut short's attempts to the next through the cache."""

from __future__ import annotations

import pytest
from rl_demo_support import (
    stub_arms,
    stub_gate,
    tiny,
)

from experiments.rl_demo import (
    cli,
)


def test_the_gate_trains_again_with_the_next_seed_until_the_rl_split_passes(tmp_path, monkeypatch):
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 24, "sft-attempt-3": 32})
    out = tmp_path / "out"
    results = cli.main(["--tiny", "--out", str(out), "--arms", "full", "--seed", "3"])
    assert seen.trained == [("sft", 3), ("sft-attempt-2", 1003)]  # stops at the first that passes
    assert seen.arm_models == ["sft-attempt-2"]
    assert [(a["attempt"], a["seed"], a["rl_pass_rate"]) for a in results["sft_attempts"]] == [
        (1, 3, 0.25),
        (2, 1003, 0.75),
    ]
    assert (
        results["sft_attempts"][0]["test_pass_rate"] == 0.25 and results["sft_attempts"][0]["eval_s"] == 20.0
    )
    sft = results["sft"]
    assert (sft["gate"], sft["attempt"], sft["seed"], sft["attempts_made"], sft["stopped"]) == (
        "passed",
        2,
        1003,
        2,
        None,
    )
    assert "cache" not in sft
    assert results["before"]["rl"]["pass_rate"] == 0.75
    assert results["timing"]["sft_s"] == 200.0 and results["timing"]["eval_before_s"] == 40.0
    md = (out / "rl_demo.md").read_text()
    assert "SFT model: trained in the call, not cached (no --sft-cache); gate passed (minimum 50%" in md
    assert "attempt 2 of 2 kept, training seed 1003, RL pass 75%" in md


def test_the_gate_tries_the_seeds_it_is_given_in_their_order(tmp_path, monkeypatch):
    assert cli.parse_args(["--out", str(tmp_path), "--seed", "3", "--sft-attempts", "2"]).sft_seeds == [
        3,
        1003,
    ]
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 24, "sft-attempt-3": 32})
    results = cli.main(
        ["--tiny", "--out", str(tmp_path / "out"), "--arms", "full", "--sft-seeds", "2000", "5"]
    )
    assert seen.trained == [("sft", 2000), ("sft-attempt-2", 5)]
    assert results["sft"]["seed"] == 5 and results["sft"]["attempts_allowed"] == 2


def test_where_no_attempt_passes_the_gate_fails_keeps_the_best_and_runs_no_arm(tmp_path, monkeypatch, caplog):
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 16, "sft-attempt-3": 16})
    out = tmp_path / "out"
    results = cli.main(["--tiny", "--out", str(out), "--arms", "full", "no_bdr", "--sft-min-pass", "0.9"])
    assert seen.trained == [("sft", 0), ("sft-attempt-2", 1000), ("sft-attempt-3", 2000)]
    assert seen.arm_models == []
    assert results["arms"] == {name: {"skipped": "the SFT gate failed"} for name in ("full", "no_bdr")}
    sft = results["sft"]
    assert (sft["gate"], sft["attempt"], sft["attempts_made"]) == ("failed", 2, 3)
    assert sft["stopped"] == "all 3 attempts below the minimum"
    assert [a["rl_pass_rate"] for a in results["sft_attempts"]] == [0.25, 0.5, 0.5]
    assert "SFT gate failed" in caplog.text
    md = (out / "rl_demo.md").read_text()
    assert (
        "gate failed (minimum 90% of the RL split): attempt 2 of 3 kept" in md
    )  # the best, the earliest of equals
    assert "| full | skipped (the SFT gate failed) |" in md


def test_the_gate_trains_while_an_attempt_fits_and_a_call_cut_short_leaves_its_attempts_to_the_next(
    tmp_path, monkeypatch
):
    """An attempt takes 120 s (training and two evaluations). With 300 s, the first two fail and 60 s
    are left, short of a third: the gate stops, failed, and no arm runs. Every attempt is in the
    cache, so the next call reads both (no training) and trains only the third, which passes; its arm
    then runs. Arms are not reserved for: a model that has learned the task comes first."""
    seen = stub_gate(
        monkeypatch, tmp_path, {"sft": 8, "sft-attempt-2": 8, "sft-attempt-3": 24}, cacheable=True
    )
    cache = tmp_path / "cache"
    args = ["--tiny", "--arms", "full", "--sft-cache", str(cache)]
    results = cli.main([*args, "--out", str(tmp_path / "a"), "--budget-s", "300"])
    assert seen.trained == [("sft", 0), ("sft-attempt-2", 1000)] and seen.arm_models == []
    sft = results["sft"]
    assert sft["gate"] == "failed" and sft["attempts_made"] == 2
    assert sft["stopped"] == "budget: 60 s left, less than another attempt (120 s)"
    assert [a["cache"]["reused"] for a in results["sft_attempts"]] == [False, False]
    assert len([p for p in cache.iterdir() if not p.name.startswith(".")]) == 2

    seen.now, seen.trained = 0.0, []
    results = cli.main([*args, "--out", str(tmp_path / "b"), "--budget-s", "300"])
    assert seen.trained == [("sft-attempt-3", 2000)] and seen.arm_models == ["sft-attempt-3"]
    assert [a["cache"]["reused"] for a in results["sft_attempts"]] == [True, True, False]
    assert [a["rl_pass_rate"] for a in results["sft_attempts"]] == [0.25, 0.25, 0.75]
    assert results["sft"]["gate"] == "passed" and results["sft"]["cache"]["reused"] is False
    assert results["timing"]["sft_s"] == 100.0 and "sft_cache_load_s" in results["timing"]


@pytest.mark.slow
def test_the_gate_trains_again_below_the_minimum_and_keeps_the_best(tmp_path, monkeypatch):
    """Real --tiny SFT with a minimum no model can meet: two attempts with seeds 0 and 1000, the gate
    failed, the better on the RL split kept (the first of equals), and no arm run."""
    started_from = stub_arms(monkeypatch)
    out = tmp_path / "out"
    results = cli.main(tiny(out, None, "--sft-min-pass", "1.01", "--sft-attempts", "2"))
    attempts = results["sft_attempts"]
    assert [(a["attempt"], a["seed"]) for a in attempts] == [(1, 0), (2, 1000)]
    best = max(attempts, key=lambda a: a["rl_pass_rate"])
    sft = results["sft"]
    assert (sft["gate"], sft["attempt"], sft["stopped"]) == (
        "failed",
        best["attempt"],
        "all 2 attempts below the minimum",
    )
    assert results["before"]["rl"]["pass_rate"] == best["rl_pass_rate"]
    assert attempts[0]["weights"] != attempts[1]["weights"]  # another seed, another model
    assert started_from == [] and results["arms"] == {"full": {"skipped": "the SFT gate failed"}}
