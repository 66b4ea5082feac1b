"""The shared flags: one spelling and help each, and older spellings as hidden aliases that warn."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from benchmark.flags import DEVICE_HELP, QUIET_HELP, add_api_key_env, add_device, add_out, add_quiet


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tool")
    add_out(p, "where it goes", old=("--output", "--out-dir"))
    add_quiet(p, old=("--no-progress",))
    add_device(p)
    add_api_key_env(p, default="TOOL_KEY", secret="the tool's key", old=("--token-env",))
    return p


def test_the_shared_spellings_and_their_defaults():
    args = parser().parse_args([])
    assert (args.out, args.quiet, args.device, args.api_key_env) == (None, False, None, "TOOL_KEY")
    args = parser().parse_args(["--out", "o", "--quiet", "--device", "cpu", "--api-key-env", "K"])
    assert (args.out, args.quiet, args.device, args.api_key_env) == (Path("o"), True, "cpu", "K")


@pytest.mark.parametrize(
    ("old", "field", "value"),
    [
        (["--output", "o"], "out", Path("o")),
        (["--out-dir", "o"], "out", Path("o")),
        (["--no-progress"], "quiet", True),
        (["--token-env", "K"], "api_key_env", "K"),
    ],
)
def test_an_older_spelling_does_the_same_after_one_line_of_warning(old, field, value, capsys):
    assert getattr(parser().parse_args(old), field) == value
    new = {"out": "--out", "quiet": "--quiet", "api_key_env": "--api-key-env"}[field]
    assert capsys.readouterr().err == f"warning: {old[0]} is deprecated; use {new}\n"


def test_help_shows_only_the_shared_spellings():
    text = parser().format_help()
    assert "--output" not in text and "--out-dir" not in text and "--no-progress" not in text
    assert "--token-env" not in text
    assert QUIET_HELP in text and f"{DEVICE_HELP} (default: cuda when available)" in " ".join(text.split())
    assert "environment variable holding the tool's key (default: TOOL_KEY)" in " ".join(text.split())
