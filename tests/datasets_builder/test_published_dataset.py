"""The dataset users download, loaded as they load it: offline, configuration by configuration, with
the schema the trainers read, its card complete, and none of its tasks a near-duplicate of a suite
task. Checked on the tiny CPU build here, and on the committed H200 build (PUBLISHED, docs/datasets.md
"The H200 build") once it is in the repository."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from benchmark.suite import load_suite
from benchmark.suite.dataset import FEATURES as SUITE_FEATURES
from datasets_builder.card import missing_sections
from datasets_builder.decontam import SuiteIndex, screen
from datasets_builder.schema import CONFIGS, DEFAULT_CONFIG, FEATURES, SPLIT, TASKS_CONFIG

PUBLISHED = Path(__file__).resolve().parents[2] / "data" / "solbench-kernels"
MAX_BYTES = 20_000_000  # what travels back from the GPU machine and sits in git


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def check_published(folder: Path) -> dict[str, datasets.Dataset]:
    """Every configuration the card declares, loaded offline; the checks users rely on."""
    card = DatasetCard.load(folder / "README.md")
    assert missing_sections(card.text) == []
    declared = {c["config_name"]: c for c in card.data.configs}
    rows = {i["config_name"]: i["splits"][0]["num_examples"] for i in card.data.dataset_info}
    assert declared[DEFAULT_CONFIG].get("default") and set(declared) <= {*CONFIGS, TASKS_CONFIG}
    assert sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) < MAX_BYTES
    loaded = {}
    for name in declared:
        assert datasets.get_dataset_split_names(str(folder), name) == [SPLIT]
        ds = datasets.load_dataset(str(folder), name, split=SPLIT)
        assert ds.features == (SUITE_FEATURES if name == TASKS_CONFIG else FEATURES), name
        assert len(ds) == rows[name] > 0
        loaded[name] = ds
    for name in ("sft", "rft", "repair"):
        if name in loaded:
            assert all(loaded[name]["verified"]) and all(loaded[name]["solution"])
            assert all(m[-1]["role"] == "assistant" for m in loaded[name]["messages"])
    prompts = loaded["rl_prompts"]
    assert all(prompts["task_code"]) and all(m[-1]["role"] == "user" for m in prompts["messages"])
    return loaded


def no_suite_near_duplicates(tasks: datasets.Dataset) -> None:
    suite = load_suite(None)
    index = SuiteIndex((t.task_id, t.source) for t in suite.tasks)
    matches, audit = screen(zip(tasks["task_id"], tasks["code"], strict=True), index)
    assert audit.candidates == len(tasks) and audit.unparsable == 0
    assert [m.item_id for m in matches if m.contaminated] == []


def test_the_tiny_build_loads_offline_split_by_split(built):
    out, result, _ = built
    loaded = check_published(out / "dataset")
    assert {k: len(v) for k, v in loaded.items()} == {k: v for k, v in result.stats["splits"].items() if v}
    no_suite_near_duplicates(loaded[TASKS_CONFIG])


@pytest.mark.slow
@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=f"the H200 build is not committed yet ({PUBLISHED})")
def test_the_committed_h200_build_loads_offline_split_by_split():
    loaded = check_published(PUBLISHED)
    assert set(loaded["sft"]["level"]) == {1, 2, 3}
    no_suite_near_duplicates(loaded[TASKS_CONFIG])


@pytest.mark.slow
@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=f"the H200 build is not committed yet ({PUBLISHED})")
def test_the_committed_h200_build_has_500_solved_tasks():
    sft = datasets.load_dataset(str(PUBLISHED), "sft", split=SPLIT)
    assert len(set(sft["task_id"])) >= 500
