"""experiments.rl_demo.arms through main, its phases stood in for on a fake clock: the RL arms that fit run whole and the rest are skipped, a call killed during an evaluation keeps the arm's training, and --sft-arms trains one model per arm and seed and compares it with plain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rl_demo_support import (
    AFTER,
    BEFORE,
    row,
    stub_gate,
    stub_run,
    stub_sft,
)

from experiments.rl_demo import (
    budget,
    cli,
    differences,
    metrics,
    report,
    state,
)


def test_main_runs_every_arm_that_fits_in_full_and_records_the_rest_as_skipped(tmp_path, monkeypatch):
    """The budget is 400 s; three arms fit whole, the fourth is skipped rather than cut."""
    seen = stub_run(monkeypatch, tmp_path)
    results = cli.main(["--tiny", "--out", str(tmp_path / "out"), "--budget-s", "400"])
    # the run's deadline less a reserve for the arm's evaluation: before any after-RL evaluation a
    # multiple of the before-RL one (20 s), then the last after-RL evaluation's cost
    assert seen.deadlines == [400.0 - budget.AFTER_EVAL_RESERVE * 20.0, 380.0, 380.0]
    arms = results["arms"]
    assert list(arms) == list(state.ARMS)
    assert arms["no_mirrorpop"] == {"skipped": "budget"}
    for name in ("full", "no_primeecho", "no_bdr"):
        assert arms[name]["steps"] == 10 and arms[name]["differences"]["test"]["pass_rate"]["improved"]
    assert json.loads((tmp_path / "out" / "rl_demo.json").read_text())["arms"]["no_mirrorpop"] == {
        "skipped": "budget"
    }
    assert "| no_mirrorpop | skipped (budget) |" in (tmp_path / "out" / "rl_demo.md").read_text()


def test_a_run_killed_during_an_arms_evaluation_keeps_the_arms_training(tmp_path, monkeypatch):
    def killed():
        raise KeyboardInterrupt  # the stage's limit, as a signal would end it

    stub_run(monkeypatch, tmp_path, trained_evaluation=killed)
    with pytest.raises(KeyboardInterrupt):
        cli.main(["--tiny", "--out", str(tmp_path / "out"), "--budget-s", "400", "--arms", "full"])
    full = json.loads((tmp_path / "out" / "rl_demo.json").read_text())["arms"]["full"]
    assert full["steps"] == 10 and full["curve"] == [{"step": 1, "reward": 0.5}]
    assert full["error"] == "stopped during its after-RL evaluation" and "after" not in full


def test_main_trains_each_sft_arm_with_its_config_and_compares_it_with_plain_on_the_test_split(
    tmp_path, monkeypatch
):
    """One training seed (the default): budget 330 s; plain and cuset run whole, cuset_no_regions is
    skipped, no RL runs, and the interval is over tasks only."""
    seen = stub_sft(monkeypatch)
    out = tmp_path / "out"
    results = cli.main(
        ["--tiny", "--out", str(out), "--budget-s", "330", "--sft-arms", "cuset", "cuset_no_regions", "plain"]
    )

    plain, cuset = seen.configs
    assert not plain.cuset and cuset.cuset
    assert cuset.cuset_token_masking and cuset.cuset_regions and cuset.cuset_sample_reweighting
    assert plain.output_dir == str(out / "sft-arms" / "plain" / "seed-0")
    assert cuset.output_dir == str(out / "sft-arms" / "cuset" / "seed-0")
    for field in ("max_steps", "seed", "learning_rate", "per_device_train_batch_size"):
        assert getattr(plain, field) == getattr(cuset, field)
    assert seen.deadlines == [330.0, 330.0 - 10.0]  # the budget less the last evaluation's cost
    assert seen.evaluated == [("plain", "test", 0), ("cuset", "test", 0)]
    assert "arms" not in results and "before" not in results

    arms = results["sft_arms"]
    assert list(arms) == ["plain", "cuset", "cuset_no_regions"]
    assert arms["cuset_no_regions"] == {"runs": {"0": {"skipped": "budget"}}}
    assert arms["plain"]["runs"]["0"]["sft"] == {
        "steps": 6,
        "loss_first": 2.0,
        "loss_last": 1.0,
        "nll_last": None,
        "seconds": 100.0,
        "stopped_by_deadline": False,
        "weights": "weights of plain",
    }
    assert arms["cuset"]["runs"]["0"]["sft"]["nll_last"] == 0.5
    assert set(arms["plain"]["runs"]["0"]["eval"]) == {"test"} and "differences" not in arms["plain"]
    assert arms["cuset"]["differences"]["test"] == {
        m: d.to_dict() for m, d in differences.paired_differences(BEFORE, AFTER).items()
    }
    assert arms["cuset"]["differences"]["test"]["pass_rate"]["improved"]
    assert json.loads((out / "rl_demo.json").read_text())["sft_arms"]["cuset_no_regions"] == {
        "runs": {"0": {"skipped": "budget"}}
    }
    md = (out / "rl_demo.md").read_text()
    assert "| cuset_no_regions | 0 | skipped (budget) |" in md
    assert row(md, f"| cuset | 1 / 1 ({report.TASKS_ONLY}) | +33 pp").count("improved") == 3


def test_sft_seeds_run_seed_after_seed_plain_first_and_a_budget_cut_loses_a_whole_seed(tmp_path, monkeypatch):
    """Seeds 5, 6, 7 of two arms, 110 s a run, budget 450 s: seeds 5 and 6 run whole (440 s), seed 7
    is skipped for both arms. Each run's init and trainer take its training seed; the corpus, tasks and
    evaluation sampling keep --seed (0)."""
    seen = stub_sft(monkeypatch)
    out = tmp_path / "out"
    args = ["--tiny", "--out", str(out), "--budget-s", "450", "--sft-arms", "plain", "cuset"]
    results = cli.main([*args, "--sft-seeds", "5", "6", "7"])

    order = [(Path(c.output_dir).parent.name, c.seed) for c in seen.configs]
    assert order == [("plain", 5), ("cuset", 5), ("plain", 6), ("cuset", 6)]
    assert seen.inits == [5, 5, 6, 6]
    assert {seed for _, _, seed in seen.evaluated} == {0}
    arms = results["sft_arms"]
    for name in ("plain", "cuset"):
        assert list(arms[name]["runs"]) == ["5", "6", "7"]
        assert arms[name]["runs"]["7"] == {"skipped": "budget"}
        assert arms[name]["over_seeds"]["seeds"] == [5, 6]
    assert arms["plain"]["over_seeds"]["pass_rate"] == metrics.split_metrics(BEFORE)["pass_rate"]
    assert arms["cuset"]["differences"]["test"] == {
        m: d.to_dict() for m, d in differences.seed_task_differences([BEFORE] * 2, [AFTER] * 2).items()
    }
    md = (out / "rl_demo.md").read_text()
    assert "| plain | 7 | skipped (budget) |" in md and "| cuset | 6 | 6 | 0.5000 | 83% |" in md
    assert row(md, "| cuset | 2 / 2 | +33 pp").count("improved") == 3
    assert "| plain | 2 | 50% | 50%-50% |" in md


def test_the_first_arm_is_skipped_rather_than_cut_where_the_expected_arm_does_not_fit(tmp_path, monkeypatch):
    """The gate passes at the first attempt (120 s of 300); the arm's evaluation reserve is 3 x 20 s,
    so 120 s are left to train: enough for --arm-s 100, not for 150."""
    seen = stub_gate(monkeypatch, tmp_path, {"sft": 24})
    args = ["--tiny", "--arms", "full", "--budget-s", "300"]
    results = cli.main([*args, "--out", str(tmp_path / "a"), "--arm-s", "150"])
    assert seen.arm_models == [] and results["arms"]["full"] == {"skipped": "budget"}
    seen.now = 0.0
    results = cli.main([*args, "--out", str(tmp_path / "b"), "--arm-s", "100"])
    assert seen.arm_models == ["sft"] and results["arms"]["full"]["steps"] == 10
