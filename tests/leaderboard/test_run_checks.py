"""leaderboard.run_checks: a sound run is accepted; each refusal names its exact problem."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from leaderboard_fakes import SUITE_VERSION, default_verdicts, make_verdict

from leaderboard.run_checks import ValidationError, check_summary, read_broken, validate_run_dir
from leaderboard.submission import CPU_RUN, PARTIAL


def refused(path, registry, **kw) -> str:
    with pytest.raises(ValidationError) as e:
        validate_run_dir(path, registry, **kw)
    return str(e.value)


def edit_json(path, fn):
    d = json.loads(path.read_text())
    fn(d)
    path.write_text(json.dumps(d))


def test_sound_gpu_run_is_accepted(make_run, registry):
    ok = validate_run_dir(make_run(), registry)
    assert len(ok.verdicts) == 6
    assert ok.tasks == ["level1/relu", "level1/row_sum", "level2/gemm_bias"]
    assert ok.labels == []
    assert ok.suite.version == SUITE_VERSION


def test_cpu_run_may_leave_gpu_and_driver_null_and_is_labelled(make_run, registry):
    ok = validate_run_dir(make_run(device="cpu", verdicts=default_verdicts(device="cpu")), registry)
    assert ok.labels == [CPU_RUN]


def test_missing_directory(tmp_path, registry):
    assert "no such folder" in refused(tmp_path / "nope", registry)


@pytest.mark.parametrize(
    "field", ["command", "model", "sampling", "suite_version", "tasks", "environment", "strict"]
)
def test_missing_run_json_field(make_run, registry, field):
    path = make_run()
    edit_json(path / "run.json", lambda d: d.pop(field))
    assert f"run.json: field '{field}' is missing" in refused(path, registry)


def test_run_json_field_of_wrong_type(make_run, registry):
    path = make_run()
    edit_json(path / "run.json", lambda d: d.update(tasks="level1/relu"))
    assert "run.json: field 'tasks' must be a list, not str" in refused(path, registry)


def test_run_json_invalid_values(make_run, registry):
    path = make_run()
    edit_json(path / "run.json", lambda d: (d["sampling"].update(samples=0), d.update(baseline="inductor")))
    msg = refused(path, registry)
    assert "sampling.samples must be a positive integer, not 0" in msg
    assert "baseline must be 'eager' or 'compile', not 'inductor'" in msg


def test_run_json_not_json(make_run, registry):
    path = make_run()
    (path / "run.json").write_text("{not json")
    assert "run.json is not valid JSON" in refused(path, registry)


def test_missing_summary(make_run, registry):
    path = make_run()
    (path / "summary.json").unlink()
    assert "summary.json is missing" in refused(path, registry)


# ids avoid the bare word "gpu", which the root conftest reads as the gpu marker
@pytest.mark.parametrize("field", ["gpu", "driver", "cuda", "torch"], ids=lambda f: f"env_{f}")
def test_environment_field_missing(make_run, registry, field):
    path = make_run()
    edit_json(path / "run.json", lambda d: d["environment"].pop(field))
    assert f"run.json: environment.{field} is missing" in refused(path, registry)


@pytest.mark.parametrize("field", ["gpu", "driver", "cuda"], ids=lambda f: f"env_{f}")
def test_gpu_run_must_record_hardware(make_run, registry, field):
    path = make_run()
    edit_json(path / "run.json", lambda d: d["environment"].update({field: None}))
    msg = refused(path, registry)
    assert f"environment.{field} must be recorded, got None (only a cpu run may leave it null)" in msg


def test_cpu_run_must_still_record_torch(make_run, registry):
    path = make_run(device="cpu", verdicts=default_verdicts(device="cpu"))
    edit_json(path / "run.json", lambda d: d["environment"].update(torch=None))
    assert "environment.torch must be recorded, got None" in refused(path, registry)


def test_truncated_results_line_names_its_number(make_run, registry):
    path = make_run()
    lines = (path / "results.jsonl").read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert "results.jsonl line 3: not valid JSON" in refused(path, registry)


def test_results_record_with_unknown_verdict(make_run, registry):
    path = make_run()
    lines = (path / "results.jsonl").read_text().splitlines()
    rec = json.loads(lines[1])
    rec["verdict"] = "passed"
    lines[1] = json.dumps(rec)
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert "results.jsonl line 2: 'passed' is not a valid Status" in refused(path, registry)


def test_results_record_missing_field(make_run, registry):
    path = make_run()
    lines = (path / "results.jsonl").read_text().splitlines()
    rec = json.loads(lines[4])
    del rec["task_id"]
    lines[4] = json.dumps(rec)
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert "results.jsonl line 5: missing field(s) task_id" in refused(path, registry)


def test_results_record_with_unknown_field(make_run, registry):
    path = make_run()
    lines = (path / "results.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["bonus"] = 1
    lines[0] = json.dumps(rec)
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert "results.jsonl line 1: not a verdict record" in refused(path, registry)


def test_results_record_of_another_model_or_task(make_run, registry):
    verdicts = default_verdicts()
    verdicts[3] = make_verdict("level1/row_sum", 1, model="other")
    verdicts.append(make_verdict("level1/relu", 0, model="m", turn=1))
    msg = refused(make_run(verdicts), registry)
    assert "results.jsonl line 4: model 'other' differs from run.json's 'm'" in msg
    assert "results.jsonl line 7: level1/relu sample 0 turn 1 repeats line 1" in msg


def test_sample_index_beyond_claimed(make_run, registry):
    verdicts = default_verdicts() + [make_verdict("level1/relu", 5)]
    assert "line 7: sample 5 is outside 0..1" in refused(make_run(verdicts), registry)


def test_unknown_suite_version(make_run, registry):
    path = make_run(suite_version="0123456789abcdef")
    msg = refused(path, registry)
    assert "unknown suite version '0123456789abcdef'" in msg
    assert SUITE_VERSION in msg  # the known ones are listed


def test_task_not_in_suite(make_run, registry):
    path = make_run(tasks=[*default_tasks(), "level1/ghost"])
    assert "run.json: task 'level1/ghost' is not in suite version" in refused(path, registry)


def default_tasks():
    return ["level1/relu", "level1/row_sum", "level2/gemm_bias"]


def test_task_file_changed_since_suite_version(make_run, registry):
    verdicts = default_verdicts()
    verdicts[0] = make_verdict("level1/relu", 0, task_hash="ab" * 32)
    assert "level1/relu sample 0 was evaluated on a different task file" in refused(
        make_run(verdicts), registry
    )


def test_verdicts_of_the_run_gpu_torch_and_mode_are_accepted(make_run, registry):
    env = {"gpu": "NVIDIA H200", "torch": "2.11.0", "device": "cuda:0"}
    verdicts = [replace(v, env=env) for v in default_verdicts()]
    assert validate_run_dir(make_run(verdicts), registry)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"env": {"gpu": "NVIDIA A100-SXM4-80GB"}},
            "have gpu 'NVIDIA A100-SXM4-80GB', run.json records 'NVIDIA H200'",
        ),
        ({"env": {"torch": "2.12.0"}}, "have torch '2.12.0', run.json records '2.11.0'"),
        ({"strict": False}, "have strict False, run.json records True"),
    ],
    ids=["gpu", "torch", "strict"],
)
def test_verdicts_mixing_gpus_torch_or_modes_are_refused(make_run, registry, change, message):
    """A run resumed on another machine: the later half of its verdicts differ from run.json."""
    verdicts = default_verdicts()
    verdicts[3:] = [replace(v, **change) for v in verdicts[3:]]
    msg = refused(make_run(verdicts), registry)
    assert f"results.jsonl: 3 verdict(s) (line 4, 5, 6) {message}" in msg


def test_task_of_claimed_level_missing(make_run, registry):
    verdicts = [v for v in default_verdicts() if v.task_id != "level1/row_sum"]
    path = make_run(verdicts, tasks=["level1/relu", "level2/gemm_bias"])
    msg = refused(path, registry)
    assert "task level1/row_sum of claimed level 1 is missing: the run did not select it" in msg
    assert "submit it with --partial" in msg.splitlines()[1], "the way out leads the list"


def test_a_run_with_no_result_missing_names_no_partial(make_run, registry):
    verdicts = [v for v in default_verdicts() if v.task_id != "level2/gemm_bias"]
    assert "--partial" not in refused(make_run(verdicts), registry)


def test_selected_task_without_results(make_run, registry):
    verdicts = [v for v in default_verdicts() if v.task_id != "level2/gemm_bias"]
    msg = refused(make_run(verdicts), registry)
    assert "task level2/gemm_bias of claimed level 2 is missing: it has no results" in msg


def test_task_skipped_on_the_runs_device_is_named_as_skipped(make_run, registry):
    verdicts = [v for v in default_verdicts() if v.task_id != "level1/row_sum"]
    path = make_run(verdicts, tasks=["level1/relu", "level2/gemm_bias"])
    reason = "requires FP8 tensor cores (compute capability 8.9 or newer); NVIDIA A100 is 8.0"
    edit_json(
        path / "summary.json",
        lambda d: d.update(skipped_tasks={"level1/row_sum": {"level": 1, "reason": reason}}),
    )
    assert (
        f"task level1/row_sum of claimed level 1 is missing: the run's device cannot run it ({reason}); "
        "run the level on a GPU that can"
    ) in refused(path, registry)


def test_task_with_fewer_samples_than_claimed(make_run, registry):
    verdicts = [v for v in default_verdicts() if not (v.task_id == "level1/relu" and v.sample == 1)]
    msg = refused(make_run(verdicts), registry)
    assert "task level1/relu has 1 sample(s), run.json claims 2 (sampling.samples)" in msg


def test_partial_submission_covers_only_selected_tasks(make_run, registry):
    verdicts = [v for v in default_verdicts() if v.task_id == "level1/relu"]
    path = make_run(verdicts, tasks=["level1/relu"])
    assert "claimed level 1 is missing" in refused(path, registry)
    ok = validate_run_dir(path, registry, partial=True)
    assert ok.tasks == ["level1/relu"] and ok.labels == [PARTIAL]


def test_partial_flag_on_a_complete_run_adds_no_label(make_run, registry):
    assert validate_run_dir(make_run(), registry, partial=True).labels == []


def test_non_strict_run_is_refused_unless_reference(make_run, registry):
    lax = [replace(v, strict=False) for v in default_verdicts()]
    assert "strict is false" in refused(make_run(lax, strict=False), registry)
    verdicts = [replace(v, strict=False) for v in default_verdicts(model="reference")]
    assert validate_run_dir(make_run(verdicts, model="reference", strict=False), registry)


# Metric recomputation: the summary the runner writes is accepted; any tampered number is caught.


@pytest.mark.parametrize("scope", ["overall", "level1", "level2"])
@pytest.mark.parametrize(
    "path",
    [
        ("avg_at_k",),
        ("pass_at_k", "1"),
        ("pass_at_k", "2"),
        ("fast_p", "1.0"),
        ("faster_rate",),
        ("geomean_speedup",),
        ("mean_sol_fraction",),
        ("samples",),
    ],
    ids=lambda p: ".".join(p),
)
def test_summary_disagreeing_with_recomputed_metrics(make_run, registry, scope, path):
    run = make_run()

    def tamper(d):
        node = d["metrics"][scope]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = node[path[-1]] * 1.01 + 0.01

    edit_json(run / "summary.json", tamper)
    msg = refused(run, registry)
    assert f"summary.json disagrees with the results: metrics.{scope}.{'.'.join(path)} is" in msg
    assert "recomputed" in msg


@pytest.mark.parametrize("key", ["avg_at_k_ci", "geomean_speedup_ci", "faster_rate_ci"])
def test_summary_with_a_tampered_interval(make_run, registry, key):
    run = make_run()
    edit_json(run / "summary.json", lambda d: d["metrics"]["overall"][key].__setitem__(0, 0.01))
    assert f"metrics.overall.{key} is [0.01," in refused(run, registry)


def legacy_summary(d):
    """summary.json as a runner before the metrics rules wrote it: no intervals, no rules, and a
    fast_1 and Faster Rate of the old strict `speedup > p` (here: every correct sample faster)."""
    del d["metrics_rules"]
    for m in d["metrics"].values():
        for key in [k for k in m if k.endswith("_ci")]:
            del m[key]
        m["fast_p"]["1.0"] = m["faster_rate"] = m["fast_p"]["0.0"]


def test_summary_of_older_rules_is_checked_on_what_they_share(make_run, registry):
    run = make_run()
    edit_json(run / "summary.json", legacy_summary)
    assert validate_run_dir(run, registry)
    edit_json(run / "summary.json", lambda d: d["metrics"]["overall"].update(avg_at_k=0.99))
    assert "metrics.overall.avg_at_k is 0.99 in summary.json" in refused(run, registry)


def test_summary_missing_a_level(make_run, registry):
    run = make_run()
    edit_json(run / "summary.json", lambda d: d["metrics"].pop("level2"))
    assert "metrics.level2 is absent from summary.json" in refused(run, registry)


def test_summary_with_wrong_status_counts(make_run, registry):
    run = make_run()
    edit_json(run / "summary.json", lambda d: d["statuses"].update(incorrect=0))
    assert "statuses are" in refused(run, registry)


def test_summary_recomputed_with_its_own_ks(make_run, registry):
    """A run that reported Pass@1 only is checked at k = 1 only, and still accepted."""
    run = make_run()
    edit_json(
        run / "summary.json",
        lambda d: [(m["pass_at_k"].pop("2"), m["pass_at_k_ci"].pop("2")) for m in d["metrics"].values()],
    )
    assert validate_run_dir(run, registry)


def test_summary_of_another_model(make_run, registry):
    run = make_run()
    edit_json(run / "summary.json", lambda d: d.update(model="other"))
    assert "summary.json: model 'other' differs from run.json's 'm'" in refused(run, registry)


def test_resumed_run_is_judged_by_run_json_suite_version(make_run, registry):
    """A resume stamps summary.json with the suite of that day; the verdicts' task hashes decide."""
    run = make_run()
    edit_json(run / "summary.json", lambda d: d.update(suite_version="0000000000000000"))
    assert validate_run_dir(run, registry).suite.version == SUITE_VERSION


# Broken tasks: counted by the recomputation as the runner counts them, and named by coverage.

GEMM_OOM = {
    "stage": "reference",
    "level": 2,
    "reason": "Traceback ...\ntorch.OutOfMemoryError: CUDA out of memory",
}


def without(task_id):
    return [v for v in default_verdicts() if v.task_id != task_id]


def test_broken_task_is_named_as_broken_not_as_a_metric_mismatch(make_run, registry):
    path = make_run(without("level2/gemm_bias"), broken={"level2/gemm_bias": GEMM_OOM})
    msg = refused(path, registry)
    assert (
        "task level2/gemm_bias of claimed level 2 is missing: it is broken in this run "
        "(reference failed: torch.OutOfMemoryError: CUDA out of memory)"
    ) in msg
    assert "disagrees" not in msg


def test_summary_recomputation_counts_broken_tasks_as_failed_samples(make_run):
    path = make_run(without("level2/gemm_bias"), broken={"level2/gemm_bias": GEMM_OOM})
    run, summary = (json.loads((path / name).read_text()) for name in ("run.json", "summary.json"))
    verdicts = without("level2/gemm_bias")
    assert summary["metrics"]["overall"]["tasks"] == 3 and summary["metrics"]["level2"]["samples"] == 2
    assert check_summary(summary, run, verdicts) == []
    summary["broken_tasks"] = {}  # the same metrics without the broken task listed no longer add up
    assert any(
        "metrics.overall.tasks is 3 in summary.json, 2 recomputed" in p
        for p in check_summary(summary, run, verdicts)
    )


def test_old_string_form_is_read_as_not_counted(make_run):
    """Runners before the {"stage", ...} form listed a reason string and left the task out of the metrics."""
    path = make_run(without("level2/gemm_bias"))
    run, summary = (json.loads((path / name).read_text()) for name in ("run.json", "summary.json"))
    summary["broken_tasks"] = {"level2/gemm_bias": "reference raised: CUDA out of memory"}
    assert check_summary(summary, run, without("level2/gemm_bias")) == []
    assert read_broken(summary)[0]["level2/gemm_bias"].counted is False


def test_broken_task_outside_the_run_selection_is_refused(make_run, registry):
    verdicts = without("level2/gemm_bias")
    path = make_run(verdicts, tasks=["level1/relu", "level1/row_sum"], broken={"level2/gemm_bias": GEMM_OOM})
    msg = refused(path, registry, partial=True)
    assert "summary.json: broken task(s) level2/gemm_bias are not among run.json's tasks" in msg


def test_task_file_that_did_not_load_is_counted_but_not_in_run_json(make_run, registry):
    """The runner lists loaded tasks only in run.json; a file outside the suite version that failed to
    load is counted in summary.json and does not stop the submission."""
    unreadable = {"stage": "load", "level": 1, "reason": "level1/broken.py: SyntaxError: invalid syntax"}
    path = make_run(broken={"level1/broken": unreadable})
    assert json.loads((path / "summary.json").read_text())["metrics"]["level1"]["tasks"] == 3
    assert validate_run_dir(path, registry).tasks == default_tasks()


@pytest.mark.parametrize(
    "entry, problem",
    [
        (
            {"stage": "compile", "level": 1, "reason": "x"},
            ": stage must be one of load, reference, not 'compile'",
        ),
        ({"stage": "load", "level": "1", "reason": "x"}, ": level must be an integer or null, not '1'"),
        (["load"], " must be an object with stage, level and reason"),
    ],
)
def test_malformed_broken_entry_is_refused(make_run, registry, entry, problem):
    path = make_run()
    edit_json(path / "summary.json", lambda d: d.update(broken_tasks={"level1/relu": entry}))
    assert f"summary.json: broken_tasks['level1/relu']{problem}" in refused(path, registry)


def test_run_json_timing_must_be_a_bool(make_run, registry):
    assert "run.json: timing must be true or false, not 'yes'" in refused(make_run(timing="yes"), registry)
    assert validate_run_dir(make_run(timing=False), registry)


def test_untimed_run_is_accepted_with_its_speed_metrics_unmeasured(make_run, registry):
    verdicts = [make_verdict(v.task_id, v.sample, v.status, speedup=None) for v in default_verdicts()]
    path = make_run(verdicts, timing=False)
    overall = json.loads((path / "summary.json").read_text())["metrics"]["overall"]
    assert overall["fast_p"]["1.0"] is None and overall["faster_rate"] is None
    assert validate_run_dir(path, registry)
    edit_json(path / "summary.json", lambda d: d["metrics"]["overall"]["fast_p"].update({"1.0": 0.0}))
    assert "metrics.overall.fast_p.1.0 is 0.0 in summary.json, None recomputed" in refused(path, registry)
