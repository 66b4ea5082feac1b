"""Dataset cards built offline on huggingface_hub's card classes: the metadata a dataset card
should carry, the configurations as datasets reads them, the body's loading example (run as it is
written, against a tiny CPU build and the committed H200 build), and the card a tiny CPU build
writes, loaded back with DatasetCard.load: every required section, its figures and its sources with
their licences."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest
from builder_support import SOURCE_REVISION, SOURCE_URL
from huggingface_hub import DatasetCard, DatasetCardData

from benchmark.stats import geomean, quantile
from datasets_builder.card import (
    REQUIRED_SECTIONS,
    missing_sections,
    pool_note,
    stop_reason,
    suite_card,
    train_card,
    verifier_table,
)
from datasets_builder.schema import FEATURES

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "data" / "solbench-kernels"


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
    example = loading_code(card.text)
    assert 'load_dataset(folder, "rl_prompts", split="train")' in example and '"rft"' not in example
    assert 'load_dataset("org/kernels", "sft", split="train")' in card.text  # the Hub, once published
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


def loading_code(text: str) -> str:
    """The Python of the card's "Loading" section."""
    return _section(text, "## Loading").split("```python\n", 1)[1].split("\n```", 1)[0]


def run_loading_example(text: str) -> dict[str, int]:
    """Run the card's loading example as it is written; the rows of each configuration it loaded."""
    scope: dict = {}
    exec(compile(loading_code(text), "README.md", "exec"), scope)  # noqa: S102 - the card's own example
    return {v.info.config_name: v.num_rows for v in scope.values() if isinstance(v, datasets.Dataset)}


def card_counts(text: str) -> dict[str, int]:
    rows = [line.split("|") for line in _section(text, "## Configurations and splits").splitlines()]
    return {r[1].strip(" `"): int(r[3]) for r in rows if len(r) > 3 and r[2].strip() == "train"}


def test_the_loading_example_loads_a_built_folder_offline(built):
    out, result, _ = built
    text = (out / "dataset" / "README.md").read_text()
    assert run_loading_example(text) == {k: v for k, v in result.stats["splits"].items() if v}


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=f"the H200 build is not committed ({PUBLISHED})")
def test_the_loading_example_loads_the_committed_folder_offline(monkeypatch):
    monkeypatch.chdir(REPO)  # the example names the folder from the repository's root
    text = (PUBLISHED / "README.md").read_text()
    loaded = run_loading_example(text)
    assert loaded == card_counts(text) and set(loaded) == {"sft", "rft", "repair", "rl_prompts", "tasks"}


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=f"the H200 build is not committed ({PUBLISHED})")
def test_the_committed_card_tells_each_figure_once_and_as_the_rows_are():
    text = (PUBLISHED / "README.md").read_text()
    sft = datasets.load_dataset(str(PUBLISHED), "sft", split="train")
    rft = datasets.load_dataset(str(PUBLISHED), "rft", split="train")
    prompts = datasets.load_dataset(str(PUBLISHED), "rl_prompts", split="train")
    # sft and rft are the same rows, one solution per task, and the card says so
    assert sorted(sft["candidate_id"]) == sorted(rft["candidate_id"]) and len(set(sft["task_id"])) == len(sft)
    assert f"`sft` and `rft` are the same {len(sft)} rows, one verified solution per task" in text
    # one number per figure: the timed solutions, the tasks with a kept solution
    timed = sum(s is not None for s in rft["speedup"])
    assert f"| solutions re-verified with timing (random subset) | {timed} |" in text
    assert f"A random subset of {timed} kept solutions" in text and f"measured for {timed} randomly" in text
    assert f"| with a kept solution | {len(sft)} |" in text
    assert "tasks have a kept solution (target" not in text  # the count at the moment the build stopped
    # the family table is the rows' families, not the tasks' first tag
    families = _section(text, "## The tasks").split("### Tasks per family and level", 1)[1].split("###", 1)[0]
    for family in set(prompts["family"]):
        total = prompts["family"].count(family)
        assert any(
            line.startswith(f"| {family} |") and line.endswith(f"| {total} |")
            for line in families.splitlines()
        )
    assert "| synthetic |" not in families


def test_a_pool_with_more_than_one_solution_per_task_is_not_called_the_sft_rows():
    stats = {"rft": {"m": 2}, "solutions": {"tasks_with_solution": 3}, "teacher": {"kind": "model"}}
    assert (
        pool_note(stats, {"sft": 5, "rft": 8}) == "`sft` is the 5 rows of `rft` (8) whose `selected` is true."
    )
    assert "one verified solution per task" in pool_note(stats, {"sft": 3, "rft": 3})
    same = pool_note(stats, {"sft": 5, "rft": 5})
    assert "same 5 rows" in same and "more than 2" in same and "one verified solution per task" not in same


def test_the_stop_and_the_timed_count_are_told_from_the_builds_figures():
    stats = {
        "budget": {"stopped_early": True, "target_tasks": 10, "minutes": 5.0, "tasks_not_processed": 4},
        "solutions": {"tasks_with_solution": 12, "speedup": {"timed": 7}},
        "config": {"timing": {"subset": 5}},
    }
    assert stop_reason(stats).startswith("the target of 10 tasks with a kept solution was reached")
    stats["solutions"]["tasks_with_solution"] = 6
    assert stop_reason(stats).startswith("the time budget of 5 min was nearly spent")
    assert "| solutions re-verified with timing (random subset) | 7 |" in verifier_table(stats)


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
    prompts = datasets.load_dataset(str(out / "dataset"), "rl_prompts", split="train")
    assert all(f"| {family} |" in tasks for family in set(prompts["family"])) and "| synthetic |" not in tasks

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
