"""experiments.rl_demo.merge: several calls in one report, each arm against its own call's before-RL evaluation, SFT runs pooled by (arm, training seed), calls that do not compare refused, and the recorded GPU files merged as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rl_demo_support import (
    AFTER,
    BEFORE,
    arm,
    outcomes,
    row,
    run_file,
    sft_arms,
    sft_file,
    sft_record,
)

from benchmark.metrics import compute
from experiments.rl_demo import (
    cli,
    differences,
    merge,
    metrics,
    report,
)


def test_merge_reports_the_arms_of_several_calls_each_against_its_own_before(tmp_path):
    first = run_file(
        tmp_path / "a" / "rl_demo.json", {"full": arm(BEFORE, AFTER), "no_bdr": {"skipped": "budget"}}
    )
    second = run_file(tmp_path / "b" / "rl_demo.json", {"no_bdr": arm(BEFORE, BEFORE)})
    out = tmp_path / "merged"
    results = cli.main(["--merge", str(first), str(second), "--out", str(out)])
    assert results["arms"]["full"]["call"] == 1 and results["arms"]["no_bdr"]["call"] == 2
    md = (out / "rl_demo.md").read_text()
    assert "| SFT (before RL, call 1) |" in md and "| SFT (before RL, call 2) |" in md
    assert row(md, "| full (call 1) | +33 pp").count("improved") == 3
    assert "| no_bdr (call 2) | +0 pp [+0, +0] no change shown" in md
    assert "skipped" not in md
    assert "against the before-RL evaluation of its own call" in md and str(second) in md
    assert (out / "learning_curves.svg").read_text().startswith("<svg")
    assert not (out / "rl_demo.json").exists()


def test_merge_refuses_calls_that_do_not_compare(tmp_path):
    first = run_file(tmp_path / "a.json", {"full": arm(BEFORE, AFTER)})
    other_seed = run_file(tmp_path / "b.json", {"no_bdr": arm(BEFORE, AFTER)}, seed=1)
    again = run_file(tmp_path / "c.json", {"full": arm(BEFORE, BEFORE)})
    for second in (other_seed, again):
        with pytest.raises(SystemExit):
            merge.merge([first, second])
    other_lr = run_file(tmp_path / "d.json", {"no_bdr": arm(BEFORE, AFTER)}, rl_lr=1e-4)
    with pytest.raises(SystemExit, match="another rl_lr"):
        merge.merge([first, other_lr])
    other_gpu = run_file(tmp_path / "e.json", {"no_bdr": arm(BEFORE, AFTER)}, gpu="NVIDIA H100 80GB HBM3")
    with pytest.raises(SystemExit, match="ran on NVIDIA H100 80GB HBM3"):
        merge.merge([first, other_gpu])


def test_merge_pools_sft_runs_of_several_calls_by_arm_and_training_seed(tmp_path):
    first = sft_file(
        tmp_path / "a.json",
        {"plain": {0: outcomes(6), 1: outcomes(30)}, "cuset": {0: outcomes(21), 1: {"skipped": "budget"}}},
    )
    second = sft_file(
        tmp_path / "b.json", {"plain": {2: outcomes(21)}, "cuset": {1: outcomes(6), 2: outcomes(30)}}
    )
    out = tmp_path / "merged"
    results = cli.main(["--merge", str(first), str(second), "--out", str(out)])
    arms = results["sft_arms"]
    assert {name: {s: r["call"] for s, r in arm["runs"].items()} for name, arm in arms.items()} == {
        "plain": {"0": 1, "1": 1, "2": 2},
        "cuset": {"0": 1, "1": 2, "2": 2},
    }
    plain, cuset = ([outcomes(k) for k in ks] for ks in ((6, 30, 21), (21, 6, 30)))
    assert arms["cuset"]["differences"]["test"] == {
        m: d.to_dict() for m, d in differences.seed_task_differences(plain, cuset).items()
    }
    assert arms["plain"]["over_seeds"]["pass_rate_range"] == [6 / 32, 30 / 32]
    assert results["settings"]["sft_seeds"] == [0, 1, 2]
    md = (out / "rl_demo.md").read_text()
    assert "| cuset | 1 (call 2) | 6 |" in md and "skipped" not in md
    assert row(md, "| cuset | 3 / 3 | +0 pp").count("no change shown") == 3
    assert "runs pooled by (arm, training seed)" in md and str(second) in md


def test_merge_refuses_sft_calls_that_do_not_pool(tmp_path):
    first = sft_file(tmp_path / "a.json", {"plain": {0: outcomes(6)}, "cuset": {0: outcomes(21)}})
    cases = {
        "another seed": sft_file(tmp_path / "b.json", {"plain": {1: outcomes(6)}}, seed=1),
        "sft_steps": sft_file(tmp_path / "c.json", {"plain": {1: outcomes(6)}}, sft_steps=800),
        "sft_values 'wide'": sft_file(tmp_path / "w.json", {"plain": {1: outcomes(6)}}, sft_values="wide"),
        "ran in two of the files": sft_file(tmp_path / "d.json", {"plain": {0: outcomes(30)}}),
        "mix --sft-arms and RL calls": run_file(tmp_path / "e.json", {"full": arm(BEFORE, AFTER)}),
    }
    for message, second in cases.items():
        with pytest.raises(SystemExit, match=message):
            merge.merge([first, second])
    # a file from before --sft-values ran on the grid
    grid = sft_file(tmp_path / "g.json", {"plain": {1: outcomes(6)}}, sft_values="grid")
    assert sorted(merge.merge([first, grid])["sft_arms"]["plain"]["runs"]) == ["0", "1"]


def sample_verdicts_of(per_task: dict) -> list:
    return [v for task_id, samples in per_task.items() for v in metrics.sample_verdicts(task_id, samples)]


H200_CUSET = Path(__file__).resolve().parents[3] / "docs" / "rl-demo" / "cuset-2026-12-03.json"


def test_a_file_from_before_sft_seeds_reads_as_one_run_per_arm_at_its_seed(tmp_path):
    """The H200 call of 2026-12-03 (one run per arm, seed 0): merged alone it gives back the pass and
    speedup intervals it recorded, and fast_1 by the benchmark's rule (the file counted a speedup above
    1.0x, and three of its passing samples lie between 1.0x and 1.1x); with a later call's seed-1 runs
    it pools into two seeds per arm."""
    old = json.loads(H200_CUSET.read_text())
    alone = merge.merge([H200_CUSET])["sft_arms"]
    plain = old["sft_arms"]["plain"]["eval"]["test"]["per_task"]
    between = [
        speedup
        for arm_record in old["sft_arms"].values()
        for samples in arm_record["eval"]["test"]["per_task"].values()
        for passed, speedup in samples
        if passed and speedup is not None and 1.0 < speedup <= 1.1
    ]
    assert len(between) == 3
    for name in ("cuset", "cuset_no_masking", "cuset_no_regions"):
        assert list(alone[name]["runs"]) == ["0"]
        fast_1 = [
            compute(sample_verdicts_of(per_task), resamples=0).fast_p[1.0]
            for per_task in (plain, old["sft_arms"][name]["eval"]["test"]["per_task"])
        ]
        assert alone[name]["differences"]["test"]["fast_1"]["value"] == pytest.approx(fast_1[1] - fast_1[0])
        for metric, recorded in old["sft_arms"][name]["differences"]["test"].items():
            if metric == "fast_1":
                continue
            now = alone[name]["differences"]["test"][metric]
            # the speedup's last bit follows the platform's log and exp (the file is from the GPU's Python)
            assert now == {**recorded, "value": pytest.approx(recorded["value"], rel=1e-12)} | {
                "interval": pytest.approx(recorded["interval"], rel=1e-12)
            }
        assert (
            alone["cuset"]["differences"]["test"]["pass_rate"]
            == old["sft_arms"]["cuset"]["differences"]["test"]["pass_rate"]
        )
    later = {
        **old,
        "sft_arms": sft_arms(
            {
                name: {1: old["sft_arms"][other]["eval"]["test"]["per_task"]}
                for name, other in (("plain", "cuset"), ("cuset", "plain"))
            }
        ),
    }
    second = tmp_path / "later.json"
    second.write_text(json.dumps(later))
    arms = merge.merge([H200_CUSET, second])["sft_arms"]
    assert list(arms["plain"]["runs"]) == ["0", "1"] and list(arms["cuset_no_regions"]["runs"]) == ["0"]
    assert arms["cuset"]["differences"]["test"]["pass_rate"]["value"] == 0.0
    assert not arms["cuset"]["differences"]["test"]["pass_rate"]["improved"]


H100_ARMS = Path(__file__).resolve().parents[3] / "docs" / "rl-demo" / "arms-h100-2026-12-05"


def test_the_four_h100_arms_merge_as_one_sft_model_with_their_recorded_differences():
    """The four H100 calls of 2026-12-05, one arm each from one cached model: the merged report
    compares them (one SFT model, one GPU) and keeps each call's recorded intervals."""
    names = ("full", "no_primeecho", "no_bdr", "no_mirrorpop")
    files = [H100_ARMS / f"{name}.json" for name in names]
    merged = merge.merge(files)
    assert merged["one_sft_model"]
    ran = {name: record for name, record in merged["arms"].items() if "differences" in record}
    assert sorted(ran) == sorted(names)
    for name, path in zip(names, files, strict=True):
        recorded = json.loads(path.read_text())["arms"][name]
        assert recorded["steps"] == ran[name]["steps"] == 10
        assert ran[name]["differences"]["test"] == recorded["differences"]["test"]


def test_merge_says_whether_every_call_started_from_one_sft_model(tmp_path):
    entry = ("0123456789abcdef", "2026-12-03T10:00:00+00:00")
    first = run_file(tmp_path / "a.json", {"full": arm(BEFORE, AFTER)}, sft=sft_record(*entry, reused=False))
    second = run_file(
        tmp_path / "b.json", {"no_bdr": arm(BEFORE, AFTER)}, sft=sft_record(*entry, reused=True)
    )
    out = tmp_path / "merged"
    results = cli.main(["--merge", str(first), str(second), "--out", str(out)])
    assert results["one_sft_model"] is True
    assert [c["sft"]["cache"]["reused"] for c in results["calls"]] == [False, True]
    md = (out / "rl_demo.md").read_text()
    assert (
        "- call 1: trained in the call, stored as cache entry 0123456789abcdef (created 2026-12-03T10:00"
        in md
    )
    assert (
        "- call 2: cache entry 0123456789abcdef (created 2026-12-03T10:00:00+00:00), reused; gate passed"
        in md
    )
    assert "All calls started from one SFT model (cache entry 0123456789abcdef" in md

    # the same key written twice (the first entry was replaced): two models
    again = run_file(
        tmp_path / "c.json",
        {"no_bdr": arm(BEFORE, AFTER)},
        sft=sft_record(entry[0], "2026-12-04", reused=False),
    )
    uncached = run_file(
        tmp_path / "d.json", {"no_bdr": arm(BEFORE, AFTER)}, sft=sft_record(None, None, False)
    )
    old = run_file(tmp_path / "e.json", {"no_bdr": arm(BEFORE, AFTER)})  # from before the cache
    for other in (again, uncached, old):
        merged = merge.merge([first, other])
        assert merged["one_sft_model"] is False
        assert "Not one SFT model" in report.tables(merged)
    assert merge.merge([uncached])["one_sft_model"] is True
    assert "trained in the call (no gate or cache recorded)" in report.tables(merge.merge([first, old]))


def test_merge_compares_calls_on_fresh_machines_whose_models_have_one_digest(tmp_path):
    """Two cache entries (two machines), one weights digest: reproducible training made one model, and
    the report says so; another digest is another model."""
    a = {**sft_record("aaaaaaaaaaaaaaaa", "2026-12-05T10:00:00+00:00", reused=False), "weights": "0f0f"}
    b = {**sft_record("aaaaaaaaaaaaaaaa", "2026-12-06T10:00:00+00:00", reused=False), "weights": "0f0f"}
    first = run_file(tmp_path / "a.json", {"full": arm(BEFORE, AFTER)}, sft=a)
    second = run_file(tmp_path / "b.json", {"no_bdr": arm(BEFORE, AFTER)}, sft=b)
    merged = merge.merge([first, second])
    assert merged["one_sft_model"] is True
    md = report.tables(merged)
    assert "All calls started from one SFT model (weights 0f0f in every call, trained alike)" in md
    assert "training seed 0, RL pass 75%; weights 0f0f" in md
    other = run_file(tmp_path / "c.json", {"no_bdr": arm(BEFORE, AFTER)}, sft={**b, "weights": "1e1e"})
    assert merge.merge([first, other])["one_sft_model"] is False
    unrecorded = run_file(tmp_path / "d.json", {"no_bdr": arm(BEFORE, AFTER)}, sft={**b, "weights": None})
    assert merge.merge([first, unrecorded])["one_sft_model"] is False
