"""scripts/kernelbench_eval.py without a GPU and without KernelBench's files (never in this repository):
a stand-in checkout whose package imports an LLM client that is not installed, as KernelBench's does,
and whose evaluator records what it was called with. Checked: a fresh process per sample, the
placeholder client, their call's arguments (eval_from_generations.py's defaults), a build folder per
sample that the cached mode reuses, their outcome read as our verdicts, and `fetch` from a mirror."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import kernelbench_eval as ke
import pytest


def test_run_through_a_stand_in_evaluator(kernelbench_stand_in, tmp_path):
    out = tmp_path / "out"
    assert (
        ke.main(
            [
                "run",
                "--kernelbench",
                str(kernelbench_stand_in),
                "--mix",
                "b",
                "--variant",
                "t1",
                "--count",
                "2",
                "--concurrency",
                "2",
                "--device",
                "cpu",
                "--tiny",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    report = json.loads((out / "kernelbench.json").read_text())
    cold, cached = report["modes"]["cold"]["samples"], report["modes"]["cached"]["samples"]
    assert report["kernelbench_commit"] == "0123456789abcdef" and report["modes"]["cold"]["concurrency"] == 2
    assert (
        sorted(s["name"] for s in cold) == sorted(s["name"] for s in cached) == ["cpp_correct", "cpp_wrong"]
    )
    for s in cold + cached:
        assert s["verdict"] == s["expected"], s  # pass and incorrect, read from compiled/correctness
        assert s["placeholders"] == "litellm" and s["wall_s"] > 0 and s["import_s"] is not None
        assert (s["runtime"], s["ref_runtime"]) == (12.5, 25.0)
    by_name = {s["name"]: s["build_dir"] for s in cold}
    assert len(set(by_name.values())) == 2 and all(by_name[s["name"]] == s["build_dir"] for s in cached)
    work = Path(report["work"])
    calls = [
        json.loads((work / f"{s['mode']}-{s['name']}.result.json").read_text())["result"]["metadata"]
        for s in cold + cached
    ]
    assert [c["cached"] for c in calls] == [False, False, True, True]
    assert len({c["pid"] for c in calls}) == 4  # a fresh process per sample
    args = calls[0]["called_with"]
    assert (args["num_correct_trials"], args["num_perf_trials"], args["timing_method"]) == (
        "5",
        "100",
        "cuda_event",
    )
    assert args["measure_performance"] == "True" and args["backend"] == "cuda" and calls[0]["task_has_model"]


def test_their_outcome_in_our_words():
    assert ke.their_verdict(None, "RuntimeError: CUDA error") == ("runtime_error", "RuntimeError: CUDA error")
    assert ke.their_verdict(None, None)[0] == "no_result"
    assert ke.their_verdict({"compiled": False, "metadata": {"compilation_error": "nvcc"}}, None) == (
        "compile_error",
        "nvcc",
    )
    assert (
        ke.their_verdict({"compiled": True, "correctness": False, "metadata": {"runtime_error": "x"}}, None)[
            0
        ]
        == "runtime_error"
    )
    assert ke.their_verdict({"compiled": True, "correctness": False, "metadata": {}}, None)[0] == "incorrect"
    assert ke.their_verdict({"compiled": True, "correctness": True, "metadata": {}}, None) == ("pass", "")


def test_fetch_writes_the_files_unchanged_from_a_mirror(kernelbench_stand_in, tmp_path):
    repo = tmp_path / "upstream"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    texts = {rel: (kernelbench_stand_in / rel).read_text() + "# upstream\n" for rel in ke.EVALUATOR_FILES}
    for rel, text in texts.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    into = tmp_path / "kb"
    (into / "COMMIT").write_text(commit + "\n")
    assert ke.fetch(repo / ".git", into) == list(ke.EVALUATOR_FILES)
    assert all((into / rel).read_text() == text for rel, text in texts.items())
    fresh = tmp_path / "fresh"  # no COMMIT yet: the one asked for, written out in full
    assert ke.fetch(repo / ".git", fresh, commit[:7]) == list(ke.EVALUATOR_FILES)
    assert (fresh / "COMMIT").read_text().strip() == commit
    with pytest.raises(SystemExit, match="has no commit 0000000"):
        ke.fetch(repo / ".git", tmp_path / "other", "0000000")
