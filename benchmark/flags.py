"""The flags every command line of the project shares, spelled and described once.

One vocabulary across the entry points: `--out` names what a command writes (a folder, or the one
file it writes), `--quiet` turns progress bars off, `--api-key-env` names the environment variable
that holds a secret, and `--device` says where the work runs. An older spelling stays accepted as a
hidden alias that prints a one-line deprecation warning, so existing scripts keep working."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

DEVICES = ("cpu", "cuda")
DEVICE_HELP = "device the work runs on: cpu or cuda"
QUIET_HELP = "no progress bars"
API_KEY_ENV_HELP = "environment variable holding"
SUITE_HELP = "folder of task files, or hf:ORG/NAME[@REV] (default: the built-in suite)"
# Spellings no command line shows any more; each stays accepted where it was, as a deprecated alias.
DEPRECATED_SPELLINGS = ("--output", "--out-dir", "--no-progress", "--token-env")

Parser = argparse.ArgumentParser | argparse._ArgumentGroup


class _DeprecatedAlias(argparse.Action):
    """An older spelling of `target`: does what `target` does, after a one-line warning on stderr."""

    def __init__(self, option_strings, dest, target: argparse.Action, **kwargs):
        super().__init__(
            option_strings,
            dest,
            nargs=target.nargs,
            const=target.const,
            default=argparse.SUPPRESS,
            type=target.type,
            choices=target.choices,
            help=argparse.SUPPRESS,
            metavar=target.metavar,
        )
        self.target = target

    def __call__(self, parser, namespace, values, option_string=None):
        new = self.target.option_strings[0]
        print(f"warning: {option_string} is deprecated; use {new}", file=sys.stderr)
        self.target(parser, namespace, values, new)


def deprecate(parser: Parser, old: Sequence[str], target: argparse.Action) -> None:
    """Accept each spelling in `old` as a hidden, warning alias of `target`."""
    for spelling in old:
        parser.add_argument(spelling, action=_DeprecatedAlias, dest=target.dest, target=target)


def add_out(
    parser: Parser,
    help: str,
    *,
    default: Path | None = None,
    required: bool = False,
    old: Sequence[str] = (),
) -> argparse.Action:
    """`--out PATH`: where the command writes; `help` says what goes there (and the default)."""
    action = parser.add_argument(
        "--out", type=Path, default=default, required=required, metavar="PATH", help=help
    )
    deprecate(parser, old, action)
    return action


def add_quiet(parser: Parser, *, old: Sequence[str] = ()) -> argparse.Action:
    """`--quiet`: no progress bars."""
    action = parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    deprecate(parser, old, action)
    return action


def add_device(
    parser: Parser, *, default_text: str = "cuda when available", old: Sequence[str] = ()
) -> argparse.Action:
    """`--device cpu|cuda`, None when not given (the caller resolves the default it describes)."""
    action = parser.add_argument(
        "--device", choices=DEVICES, default=None, help=f"{DEVICE_HELP} (default: {default_text})"
    )
    deprecate(parser, old, action)
    return action


def add_api_key_env(parser: Parser, *, default: str, secret: str, old: Sequence[str] = ()) -> argparse.Action:
    """`--api-key-env NAME`: the environment variable holding `secret` (the secret itself is never a flag,
    so it stays out of shell histories and process lists)."""
    action = parser.add_argument(
        "--api-key-env",
        default=default,
        metavar="NAME",
        help=f"{API_KEY_ENV_HELP} {secret} (default: {default})",
    )
    deprecate(parser, old, action)
    return action
