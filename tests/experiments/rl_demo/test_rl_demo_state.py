"""experiments.rl_demo.state: the arms and the settings of a call."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.rl_demo import state
from trainers.sft_config import KernelSFTConfig


def test_every_ablation_arm_switches_off_one_cuset_part_that_is_on_by_default():
    defaults = KernelSFTConfig(output_dir="unused", use_cpu=True, report_to="none")
    assert not defaults.cuset and state.SFT_ARMS["plain"] == {} and state.SFT_ARMS["cuset"] == {"cuset": True}
    for name, overrides in state.SFT_ARMS.items():
        if name.startswith("cuset_no_"):
            (part, value), *others = (kv for kv in overrides.items() if kv[0] != "cuset")
            assert overrides["cuset"] is True and not others and value is False
            assert getattr(defaults, part) is True, f"{name} switches off {part}, which is off already"


def test_the_scale_fills_in_what_is_left_unset_and_keeps_what_is_given(tmp_path):
    tiny = state.Settings(out=tmp_path, tiny=True)
    gpu = state.Settings(out=tmp_path, test_samples=4)
    for name, value in state.TINY_DEFAULTS.items():
        assert getattr(tiny, name) == value
    assert gpu.test_samples == 4 and gpu.sft_steps == state.GPU_DEFAULTS["sft_steps"]
    assert (tiny.model_shape, gpu.model_shape) == (state.TINY_SHAPE, state.GPU_SHAPE)
    assert state.Settings(out=tmp_path, tiny=True, prompts_per_step=4).prompts_per_step == 2
    assert gpu.sft_seeds == [0, 1000, 2000] and gpu.sft_attempts == 3  # the gate's seeds
    assert state.Settings(out=tmp_path, sft_seeds=[7, 7, 2]).sft_attempts == 2


def test_the_recorded_settings_are_the_flags_and_the_models_shape(tmp_path):
    """rl_demo.json's "settings" and the SFT cache key read the flags by name: a flag renamed without
    its setting (or the reverse) would make older files and cache entries unreadable."""
    from experiments.rl_demo.cli import build_parser

    flags = {a.dest for a in build_parser()._actions if a.dest != "help"}
    recorded = state.Settings(out=tmp_path).record()
    assert set(recorded) == flags | {"model_shape"}
    assert set(state.SFT_POOLED_SETTINGS) <= set(recorded) and set(state.RL_MERGE_SETTINGS) <= set(recorded)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"sft_attempts": 0}, "at least 1"),
        ({"sft_arms": ["cuset"]}, "needs plain"),
        ({"sft_arms": ["plain"], "sft_cache": Path("c")}, "for RL mode"),
        ({"arms": ["no_such_arm"]}, "no such arm"),
        ({"group": 3, "prompts_per_step": 3}, "must be even"),
    ],
)
def test_settings_that_cannot_run_are_refused_with_what_to_change(tmp_path, given, message):
    with pytest.raises(ValueError, match=message):
        state.Settings(out=tmp_path, **given)
