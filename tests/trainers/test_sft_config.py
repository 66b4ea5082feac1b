"""The SFT configs: YAML round-trip through the CLI parser, shipped recipes, and validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from trainers.cli import config_overrides, save_recipe
from trainers.cuset import CuSeTParams
from trainers.model import KernelModelConfig
from trainers.sft import parser
from trainers.sft_config import KernelSFTConfig, SFTScriptArguments

RECIPES = sorted((Path(__file__).parents[2] / "configs" / "sft").glob("*.yaml"))
CPU = dict(use_cpu=True, bf16=False, report_to="none")


def _values(configs) -> dict:
    return {name: value for config in configs for name, value in vars(config).items()}


def test_yaml_round_trip_through_the_cli_parser(tmp_path):
    script_args = SFTScriptArguments(dataset_name="data.jsonl", max_train_samples=100)
    model_args = KernelModelConfig(
        model_name_or_path="some/model", use_peft=True, lora_target_modules=["q_proj", "v_proj"]
    )
    config = KernelSFTConfig(
        output_dir=str(tmp_path / "run"),
        max_length=2048,
        learning_rate=2e-5,
        gradient_accumulation_steps=8,
        gradient_checkpointing=False,
        lr_scheduler_type="cosine",
        chat_template_kwargs={"enable_thinking": False},
        cuset=True,
        cuset_tag_kinds=["barrier", "atomic"],
        cuset_region_gap=4,
        cuset_sample_norm="batch",
        **CPU,
    )
    path = save_recipe(tmp_path / "recipe.yaml", script_args, config, model_args)
    written = yaml.safe_load(path.read_text())
    assert "cuset_mask_threshold" not in written and "lora_r" not in written, "defaults are not written"
    assert written["cuset_region_gap"] == 4 and written["model_name_or_path"] == "some/model"
    assert written["max_train_samples"] == 100 and written["lora_target_modules"] == ["q_proj", "v_proj"]
    parsed = parser().parse_args_and_config(["--config", str(path)])
    got, want = _values(parsed), _values((script_args, config, model_args))
    for name in written:
        assert got[name] == want[name], name
    assert parsed[1].lr_scheduler_type == config.lr_scheduler_type
    assert parsed[1].cuset_params() == config.cuset_params()
    assert config_overrides(*parsed) == config_overrides(script_args, config, model_args)


def test_cli_flags_override_the_yaml(tmp_path):
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump({"output_dir": str(tmp_path), "cuset": True, "max_length": 512, **CPU}))
    _, parsed, model_args = parser().parse_args_and_config(
        ["--config", str(path), "--max_length", "128", "--cuset_sensitive_upweight", "false", "--lora_r", "4"]
    )
    assert parsed.cuset is True and parsed.max_length == 128 and parsed.cuset_sensitive_upweight is False
    assert model_args.lora_r == 4


@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_shipped_recipes_are_valid_configs(recipe, tmp_path):
    flags = ["--use_cpu", "true", "--bf16", "false", "--report_to", "none", "--output_dir", str(tmp_path)]
    script_args, config, model_args = parser().parse_args_and_config(["--config", str(recipe), *flags])
    assert model_args.model_name_or_path and script_args.dataset_name and config.cuset


def test_recipes_exist():
    assert {p.stem for p in RECIPES} >= {"qwen3.5-9b", "qwen3.6-27b", "smoke"}


def test_cuset_params_mirror_the_fields():
    config = KernelSFTConfig(output_dir="out", cuset_region_weight=3.0, cuset_token_masking=False, **CPU)
    params = config.cuset_params()
    assert params.region_weight == 3.0 and params.token_masking is False
    assert params.mask_threshold == CuSeTParams().mask_threshold


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"packing": True}, "packing is not supported"),
        ({"padding_free": True}, "padding_free is not supported"),
        ({"chat_template_path": "Qwen/Qwen3-8B"}, "must be a .jinja or .j2 file"),
        ({"assistant_only_loss": True}, "final-assistant-turn labels"),
        ({"cuset_mask_threshold": 1.5}, "cuset_mask_threshold is a probability"),
        (
            {"cuset_region_threshold": 0.9, "cuset_mask_threshold": 0.8},
            "must not exceed cuset_mask_threshold",
        ),
        ({"cuset_region_gap": -1}, "cuset_region_gap must be >= 0"),
        ({"cuset_region_weight": -1.0}, "cuset_region_weight must be >= 0"),
        ({"cuset_sample_norm": "global"}, "cuset_sample_norm must be"),
        ({"cuset_tag_kinds": ["barriers"]}, "unknown kinds"),
        ({"overlong": "wrap"}, "overlong must be"),
    ],
)
def test_invalid_settings_say_what_to_set(overrides, message):
    with pytest.raises(ValueError, match=message):
        KernelSFTConfig(output_dir="out", **CPU, **overrides)


def test_lora_adapts_every_linear_layer_by_default():
    from trl import get_peft_config

    assert get_peft_config(KernelModelConfig()) is None
    peft = get_peft_config(KernelModelConfig(use_peft=True, lora_r=8))
    assert peft.target_modules == "all-linear" and peft.r == 8 and peft.task_type == "CAUSAL_LM"


def test_invalid_model_and_data_settings_say_what_to_set():
    with pytest.raises(ValueError, match="lora_r must be >= 1"):
        KernelModelConfig(use_peft=True, lora_r=0)
    with pytest.raises(ValueError, match="max_train_samples must be >= 1"):
        SFTScriptArguments(max_train_samples=0)
