"""The trainers' command line: a short --help that leads with --config and the project's options,
and --help-all with every TRL and transformers option."""

from __future__ import annotations

import pytest

from trainers import rl, sft


@pytest.mark.parametrize(
    ("module", "own", "inherited"),
    [
        (
            sft,
            ["--cuset_mask_threshold", "--overlong", "--max_train_samples", "--merge_lora"],
            "--dataloader_prefetch_factor",
        ),
        (
            rl,
            ["--primeecho_turns", "--bdr_replay_prob", "--mirrorpop_delta", "--suite", "--merge_lora"],
            "--vllm_gpu_memory_utilization",
        ),
    ],
    ids=["sft", "rl"],
)
def test_help_is_short_and_names_the_projects_options(module, own, inherited, capsys):
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    name = module.__name__
    assert text.startswith(f"usage: python -m {name} --config RECIPE.yaml")
    options = [line.split()[0] for line in text.splitlines() if line.startswith("  --")]
    assert options[0] == "--config"
    assert set(own) <= set(options) and {"--model_name_or_path", "--out", "--quiet"} <= set(options)
    assert inherited not in text, "TRL's and transformers' own options belong to --help-all"
    assert "--help-all" in text and len(text.splitlines()) < 250

    with pytest.raises(SystemExit) as done:
        module.main(["--help-all"])
    assert done.value.code == 0
    full = capsys.readouterr().out
    assert full.startswith(f"usage: python -m {name}")
    assert inherited in full and own[0] in full and len(full.splitlines()) > 3 * len(text.splitlines())


def test_a_recipe_value_of_the_wrong_type_names_its_field(tmp_path):
    recipe = tmp_path / "recipe.yaml"
    base = f"output_dir: {tmp_path}\nuse_cpu: true\nbf16: false\n"
    recipe.write_text(base + "cuset_region_gap: 2.5\n")
    with pytest.raises(
        ValueError, match=r"recipe field cuset_region_gap: input should be a valid integer, got 2.5"
    ):
        sft.parser().parse_args_and_config(["--config", str(recipe)])
    recipe.write_text(base + "lora_r: [8]\n")
    with pytest.raises(ValueError, match="recipe field lora_r"):
        sft.parser().parse_args_and_config(["--config", str(recipe)])
    recipe.write_text(base + "primeecho_alpha: 1\nsuite: builtin\nlearning_rate: 1e-5\n")  # an int is a float
    script_args, config, _ = rl.parser().parse_args_and_config(["--config", str(recipe)])
    assert config.primeecho_alpha == 1.0 and config.learning_rate == 1e-5 and script_args.suite == "builtin"


@pytest.mark.parametrize("module", [sft, rl], ids=["sft", "rl"])
def test_what_the_user_got_wrong_is_one_line_with_the_short_usage(module, tmp_path, capsys):
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(f"output_dir: {tmp_path}\nuse_cpu: true\nbf16: false\n")
    for argv, says in (
        ([], "give a recipe: --config RECIPE.yaml"),
        (["--config", str(tmp_path / "nope.yaml")], "no such recipe file: "),
        (["--config", str(recipe), "--lerning_rate", "1"], "--lerning_rate"),
    ):
        with pytest.raises(SystemExit) as done:
            module.main(argv)
        assert done.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"usage: python -m {module.__name__} --config RECIPE.yaml")
        assert says in err and "Traceback" not in err and len(err.splitlines()) <= 4, err
