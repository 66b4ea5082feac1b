"""The trainers' command line: a short --help that leads with --config and the project's options,
and --help-all with every TRL and transformers option."""

from __future__ import annotations

import pytest

from trainers import rl, sft


@pytest.mark.parametrize(
    ("module", "own", "inherited"),
    [
        (sft, ["--cuset_mask_threshold", "--overlong", "--max_train_samples", "--merge_lora"], "--dataloader_prefetch_factor"),
        (rl, ["--primeecho_turns", "--bdr_replay_prob", "--mirrorpop_delta", "--suite", "--merge_lora"], "--vllm_gpu_memory_utilization"),
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
    assert set(own) <= set(options) and {"--model_name_or_path", "--output_dir"} <= set(options)
    assert inherited not in text, "TRL's and transformers' own options belong to --help-all"
    assert "--help-all" in text and len(text.splitlines()) < 250

    with pytest.raises(SystemExit) as done:
        module.main(["--help-all"])
    assert done.value.code == 0
    full = capsys.readouterr().out
    assert full.startswith(f"usage: python -m {name}")
    assert inherited in full and own[0] in full and len(full.splitlines()) > 3 * len(text.splitlines())
