"""experiments.rl_demo.cache: entries written whole, unusable entries named and trained afresh, and --sft-cache checked with real --tiny SFT on the CPU (the RL arms stubbed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from rl_demo_support import (
    stub_arms,
    tiny,
)

from experiments.rl_demo import (
    cli,
    evaluation,
    merge,
    records,
    sft_training,
)
from experiments.rl_demo.cache import SFTCache, write_sft_entry


def test_an_entry_is_written_whole_or_not_at_all(tmp_path):
    """The entry is built beside its place and renamed into it: a failure half-way (here the model
    folder is missing) leaves neither an entry nor a temporary folder."""
    run = records.SFTRun(tmp_path / "no-model", 6, 2.0, 1.0, None, 1.0, False)
    attempt = records.SFTAttempt(1, 0, run, {}, 1.0, 2.0)
    cache = tmp_path / "cache"
    with pytest.raises(FileNotFoundError):
        write_sft_entry(cache / "k", {}, attempt)
    assert list(cache.iterdir()) == []


def test_an_unusable_entry_says_what_is_wrong_with_it(tmp_path, caplog):
    base = {"version": 1, "settings": {"sft_steps": 6}, "corpus": "c", "tokenizer": "t", "tasks": "x"}
    store = SFTCache(tmp_path, base)
    folder, material = store.folder(seed=0)
    assert material == {**base, "seed": 0} and store.folder(seed=1)[0] != folder  # an entry per seed
    assert store.load(1, 0) is None and not caplog.text  # no entry: no warning
    folder.mkdir()
    whole = {"created": "t", "material": material, "run": {}, "before": {"rl": {}, "test": {}}, "eval_s": 1.0}
    cases = {
        "no entry.json": None,
        "JSONDecodeError": "{",
        "entry.json lacks before, wall_s": {k: v for k, v in whole.items() if k != "before"},
        "made with other seed, settings than this run's": {
            **whole,
            "wall_s": 2.0,
            "material": {**material, "settings": {"sft_steps": 5}, "seed": 1000},
        },
        "its before-RL evaluation covers ['rl'], not rl and test": {
            **whole,
            "wall_s": 2.0,
            "before": {"rl": {}},
        },
        "OSError": {**whole, "wall_s": 2.0},  # no model folder
    }
    for message, entry in cases.items():
        (folder / "entry.json").unlink(missing_ok=True)
        if entry is not None:
            (folder / "entry.json").write_text(entry if isinstance(entry, str) else json.dumps(entry))
        caplog.clear()
        assert store.load(1, 0) is None
        assert "ignored, training afresh" in caplog.text and message in caplog.text, message


@pytest.fixture(scope="module")
def first_call(tmp_path_factory):
    """One real --tiny call that trains SFT (6 steps on the CPU) and stores it in a fresh cache."""
    root = tmp_path_factory.mktemp("sft-cache")
    with pytest.MonkeyPatch.context() as monkeypatch:
        started_from = stub_arms(monkeypatch)
        results = cli.main(tiny(root / "first", root / "cache"))
    return SimpleNamespace(root=root, cache=root / "cache", results=results, started_from=started_from)


def copy_cache(first_call, tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    shutil.copytree(first_call.cache, cache)
    return cache


@pytest.mark.slow
def test_a_first_call_trains_once_and_stores_the_model_with_its_evaluation(first_call):
    sft = first_call.results["sft"]
    assert sft["gate"] == "passed" and sft["attempts_made"] == 1  # --sft-min-pass 0: never trains again
    assert len(first_call.results["sft_attempts"]) == 1
    cache = sft["cache"]
    assert cache["reused"] is False and cache["created"] and cache["not_written"] is None
    entry = first_call.cache / cache["key"]
    assert [p.name for p in first_call.cache.iterdir()] == [cache["key"]]  # no temporary folder left
    stored = json.loads((entry / "entry.json").read_text())
    assert stored["before"] == first_call.results["before"] and stored["created"] == cache["created"]
    attempt = first_call.results["sft_attempts"][0]
    assert (
        stored["run"]["weights"] == sft["weights"] == attempt["weights"]
        and stored["wall_s"] == attempt["wall_s"]
    )
    assert attempt["cache"] == cache
    assert (entry / "model" / "model.safetensors").is_file() and (
        entry / "model" / "tokenizer.json"
    ).is_file()
    assert first_call.started_from == [first_call.root / "first" / "sft"]


@pytest.mark.slow
def test_a_second_call_with_the_same_settings_reuses_the_model_and_its_evaluation(
    first_call, tmp_path, monkeypatch
):
    started_from = stub_arms(monkeypatch)

    def no_training(*args, **kwargs):
        raise AssertionError("a reused SFT model is not trained again")

    monkeypatch.setattr(sft_training, "train_sft", no_training)
    results = cli.main(tiny(tmp_path / "second", first_call.cache, "--arms", "no_bdr"))
    first = first_call.results
    key = first["sft"]["cache"]["key"]
    assert results["sft"]["cache"] == {**first["sft"]["cache"], "reused": True}
    assert results["before"] == first["before"]
    assert [{**a, "cache": None} for a in results["sft_attempts"]] == [
        {**a, "cache": None} for a in first["sft_attempts"]
    ]
    assert results["sft_attempts"][0]["cache"]["reused"] is True
    assert {k: v for k, v in results["sft"].items() if k != "cache"} == {
        k: v for k, v in first["sft"].items() if k != "cache"
    }
    assert "sft_s" not in results["timing"] and "sft_cache_load_s" in results["timing"]
    assert started_from == [first_call.cache / key / "model"]
    assert (
        f"SFT model: cache entry {key} (created {first['sft']['cache']['created']}), reused"
        in (tmp_path / "second" / "rl_demo.md").read_text()
    )
    merged = merge.merge([first_call.root / "first" / "rl_demo.json", tmp_path / "second" / "rl_demo.json"])
    assert merged["one_sft_model"] is True


@pytest.mark.slow
def test_a_changed_setting_misses_the_cache(first_call, tmp_path, monkeypatch):
    stub_arms(monkeypatch)
    cache = copy_cache(first_call, tmp_path)
    results = cli.main(tiny(tmp_path / "other", cache, "--sft-steps", "5"))
    first_key = first_call.results["sft"]["cache"]["key"]
    assert results["sft"]["cache"]["reused"] is False and results["sft"]["cache"]["key"] != first_key
    assert results["sft"]["steps"] == 5
    assert sorted(p.name for p in cache.iterdir()) == sorted([first_key, results["sft"]["cache"]["key"]])


@pytest.mark.slow
def test_a_model_whose_cached_evaluation_ran_on_another_gpu_is_evaluated_again_and_stored_so(
    first_call, tmp_path, monkeypatch
):
    """Speedups are the GPU's: a cached before-RL evaluation from another GPU (or from before entries
    recorded theirs) would meet an after-RL one made here. The model is reused, its evaluation made
    again here and stored, so the next call on this machine reuses both."""
    stub_arms(monkeypatch)
    monkeypatch.setattr(
        sft_training, "train_sft", lambda *a, **k: pytest.fail("a reused SFT model is not trained")
    )
    evaluated = []
    evaluate_before = evaluation.evaluate_before
    monkeypatch.setattr(
        evaluation, "evaluate_before", lambda *a: evaluated.append(a[1]) or evaluate_before(*a)
    )
    cache = copy_cache(first_call, tmp_path)
    key = first_call.results["sft"]["cache"]["key"]
    path = cache / key / "entry.json"
    entry = json.loads(path.read_text())
    assert entry["gpu"] is None  # --tiny evaluates on the CPU
    path.write_text(json.dumps(entry | {"gpu": "NVIDIA H200"}))

    results = cli.main(tiny(tmp_path / "here", cache))
    use = results["sft"]["cache"]
    assert use["reused"] is True and evaluated == [cache / key / "model"]
    assert use["evaluated_again"] == "its before-RL evaluation ran on NVIDIA H200, this call's on the CPU"
    stored = json.loads(path.read_text())
    assert stored["gpu"] is None and stored["before"] == results["before"]
    assert stored["run"] == entry["run"]  # the same model, only its evaluation new
    assert "eval_before_s" in results["timing"]
    assert (
        "reused, evaluated again (its before-RL evaluation ran on NVIDIA H200"
        in (tmp_path / "here" / "rl_demo.md").read_text()
    )

    again = cli.main(tiny(tmp_path / "again", cache))
    assert evaluated == [cache / key / "model"]  # stored with this device's evaluation: not made again
    assert again["sft"]["cache"]["evaluated_again"] is None and again["before"] == results["before"]


@pytest.mark.slow
def test_a_partial_entry_is_trained_afresh_and_replaced(first_call, tmp_path, monkeypatch, caplog):
    stub_arms(monkeypatch)
    cache = copy_cache(first_call, tmp_path)
    key = first_call.results["sft"]["cache"]["key"]
    (cache / key / "model" / "model.safetensors").unlink()
    results = cli.main(tiny(tmp_path / "again", cache))
    assert f"SFT cache entry {cache / key} ignored, training afresh" in caplog.text
    assert results["sft"]["cache"]["reused"] is False and results["sft"]["cache"]["created"]
    assert (cache / key / "model" / "model.safetensors").is_file()
    assert [p.name for p in cache.iterdir()] == [key]  # the unusable entry is gone, no temporary folder left
    assert json.loads((cache / key / "entry.json").read_text())["before"] == results["before"]
    # trained again alike: the same model, by its weights digest, so arms of both calls compare
    assert results["sft"]["weights"] == first_call.results["sft"]["weights"]
    assert sft_training.weights_digest(cache / key / "model") == results["sft"]["weights"]
