"""Build configurations: the shipped examples load, bad ones fail with messages that say what to fix,
and the CLI is a thin layer over them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from datasets_builder.__main__ import build_parser, main
from datasets_builder.config import ConfigError, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "datasets"
PUBLISHED = Path(__file__).resolve().parents[2] / "data" / "solbench-kernels"  # the committed H200 build


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


def test_the_3000_task_build_is_configured_for_calls_of_under_8_minutes():
    config = load_config(CONFIGS / "h200_3000.yaml")
    assert config.budget.target_tasks >= 3000 and 0 < config.budget.minutes <= 8
    assert config.teacher.kind == "inductor" and config.verify.strict and config.device == "cuda"


@pytest.mark.slow
def test_the_3000_task_build_synthesizes_enough_distinct_clean_candidates():
    """Synthesis, then the screen stage's deduplication and decontamination against the built-in
    suite, leave enough candidates per level to reach the target with the committed build's level
    mix and keep rates: each level needs that build's processed count of the level, per task kept
    in all, times the target (3,000: levels 1/2/3 need 844/2,139/539)."""
    from benchmark.suite import load_suite
    from datasets_builder.decontam import SuiteIndex, screen
    from datasets_builder.dedup import deduplicate
    from datasets_builder.stages.synthesize import synthesized
    from datasets_builder.task_source import render

    config = load_config(CONFIGS / "h200_3000.yaml")
    specs = {f"level{s.level}/{s.name}": s for s in synthesized(config)}
    dedup = deduplicate((task_id, render(s)) for task_id, s in specs.items())
    suite = load_suite(config.screen.suite)
    index = SuiteIndex((t.task_id, t.source) for t in suite.tasks)
    matches, _ = screen(((k, render(specs[k])) for k in dedup.kept), index)
    clean = [specs[m.item_id].level for m in matches if not m.contaminated]
    built = json.loads((PUBLISHED / "build_stats.json").read_text())["solutions"]["by_level"]
    kept = sum(level["kept"] for level in built.values())
    need = {level: config.budget.target_tasks * built[str(level)]["processed"] / kept for level in (1, 2, 3)}
    have = {level: clean.count(level) for level in (1, 2, 3)}
    assert all(have[level] >= need[level] for level in need), (have, need)


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


def test_every_evaluation_setting_reaches_the_builds_verifiers(tmp_path, changed_eval_settings):
    """Each EvalConfig setting is set from a build config: by its own key where it has one, else
    under verify.eval; none is dropped, none can be set twice."""
    import yaml

    from benchmark.evaluate.harness import EvalConfig
    from benchmark.evaluate.timing import TimingConfig
    from datasets_builder.stages.verifiers import build_eval_config

    wanted = dict(changed_eval_settings)
    timing = dict(wanted["timing"])
    extra = {
        k: v
        for k, v in wanted.items()
        if k not in ("device", "trials", "measure", "strict", "timeout_s", "baseline")
    }
    extra["timing"] = {k: v for k, v in timing.items() if k != "max_seconds"}
    text = {
        "device": wanted["device"],
        "verify": {
            "trials": wanted["trials"],
            "measure": wanted["measure"],
            "strict": wanted["strict"],
            "timeout_s": wanted["timeout_s"],
            "eval": extra,
        },
        "timing": {"baseline": wanted["baseline"], "max_seconds": timing["max_seconds"]},
    }
    path = tmp_path / "build.yaml"
    path.write_text(yaml.safe_dump(text))
    config = load_config(path)
    expected = EvalConfig(
        **{**wanted, "timing": TimingConfig(**timing), "cache_dir": Path(wanted["cache_dir"])}
    )
    judging = build_eval_config(config, tmp_path / "unused", measure=config.verify.measure)
    assert not judging.measure and judging == dataclasses.replace(expected, baseline="eager")  # timed: none
    timing_subset = build_eval_config(config, tmp_path / "unused", measure=True)
    assert timing_subset == dataclasses.replace(expected, measure=True)

    for repeated, match in (
        ({"trials": 2}, "verify.trials"),
        ({"timing": {"max_seconds": 1.0}}, "timing.max_seconds"),
    ):
        path.write_text(yaml.safe_dump({"verify": {"eval": repeated}}))
        with pytest.raises(ConfigError, match=match):
            load_config(path)
    path.write_text(yaml.safe_dump({"verify": {"eval": {"build_timeout": 5.0}}}))
    with pytest.raises(ConfigError, match="unknown evaluation setting"):
        load_config(path)
