"""KernelRLConfig: MusaCoder's defaults, clear errors for bad values, and the recipes in configs/rl."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainers.rl import parser
from trainers.rl_config import KernelRLConfig, RLScriptArguments

RECIPES = sorted((Path(__file__).parents[2] / "configs" / "rl").glob("*.yaml"))


def make(tmp_path, **kw) -> KernelRLConfig:
    return KernelRLConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False, report_to="none", **kw)


def test_defaults_follow_the_published_settings(tmp_path):
    c = make(tmp_path)
    assert (c.learning_rate, c.num_generations, c.temperature, c.top_p) == (1e-6, 8, 0.9, 0.95)
    assert c.epsilon != c.epsilon_high
    assert (c.primeecho, c.bdr, c.mirrorpop) == (True, True, True)
    p = c.primeecho_params()
    assert (p.turns, p.alpha, p.early_bonus) == (3, 0.75, (0.2, 0.1))
    assert make(tmp_path, primeecho=False).primeecho_params().turns == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(verifier_device="tpu"), "verifier_device"),
        (dict(verifier_backend="k8s"), "verifier_backend"),
        (dict(verifier_lanes_per_device=0), "lanes"),
        (dict(reward_lam=-1.0), "reward_lam"),
        (dict(single_turn_steps=-1), "single_turn_steps"),
        (dict(primeecho_turns=1), "primeecho: false"),
        (dict(primeecho_alpha=1.2), "primeecho_alpha"),
        (dict(primeecho_early_bonus=[0.1, 0.3]), "non-increasing"),
        (dict(bdr_buffer_size=0), "bdr: false"),
        (dict(bdr_replay_prob=1.5), "bdr_replay_prob"),
        (dict(bdr_max_replays=0), "bdr_max_replays"),
        (dict(mirrorpop_delta=0.0), "mirrorpop: false"),
        (dict(mirrorpop_rule="max"), "mirrorpop_rule"),
    ],
)
def test_bad_values_raise_clear_errors(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        make(tmp_path, **kwargs)


def test_bad_prompt_sources_raise_clear_errors():
    with pytest.raises(ValueError, match="either suite or dataset_name"):
        RLScriptArguments(suite="builtin", dataset_name="x.jsonl")
    with pytest.raises(ValueError, match="max_prompts"):
        RLScriptArguments(max_prompts=0)
    args = RLScriptArguments(dataset_name="x")
    assert (args.dataset_config, args.dataset_train_split) == (
        "rl_prompts",
        "train",
    )  # the builder's RL prompts


def test_single_turn_needs_no_turn_count(tmp_path):
    assert make(tmp_path, primeecho=False, primeecho_turns=1).primeecho_params().turns == 1


@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_recipes_parse_and_validate(recipe, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    script_args, config, model_args = parser().parse_args_and_config(
        ["--config", str(recipe), "--use_cpu", "true", "--bf16", "false", "--report_to", "none"]
    )
    assert model_args.model_name_or_path and config.primeecho
    assert script_args.suite or script_args.dataset_name


def test_there_are_recipes_for_both_published_scales():
    names = {p.stem for p in RECIPES}
    assert {"qwen3.5-9b", "qwen3.6-27b"} <= names


def test_every_evaluation_setting_reaches_the_verifier(tmp_path, changed_eval_settings):
    """Each EvalConfig setting is set from the RL config: by its own verifier_* field where it has
    one, else through verifier_eval_kwargs; none is dropped, none can be set twice."""
    from benchmark.evaluate.harness import EvalConfig
    from benchmark.evaluate.timing import TimingConfig
    from trainers.rl_config import EVAL_FIELDS

    wanted = dict(changed_eval_settings)
    own = {EVAL_FIELDS[k]: wanted[k] for k in EVAL_FIELDS if k != "device"}
    extra = {k: v for k, v in wanted.items() if k not in EVAL_FIELDS}
    got = make(tmp_path, **own, verifier_eval_kwargs=extra).eval_config(wanted["device"])
    expected = EvalConfig(
        **{**wanted, "timing": TimingConfig(**wanted["timing"]), "cache_dir": Path(wanted["cache_dir"])}
    )
    assert got == expected
    with pytest.raises(ValueError, match="verifier_trials"):
        make(tmp_path, verifier_eval_kwargs={"trials": 2})
    with pytest.raises(ValueError, match="unknown timing setting"):
        make(tmp_path, verifier_eval_kwargs={"timing": {"max_second": 1.0}})
