"""leaderboard.submit: a valid run becomes a submission file carrying its passing candidates' code."""

from __future__ import annotations

import json

import pytest
from leaderboard_fakes import default_verdicts, make_verdict

from benchmark import metrics
from benchmark.host import source_path
from benchmark.task import sha256_text
from leaderboard import submit as submit_mod
from leaderboard.run_checks import ValidationError
from leaderboard.submission import NO_CODE, load_submission
from leaderboard.submit import slugify, submit

RELU = "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x.clamp_min(0)\n"


def fill_cache(cache, verdicts):
    """Put each passing sample's source where the harness would have (benchmark.host.source_path)."""
    for v in verdicts:
        if v.correct:
            source_path(v.code_hash, cache).parent.mkdir(parents=True, exist_ok=True)
            source_path(v.code_hash, cache).write_text(f"{v.task_id}:{v.sample}:{v.model}")


def test_submit_writes_a_loadable_file_with_code(make_run, registry, tmp_path):
    verdicts = default_verdicts()
    fill_cache(tmp_path / "cache", verdicts)
    path = submit(
        make_run(verdicts),
        "My Model 7B",
        out_dir=tmp_path / "subs",
        org="Lab",
        notes="T=0.7",
        labels=("beta",),
        cache_dir=tmp_path / "cache",
        registry=registry,
    )
    assert path == tmp_path / "subs" / "my-model-7b.json"
    sub = load_submission(path)
    assert (sub.name, sub.org, sub.notes, sub.labels) == ("My Model 7B", "Lab", "T=0.7", ["beta"])
    assert len(sub.verdicts) == 6 and sub.verdicts == verdicts
    passing = {v.code_hash for v in metrics.final_turns(verdicts) if v.correct}
    assert set(sub.code) == passing and len(passing) == 5
    assert sub.tasks["level2/gemm_bias"] == {"level": 2, "tags": ["gemm", "fusion"]}
    assert sub.run["suite_version"] == registry.versions.popitem()[0]


def test_submit_refuses_when_candidate_code_is_not_in_the_cache(make_run, registry, tmp_path):
    verdicts = default_verdicts()
    fill_cache(tmp_path / "cache", verdicts[1:])  # the first sample's source is missing
    with pytest.raises(ValidationError) as e:
        submit(
            make_run(verdicts),
            "m",
            out_dir=tmp_path / "subs",
            cache_dir=tmp_path / "cache",
            registry=registry,
        )
    assert "candidate code of level1/relu sample 0 is neither in completions.jsonl nor in the cache" in str(
        e.value
    )
    assert "--cache-dir" in str(e.value) and "--without-code" in str(e.value)


def test_submit_refuses_a_cached_source_with_another_hash(make_run, registry, tmp_path):
    verdicts = default_verdicts()
    fill_cache(tmp_path / "cache", verdicts)
    source_path(verdicts[0].code_hash, tmp_path / "cache").write_text("edited")
    with pytest.raises(ValidationError, match="does not hash to the code_hash of level1/relu sample 0"):
        submit(
            make_run(verdicts),
            "m",
            out_dir=tmp_path / "subs",
            cache_dir=tmp_path / "cache",
            registry=registry,
        )


def test_submit_without_code_is_labelled(make_run, registry, tmp_path):
    path = submit(make_run(), "m", out_dir=tmp_path / "subs", include_code=False, registry=registry)
    sub = load_submission(path)
    assert sub.code == {} and NO_CODE in sub.labels


def test_submit_does_not_overwrite_unless_asked(make_run, registry, tmp_path):
    run = make_run()
    submit(run, "m", out_dir=tmp_path / "subs", include_code=False, registry=registry)
    with pytest.raises(FileExistsError, match="--replace"):
        submit(run, "m", out_dir=tmp_path / "subs", include_code=False, registry=registry)
    submit(run, "m", out_dir=tmp_path / "subs", include_code=False, registry=registry, replace=True)


def test_slugify():
    assert slugify("Qwen3.6-27B  RL (ours)") == "qwen3-6-27b-rl-ours"
    with pytest.raises(ValueError, match="no letters or digits"):
        slugify("!!!")


def test_cli_reports_refusal_and_success(make_run, registry, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(submit_mod.SuiteRegistry, "load", classmethod(lambda cls, *a, **k: registry))
    bad = make_run(suite_version="0000000000000000")
    assert submit_mod.main([str(bad), "--name", "x", "--out", str(tmp_path / "subs"), "--without-code"]) == 2
    assert "unknown suite version '0000000000000000'" in capsys.readouterr().err
    good = make_run()
    assert (
        submit_mod.main(
            [
                str(good),
                "--name",
                "x",
                "--out",
                str(tmp_path / "subs"),
                "--without-code",
                "--label",
                "example",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "submission written" in out
    assert f"python -m leaderboard.build --submissions {tmp_path / 'subs'}" in out, "the board of that folder"
    assert load_submission(tmp_path / "subs" / "x.json").labels == ["example", NO_CODE]


def test_code_comes_from_the_run_directorys_completions(make_run, registry, tmp_path):
    """A run directory with completions.jsonl needs no cache: code is extracted and checked by hash."""
    verdicts = [
        make_verdict("level1/relu", 0, code_hash=sha256_text(RELU)),
        make_verdict("level1/relu", 1, code_hash=sha256_text(RELU)),
    ]
    verdicts += [v for v in default_verdicts() if v.task_id != "level1/relu"]
    run = make_run(verdicts)
    fill_cache(tmp_path / "cache", verdicts[2:])
    records = [
        {"task_id": "level1/relu", "sample": s, "turn": 1, "text": f"Here it is:\n```python\n{RELU}```\n"}
        for s in (0, 1)
    ]
    (run / "completions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records) + "{damaged\n")
    sub = load_submission(
        submit(run, "m", out_dir=tmp_path / "subs", cache_dir=tmp_path / "cache", registry=registry)
    )
    assert sub.code[sha256_text(RELU)] == RELU and len(sub.code) == 4
