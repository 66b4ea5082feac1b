"""KernelSFTConfig: YAML round-trip through the CLI parser, shipped recipes, and validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from trainers.cuset import CuSeTParams
from trainers.sft_config import KernelSFTConfig, config_overrides, save_config_yaml

RECIPES = sorted((Path(__file__).parents[2] / "configs" / "sft").glob("*.yaml"))
CPU = dict(use_cpu=True, bf16=False, report_to="none")


def test_yaml_round_trip_through_the_cli_parser(tmp_path):
    from trl import TrlParser

    config = KernelSFTConfig(
        output_dir=str(tmp_path / "run"),
        model_name_or_path="some/model",
        dataset_name="data.jsonl",
        max_length=2048,
        learning_rate=2e-5,
        gradient_accumulation_steps=8,
        gradient_checkpointing=False,
        lr_scheduler_type="cosine",
        use_peft=True,
        lora_target_modules=["q_proj", "v_proj"],
        chat_template_kwargs={"enable_thinking": False},
        cuset=True,
        cuset_tag_kinds=["barrier", "atomic"],
        cuset_region_gap=4,
        cuset_sample_norm="batch",
        **CPU,
    )
    path = save_config_yaml(config, tmp_path / "recipe.yaml")
    written = yaml.safe_load(path.read_text())
    assert "cuset_mask_threshold" not in written, "defaults are not written"
    assert written["cuset_region_gap"] == 4
    (parsed,) = TrlParser(dataclass_types=[KernelSFTConfig]).parse_args_and_config(["--config", str(path)])
    for name in written:
        assert getattr(parsed, name) == getattr(config, name), name
    assert parsed.lr_scheduler_type == config.lr_scheduler_type
    assert parsed.cuset_params() == config.cuset_params()
    assert config_overrides(parsed) == config_overrides(config)


def test_cli_flags_override_the_yaml(tmp_path):
    from trl import TrlParser

    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump({"output_dir": str(tmp_path), "cuset": True, "max_length": 512, **CPU}))
    (parsed,) = TrlParser(dataclass_types=[KernelSFTConfig]).parse_args_and_config(
        ["--config", str(path), "--max_length", "128", "--cuset_sensitive_upweight", "false"]
    )
    assert parsed.cuset is True and parsed.max_length == 128 and parsed.cuset_sensitive_upweight is False


@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_shipped_recipes_are_valid_configs(recipe, tmp_path):
    values = yaml.safe_load(recipe.read_text())
    values.pop("env", None)
    config = KernelSFTConfig(**{**values, **CPU, "output_dir": str(tmp_path)})
    assert config.model_name_or_path and config.dataset_name


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
        ({"use_peft": True, "lora_r": 0}, "lora_r must be >= 1"),
    ],
)
def test_invalid_settings_say_what_to_set(overrides, message):
    with pytest.raises(ValueError, match=message):
        KernelSFTConfig(output_dir="out", **CPU, **overrides)
