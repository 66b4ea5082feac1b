"""Build configurations: the shipped examples load, bad ones fail with messages that say what to fix,
and the CLI is a thin layer over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from datasets_builder.__main__ import build_parser, main
from datasets_builder.config import ConfigError, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "datasets"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_load(path):
    config = load_config(path)
    assert config.teacher.kind in ("inductor", "model", "none")


def test_the_h200_build_is_configured_for_at_least_500_tasks():
    config = load_config(CONFIGS / "h200_500.yaml")
    s = config.synthesis
    assert s.variants.count + s.compose.count + s.blocks.count >= 700  # headroom for screening and validation
    assert config.budget.target_tasks >= 500 and 0 < config.budget.minutes <= 8
    assert config.teacher.kind == "inductor" and config.verify.strict and config.device == "cuda"


def test_unknown_keys_and_bad_values_are_explained(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("device: cpu\nteacher: {kind: none}\nverify: {trails: 3}\n")
    with pytest.raises(ConfigError, match=r"unknown keys \['trails'\] in bad.yaml.verify; it knows .*trials"):
        load_config(bad)
    bad.write_text("device: cpu\nteacher: {kind: inductor}\n")
    with pytest.raises(ConfigError, match="Inductor teacher needs device: cuda"):
        load_config(bad)
    bad.write_text("device: cpu\nteacher: {kind: model}\n")
    with pytest.raises(ConfigError, match="teacher.model is not set"):
        load_config(bad)
    bad.write_text("device: cpu\nteacher: {kind: none}\nsynthesis: {compose: {min_ops: 5, max_ops: 2}}\n")
    with pytest.raises(ConfigError, match="min_ops"):
        load_config(bad)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


def test_a_value_of_the_wrong_type_names_its_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("device: cpu\nteacher: {kind: none}\nverify: {trials: '3'}\n")
    with pytest.raises(
        ConfigError, match=r"bad.yaml.verify.trials: input should be a valid integer, got '3'"
    ):
        load_config(bad)
    bad.write_text("device: cpu\nteacher: {kind: none}\nsize: {widths: [8, 1.5]}\n")
    with pytest.raises(ConfigError, match=r"bad.yaml.size.widths.1: input should be a valid integer"):
        load_config(bad)
    bad.write_text("device: cpu\nteacher: {kind: none}\nsynthesis: {imports: [{path: /x, pfx: a}]}\n")
    with pytest.raises(
        ConfigError,
        match=r"unknown keys \['pfx'\] in bad.yaml.synthesis.imports.0; it knows \[.*'path', 'prefix'.*\]",
    ):
        load_config(bad)
    bad.write_text("device: cpu\nteacher: {kind: none}\nscreen: {program_threshold: 1}\n")
    assert load_config(bad).screen.program_threshold == 1.0  # an int is a float


def test_lists_become_tuples_and_nested_configs_are_typed(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "device: cpu\nteacher: {kind: none}\nsize: {widths: [8, 16]}\n"
        "synthesis: {variants: {count: 2, families: [activation]}, imports: [{path: /x}]}\n"
    )
    config = load_config(path)
    assert config.size.widths == (8, 16) and config.synthesis.variants.families == ("activation",)
    assert config.synthesis.imports[0].path == "/x" and config.synthesis.imports[0].prefix is None


def test_cli_help_and_errors(capsys, tmp_path):
    text = build_parser().format_help()
    assert "build" in text and "publish" in text
    assert main(["build", "--config", str(tmp_path / "missing.yaml"), "--out", str(tmp_path / "o")]) == 2
    assert "does not exist" in capsys.readouterr().err
