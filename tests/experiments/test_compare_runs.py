"""experiments/compare_runs.py: the last turn counts, tasks are paired, and the interval follows the data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments import compare_runs


def write_run(path: Path, rows: list[tuple[str, int, int, str]]) -> Path:
    path.mkdir()
    lines = [json.dumps({"task_id": t, "sample": s, "turn": turn, "verdict": v}) for t, s, turn, v in rows]
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    return path


def test_every_task_improving_gives_an_interval_above_zero(tmp_path):
    before = write_run(tmp_path / "b", [(f"t{i}", s, 1, "no_code") for i in range(6) for s in range(2)])
    after = write_run(
        tmp_path / "a",
        [(f"t{i}", 0, 1, "compile_error") for i in range(6)]
        + [(f"t{i}", 0, 2, "pass") for i in range(6)]  # the second turn is the sample's verdict
        + [(f"t{i}", 1, 1, "incorrect") for i in range(6)],
    )
    got = compare_runs.compare(before, after, resamples=2000)
    assert got["pass_rate_before"] == 0 and got["pass_rate_after"] == 0.5 and got["difference"] == 0.5
    assert got["ci95"] == [0.5, 0.5]
    assert got["verdicts_after"] == {"pass": 6, "incorrect": 6}


def test_mixed_changes_give_an_interval_spanning_zero_and_only_shared_tasks_count(tmp_path):
    before = write_run(tmp_path / "b", [("a", 0, 1, "pass"), ("b", 0, 1, "incorrect"), ("c", 0, 1, "pass")])
    after = write_run(tmp_path / "a", [("a", 0, 1, "incorrect"), ("b", 0, 1, "pass")])
    got = compare_runs.compare(before, after, resamples=2000)
    assert got["tasks"] == ["a", "b"] and got["difference"] == 0
    low, high = got["ci95"]
    assert low == -1 and high == 1


def _arm(tmp_path: Path, name: str, passes: list[set[str]]) -> list[Path]:
    """One run per seed over tasks t0..t7, one sample each: pass where the task is in that seed's set."""
    return [
        write_run(
            tmp_path / f"{name}{k}",
            [(f"t{i}", 0, 1, "pass" if f"t{i}" in ok else "incorrect") for i in range(8)],
        )
        for k, ok in enumerate(passes)
    ]


def test_two_arms_over_seeds_claim_a_change_only_when_every_seed_carries_it(tmp_path):
    tasks = {f"t{i}" for i in range(8)}
    plain = _arm(tmp_path, "plain", [set(), set(), set()])
    steady = _arm(tmp_path, "steady", [tasks, tasks, tasks])
    got = compare_runs.compare_arms(plain, steady, resamples=2000)
    assert got["differences"]["pass_rate"]["value"] == 1.0
    assert got["differences"]["pass_rate"]["improved"]
    assert got["base"]["pass_rate"] == [0.0, 0.0, 0.0] and got["other"]["pass_rate"] == [1.0, 1.0, 1.0]
    # one lucky seed of three: the mean moves, but the seed draw puts zero inside the interval
    lucky = _arm(tmp_path, "lucky", [tasks, set(), set()])
    got = compare_runs.compare_arms(plain, lucky, resamples=2000)
    assert got["differences"]["pass_rate"]["value"] == pytest.approx(1 / 3)
    low, high = got["differences"]["pass_rate"]["interval"]
    assert low == 0.0 and high == 1.0 and not got["differences"]["pass_rate"]["improved"]


def test_the_cli_takes_two_arms_or_two_runs_not_both(tmp_path, capsys):
    plain = _arm(tmp_path, "p", [set()])
    other = _arm(tmp_path, "o", [{"t0"}])
    assert (
        compare_runs.main(["--base", *map(str, plain), "--other", *map(str, other), "--resamples", "200"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["differences"]["pass_rate"]["value"] == pytest.approx(1 / 8)
    with pytest.raises(SystemExit):
        compare_runs.main(["--base", str(plain[0])])


@pytest.mark.parametrize("arms", [False, True], ids=["two-runs", "two-arms"])
def test_the_seed_picks_the_bootstrap_draws_in_both_forms(tmp_path, capsys, arms):
    """`--seed` reaches the draws: one seed gives one interval again, and another seed other draws
    (eight tasks of mixed changes, 30 resamples: the interval's ends move with the draws)."""
    before = _arm(tmp_path, "b", [{f"t{i}" for i in range(0, 8, 2)}])[0]
    after = _arm(tmp_path, "a", [{f"t{i}" for i in range(0, 8, 3)}])[0]

    def interval(seed: int) -> list[float]:
        args = ["--base", str(before), "--other", str(after)] if arms else [str(before), str(after)]
        assert compare_runs.main([*args, "--resamples", "30", "--seed", str(seed)]) == 0
        return json.loads(capsys.readouterr().out)["differences"]["pass_rate"]["interval"]

    draws = [interval(seed) for seed in range(6)]
    assert interval(3) == draws[3]
    assert len({tuple(d) for d in draws}) > 1
