"""The evaluation flags benchmark.run and benchmark.check share give the EvalConfig they name."""

from __future__ import annotations

import argparse

from benchmark.evaluate.arguments import add_evaluation_arguments, eval_config
from benchmark.evaluate.harness import EvalConfig


def parse(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_evaluation_arguments(p)
    return p.parse_args(argv)


def test_defaults_are_the_eval_configs():
    assert eval_config(parse(), "cpu") == EvalConfig(device="cpu")


def test_each_flag_reaches_its_field():
    args = parse(
        "--baseline",
        "compile",
        "--trials",
        "3",
        "--timeout",
        "9",
        "--build-timeout",
        "7",
        "--no-strict",
        "--no-timing",
    )
    cfg = eval_config(args, "cuda")
    assert (cfg.device, cfg.baseline, cfg.trials, cfg.timeout_s, cfg.build_timeout_s) == (
        "cuda",
        "compile",
        3,
        9.0,
        7.0,
    )
    assert not cfg.strict and not cfg.measure


def test_benchmark_run_builds_its_eval_config_from_them():
    from benchmark.run import config_from_args, parse_args

    argv = ["--model", "reference", "--device", "cpu", "--trials", "2", "--no-timing", "--build-timeout", "5"]
    cfg = config_from_args(parse_args(argv), argv)
    assert cfg.eval == eval_config(parse("--trials", "2", "--no-timing", "--build-timeout", "5"), "cpu")
