"""experiments.rl_demo.sft_training: the weights digest and reproducible training."""

from __future__ import annotations

import os

from experiments.rl_demo import (
    sft_training,
)


def test_the_weights_digest_sees_every_tensor_and_nothing_else(tmp_path):
    import torch

    from experiments.synthetic import build_model, build_tokenizer, save_model_folder

    tokenizer = build_tokenizer()
    model = build_model(len(tokenizer), seed=0)
    first = sft_training.weights_digest(save_model_folder(model, tokenizer, tmp_path / "a"))
    assert sft_training.weights_digest(save_model_folder(model, tokenizer, tmp_path / "b")) == first
    assert (
        sft_training.weights_digest(
            save_model_folder(build_model(len(tokenizer), seed=1), tokenizer, tmp_path / "c")
        )
        != first
    )
    with torch.no_grad():
        model.model.norm.weight[0] += 1e-3
    assert sft_training.weights_digest(save_model_folder(model, tokenizer, tmp_path / "d")) != first


def test_reproducible_training_asks_for_deterministic_kernels_and_gives_the_settings_back(monkeypatch):
    import torch

    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    cuda = torch.backends.cuda
    assert not torch.are_deterministic_algorithms_enabled() and cuda.flash_sdp_enabled()
    with sft_training.reproducible_training():
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.is_deterministic_algorithms_warn_only_enabled()
        assert (
            cuda.math_sdp_enabled() and not cuda.flash_sdp_enabled() and not cuda.mem_efficient_sdp_enabled()
        )
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert not torch.are_deterministic_algorithms_enabled() and cuda.flash_sdp_enabled()
