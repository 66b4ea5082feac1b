"""Dataset cards built offline on huggingface_hub's card classes: the metadata a dataset card
should carry, the configurations as datasets reads them, and the body's loading lines."""

from __future__ import annotations

import datasets
import pytest
from huggingface_hub import DatasetCard

from datasets_builder.card import suite_card, train_card
from datasets_builder.schema import FEATURES


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _info(config: str, rows: int, features=FEATURES) -> datasets.DatasetInfo:
    info = datasets.DatasetInfo(features=features, config_name=config)
    info.splits = datasets.SplitDict()
    info.splits.add(datasets.SplitInfo(name="train", num_examples=rows, num_bytes=100 * rows))
    return info


def test_train_card_metadata_round_trips_through_dataset_card():
    configs = {
        "sft": {"data_files": [{"split": "train", "path": "data/sft/train-f-*"}], "default": True},
        "rl_prompts": {"data_files": [{"split": "train", "path": "data/rl_prompts/train-f-*"}]},
    }
    infos = {"sft": _info("sft", 3), "rl_prompts": _info("rl_prompts", 2)}
    counts = {"sft": 3, "rft": 0, "repair": 0, "rl_prompts": 2, "tasks": 0}
    card = train_card({"rft": {"m": 4}}, counts, "Kernels", "apache-2.0", "org/kernels", configs, infos)
    data = DatasetCard(str(card)).data
    assert (data.license, data.language, data.pretty_name) == ("apache-2.0", ["en"], "Kernels")
    assert data.task_categories == ["text-generation"] and data.size_categories == ["n<1K"]
    assert "triton" in data.tags
    by_name = {c["config_name"]: c for c in data.configs}
    assert by_name["sft"]["default"] and "default" not in by_name["rl_prompts"]
    assert by_name["rl_prompts"]["data_files"] == [{"split": "train", "path": "data/rl_prompts/train-f-*"}]
    sizes = {i["config_name"]: i["splits"] for i in data.dataset_info}
    assert sizes["sft"] == [{"name": "train", "num_bytes": 300, "num_examples": 3}]
    assert 'load_dataset("org/kernels", "rl_prompts", split="train")' in card.text
    assert "| `sft` | train | 3 |" in card.text and "up to 4 per task" in card.text
    assert "No solution was timed" in card.text and "## Schema" in card.text


def test_suite_card_names_its_levels():
    configs = {"default": {"data_files": [{"split": "level_1", "path": "data/level_1-f-*"}]}}
    infos = {"default": _info("default", 1500)}
    card = suite_card(1500, "1.0", "apache-2.0", configs, infos, repo="org/suite")
    data = DatasetCard(str(card)).data
    assert data.size_categories == ["1K<n<10K"] and "benchmark" in data.tags
    assert (
        data.dataset_info["splits"][0]["name"] == "train"
    )  # one configuration: a mapping, as datasets writes it
    assert data.configs == [{"config_name": "default", "data_files": configs["default"]["data_files"]}]
    assert "--suite hf:org/suite" in card.text and "version 1.0" in card.text
