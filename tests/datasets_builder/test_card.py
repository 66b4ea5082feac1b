"""Dataset cards built offline on huggingface_hub's card classes: the metadata a dataset card
should carry, the configurations as datasets reads them, the body's loading lines, and the card a
tiny CPU build writes, loaded back with DatasetCard.load: every required section, its figures and
its sources with their licences."""

from __future__ import annotations

import datasets
import pytest
from builder_support import SOURCE_REVISION, SOURCE_URL
from huggingface_hub import DatasetCard, DatasetCardData

from benchmark.stats import geomean, quantile
from datasets_builder.card import REQUIRED_SECTIONS, missing_sections, suite_card, train_card
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
    assert "one per level of difficulty: `level_1`." in card.text and "## License" in card.text


def test_the_suite_card_a_build_writes_has_the_suite_pages_tables(built):
    out, result, _ = built
    card = DatasetCard.load(out / "suite" / "README.md")
    assert card.data.license == "apache-2.0" and "benchmark" in card.data.tags
    splits = [s["split"] for s in card.data.configs[0]["data_files"]]
    assert splits[:3] == ["level_1", "level_2", "level_3"]
    assert "## Tasks per level" in card.text and "## Tasks per family and level" in card.text
    assert f"| all | {result.stats['suite']['tasks']} |" in card.text


def _section(text: str, head: str) -> str:
    body = text.split(head + "\n", 1)[1]
    return body.split("\n## ", 1)[0]


def test_the_card_a_build_writes_has_every_section_and_its_figures(built):
    out, result, _ = built
    stats = result.stats
    card = DatasetCard.load(out / "dataset" / "README.md")
    assert isinstance(card.data, DatasetCardData)
    data = card.data
    assert (data.license, data.pretty_name) == ("apache-2.0", "solbench-train") and "triton" in data.tags
    configs = {c["config_name"]: c for c in data.configs}
    assert set(configs) == {"sft", "rft", "rl_prompts", "tasks"} and configs["sft"]["default"]
    assert all([d["split"] for d in c["data_files"]] == ["train"] for c in configs.values())
    rows = {i["config_name"]: i["splits"][0]["num_examples"] for i in data.dataset_info}
    assert rows == {k: v for k, v in stats["splits"].items() if v}
    text = card.text
    assert missing_sections(text) == [] and missing_sections("## Loading\n") == list(REQUIRED_SECTIONS[1:])
    for name, n in stats["splits"].items():
        assert f"| `{name}` | train | {n} |" in text
    assert "there is no validation or test split" in text

    made = _section(text, "## How the rows were made")
    assert f"{stats['tasks']['synthesized']} PyTorch programs were synthesized" in made
    assert f"{stats['tasks']['imported']} more were imported" in made

    verifier = _section(text, "## Verifier settings")
    config = stats["config"]["verify"]
    assert f"| correctness trials (fresh seeds) per candidate | {config['trials']} |" in verifier
    assert f"| strict rules (anti-cheat flags fail a candidate) | {config['strict']} |" in verifier

    audit = stats["decontamination_tasks"]
    assert f"| tasks | {audit['candidates']} | {audit['removed']} |" in text
    assert f"version `{stats['suite']['version']}`" in _section(text, "## Decontamination audit")
    timed = [1.25, 1.25]  # the fake timing verifier's speedup, twice
    assert stats["solutions"]["speedup"]["geomean"] == geomean(timed) == quantile(timed, 0.5)
    assert "Median speedup 1.25x" in text and "pass rate of candidates" in text

    tasks = _section(text, "## The tasks")
    assert "### Tasks per level" in tasks and "### Tasks per family and level" in tasks  # the suite's tables
    assert f"| all | {stats['splits']['tasks']} |" in tasks

    sources = _section(text, "## Sources and licences")
    assert "| synthesized by datasets_builder | 11 | apache-2.0 |" in sources
    assert (
        f"| `ext` | 1 | MIT | {SOURCE_URL} | `{SOURCE_REVISION}` | [ext-LICENSE](licenses/ext-LICENSE) |"
        in sources
    )
    assert "Permission is hereby granted" in (out / "dataset" / "licenses" / "ext-LICENSE").read_text()

    limits = _section(text, "## Known limitations")
    assert "Built on a CPU" in limits and "This build has no repair rows." in limits
    assert (out / "stats.md").read_text().startswith("# Build statistics")
