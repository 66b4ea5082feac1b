"""What the builder writes is what the trainers' recipes read: the repository scheme of schema.py
(one repository, a configuration per kind of row, split `train`), checked on a folder laid out as
the Hub repository is, through the loaders the trainers call."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import datasets
import pytest
import yaml
from builder_support import SCALE_TASK

from benchmark.suite.dataset import FEATURES as SUITE_FEATURES
from datasets_builder.config import OutputConfig
from datasets_builder.export import write_train_folder
from datasets_builder.schema import CONFIGS, FEATURES, REPO, SPLIT, row

CONFIG_DIR = Path(__file__).parents[2] / "configs"
SFT_RECIPES = [p for p in sorted((CONFIG_DIR / "sft").glob("*.yaml")) if p.stem != "smoke"]
RL_RECIPES = [p for p in sorted((CONFIG_DIR / "rl").glob("*.yaml")) if "dataset_name" in p.read_text()]
MESSAGES = [{"role": "system", "content": "Write kernels."}, {"role": "user", "content": "y = 2x + 1"}]


def _rows(config: str, n: int) -> list[dict]:
    answer = [] if config == "rl_prompts" else [{"role": "assistant", "content": "class ModelNew: ..."}]
    return [
        row(messages=MESSAGES + answer, task_id=f"gen/{config}_{i}", task_code=SCALE_TASK, source=config)
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    rows = {c: _rows(c, i + 1) for i, c in enumerate(CONFIGS)}
    tasks = [
        dict.fromkeys(SUITE_FEATURES)
        | {"code": SCALE_TASK, "level": 1, "name": "scale", "task_id": "gen/scale"}
    ]
    out = tmp_path_factory.mktemp("export") / "kernels"
    return write_train_folder(out, rows, tasks, {}, "test", "apache-2.0", REPO)


def _defaults(cls) -> dict:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def test_recipes_and_defaults_name_the_builders_repository_configuration_and_split():
    from trainers.rl_config import RLScriptArguments
    from trainers.sft_config import SFTScriptArguments

    assert SFT_RECIPES and RL_RECIPES
    for recipe in map(yaml.safe_load, (p.read_text() for p in SFT_RECIPES)):
        assert (recipe["dataset_name"], recipe["dataset_config"], recipe["dataset_train_split"]) == (
            REPO,
            "sft",
            SPLIT,
        )
    for recipe in map(yaml.safe_load, (p.read_text() for p in RL_RECIPES)):
        assert (recipe["dataset_name"], recipe["dataset_config"], recipe["dataset_train_split"]) == (
            REPO,
            "rl_prompts",
            SPLIT,
        )
    assert OutputConfig().repo == REPO
    assert _defaults(SFTScriptArguments)["dataset_train_split"] == SPLIT
    rl = _defaults(RLScriptArguments)
    assert (rl["dataset_config"], rl["dataset_train_split"]) == ("rl_prompts", SPLIT)


def test_the_folder_has_every_configuration_with_one_train_split(folder):
    assert sorted(datasets.get_dataset_config_names(str(folder))) == sorted([*CONFIGS, "tasks"])
    for config in (*CONFIGS, "tasks"):
        assert datasets.get_dataset_split_names(str(folder), config) == [SPLIT]
    files = sorted(p.relative_to(folder).parent.as_posix() for p in folder.glob("data/**/*.parquet"))
    assert files == sorted(f"data/{c}" for c in (*CONFIGS, "tasks"))


def test_every_file_is_written_with_zstd(folder):
    import pyarrow.parquet as pq

    files = list(folder.glob("data/**/*.parquet"))
    assert files
    for path in files:
        meta = pq.ParquetFile(path).metadata
        assert {meta.row_group(0).column(i).compression for i in range(meta.num_columns)} == {"ZSTD"}, path


def test_the_sft_recipe_reads_the_sft_rows(folder):
    from trainers.data import load_sft_dataset

    recipe = yaml.safe_load(SFT_RECIPES[0].read_text())
    data = load_sft_dataset(str(folder), recipe["dataset_train_split"], recipe["dataset_config"])
    assert data.column_names == list(FEATURES)
    assert data["task_id"] == ["gen/sft_0"] and data[0]["messages"][-1]["role"] == "assistant"


def test_the_rl_recipe_reads_the_rl_prompts(folder, tmp_path):
    from trainers.rl import load_rl_prompts
    from trainers.rl_config import KernelRLConfig, RLScriptArguments

    recipe = yaml.safe_load(RL_RECIPES[0].read_text())
    script_args = RLScriptArguments(
        dataset_name=str(folder),
        dataset_config=recipe["dataset_config"],
        dataset_train_split=recipe["dataset_train_split"],
    )
    config = KernelRLConfig(
        verifier_cache_dir=str(tmp_path / "cache"),
        output_dir=str(tmp_path),
        use_cpu=True,
        bf16=False,
        report_to="none",
    )
    data, tasks = load_rl_prompts(script_args, config)
    expected = [f"gen/rl_prompts_{i}" for i in range(4)]
    assert data["task_id"] == expected and sorted(tasks) == expected
    assert data[0]["prompt"] == MESSAGES and "x * 2.0 + 1.0" in tasks[expected[0]].path.read_text()
