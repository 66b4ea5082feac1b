"""leaderboard.verify: re-running stored candidates confirms honest entries and records disagreements."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from leaderboard_fakes import default_verdicts, make_submission, make_verdict

from benchmark.evaluate.harness import EvalConfig, evaluate
from benchmark.evaluate.timing import TimingConfig
from benchmark.suite import load_suite
from benchmark.verdict import Status
from leaderboard import verify as verify_mod
from leaderboard.submission import load_submission
from leaderboard.verify import VerifyConfig, VerifyError, choose, compare, verify

SUITE = Path(__file__).parent / "data" / "suite"
FAST_TIMING = TimingConfig(
    warmup_calls=1, warmup_seconds=0.0, min_runs=3, min_seconds=0.0, max_runs=20, max_seconds=0.2
)


def test_choose_draws_passing_samples_with_code_reproducibly(three_submissions):
    sub = three_submissions[0]
    first = choose(sub, 3, seed=1)
    assert len(first) == 3 and all(v.correct and v.code_hash in sub.code for v in first)
    assert choose(sub, 3, seed=1) == first
    assert len(choose(sub, 50, seed=0)) == 5  # all passing samples, no more


def test_choose_refuses_a_submission_without_code(three_submissions):
    sub = dataclasses.replace(three_submissions[0], code={})
    with pytest.raises(VerifyError, match="no passing sample with stored code"):
        choose(sub, 2, seed=0)


def test_compare_rules():
    claimed = make_verdict("level1/relu", speedup=2.0)
    assert compare(claimed, make_verdict("level1/relu", speedup=1.7), True, 0.25) == (True, "")
    ok, why = compare(claimed, make_verdict("level1/relu", speedup=1.2), True, 0.25)
    assert not ok and "speedup 1.20x on re-run, claimed 2.00x" in why
    assert compare(claimed, make_verdict("level1/relu", speedup=1.2), False, 0.25)[0]  # other hardware
    ok, why = compare(claimed, make_verdict("level1/relu", status=Status.INCORRECT), True, 0.25)
    assert not ok and "incorrect on re-run" in why


def test_device_kind_must_match(three_submissions):
    with pytest.raises(VerifyError, match="was run on cuda; verify it on a cuda device"):
        verify(three_submissions[0], VerifyConfig(device="cpu", suite=str(SUITE)), progress=False)


def test_changed_or_missing_tasks_are_refused_before_running():
    sub = make_submission("m", default_verdicts(device="cpu"), device="cpu")
    with pytest.raises(VerifyError, match="not in the local suite"):
        verify(sub, VerifyConfig(device="cpu", suite=str(SUITE)), progress=False)
    changed = dataclasses.replace(sub.verdicts[0], task_id="level1/scale_shift", task_hash="00" * 32)
    sub = make_submission("m", [changed], device="cpu")
    with pytest.raises(VerifyError, match="task level1/scale_shift changed since the run"):
        verify(sub, VerifyConfig(device="cpu", suite=str(SUITE)), progress=False)


# End to end: one real candidate evaluated on the CPU, submitted, then re-run by verify.


@pytest.fixture(scope="module")
def honest_verdict(build_cache):
    task = load_suite(SUITE).tasks[0]
    cfg = EvalConfig(
        device="cpu", trials=2, strict=False, timing=FAST_TIMING, cache_dir=build_cache, timeout_s=120
    )
    verdict = evaluate(task, reference_code(), cfg, model="reference")
    assert verdict.correct, verdict.error
    return verdict


def reference_submission(tmp_path, verdict, **verdict_changes):
    verdict = dataclasses.replace(verdict, **verdict_changes)
    sub = make_submission("Reference", [verdict], samples=1, device="cpu")
    sub.run.update(model="reference", strict=False)
    sub.tasks = {verdict.task_id: {"level": 1, "tags": ["elementwise"]}}
    sub.code = {verdict.code_hash: reference_code()}
    sub.save(tmp_path / "reference.json")
    return sub


def reference_code() -> str:
    return load_suite(SUITE).tasks[0].source + "\n\nModelNew = Model\n"


def fast_config(cache: Path, **kw) -> VerifyConfig:
    return VerifyConfig(
        sample=3,
        device="cpu",
        suite=str(SUITE),
        trials=2,
        timing=FAST_TIMING,
        cache_dir=cache,
        timeout_s=120,
        **kw,
    )


@pytest.mark.slow
def test_honest_submission_is_verified_and_recorded(tmp_path, build_cache, honest_verdict):
    sub = reference_submission(tmp_path, honest_verdict, speedup=1.0)
    record = verify(sub, fast_config(build_cache, speedup_tolerance=10.0), progress=False)
    assert record["verified"] and record["timing_compared"] and len(record["checked"]) == 1
    assert record["checked"][0]["status"] == "pass"
    sub.save()
    assert load_submission(tmp_path / "reference.json").verified is True


@pytest.mark.slow
def test_disagreements_are_recorded_by_the_cli(tmp_path, build_cache, honest_verdict, monkeypatch, capsys):
    sub = reference_submission(tmp_path, honest_verdict, speedup=50.0)
    # the stored code is swapped for a wrong kernel: the re-run must fail it
    wrong = sub.code[sub.verdicts[0].code_hash].replace("x * 2.0 + 1.0", "x * 3.0 + 1.0")
    sub.code[sub.verdicts[0].code_hash] = wrong
    sub.save()
    monkeypatch.setattr(
        verify_mod,
        "VerifyConfig",
        lambda **kw: fast_config(
            build_cache, **{k: v for k, v in kw.items() if k in ("seed", "speedup_tolerance")}
        ),
    )
    assert verify_mod.main([str(tmp_path / "reference.json"), "--sample", "1", "--device", "cpu"]) == 1
    out = capsys.readouterr().out
    assert "0/1 samples agree; disagreements recorded" in out and "incorrect on re-run" in out
    saved = load_submission(tmp_path / "reference.json")
    assert saved.verified is False and saved.verification[-1]["checked"][0]["status"] == "incorrect"


@pytest.mark.slow
def test_inflated_speedup_disagrees_on_the_same_hardware(tmp_path, build_cache, honest_verdict):
    sub = reference_submission(tmp_path, honest_verdict, speedup=50.0)
    record = verify(sub, fast_config(build_cache), progress=False)
    assert not record["verified"]
    assert "claimed 50.00x" in record["checked"][0]["reason"]
