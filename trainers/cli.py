"""The command line both trainers share: recipes in (TRL's parser) and out (the resolved YAML).

`KernelParser` is TRL's `TrlParser` over the trainer's dataclasses (TRL's script arguments, the
trainer config, TRL's model config), so `--config RECIPE.yaml` sets every field and a flag of the
same name overrides it; the recipe's values are checked against the fields' types. Its `--help`
lists `--config` and the project's own options only; the thousand-odd Hugging Face options are
behind `--help-all`. The flags every command line of the project shares are there too: `--out` for
`output_dir` and `--quiet` for `disable_tqdm`. `save_recipe` writes the fields that differ from
their defaults back as a recipe that `--config` replays.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import logging
import sys
import typing
import warnings
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import pydantic
import yaml
from transformers import TrainingArguments
from trl import ModelConfig, ScriptArguments, TrlParser

from benchmark.flags import QUIET_HELP

# The help's group of a trainer dataclass's own fields, by what it extends.
GROUP_TITLES = (
    (ScriptArguments, "data options"),
    (TrainingArguments, "training options"),
    (ModelConfig, "model options"),
)
# What the help says of the paper whose settings the defaults follow, where a field names it.
MUSACODER = (
    "MusaCoder, where a field names it: the published settings of the MusaCoder paper "
    "(arXiv 2606.04847), whose recipe these defaults follow."
)


class _HelpAll(argparse.Action):
    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(parser.format_full_help())
        parser.exit()


class KernelParser(TrlParser):
    """TRL's parser with a short `--help`: `--config`, then `common` fields, then the project's own
    (those the given dataclasses declare themselves rather than inherit from TRL or transformers)."""

    def __init__(self, dataclass_types, prog: str, description: str, common: tuple[str, ...] = ()):
        super().__init__(dataclass_types=dataclass_types, prog=prog, description=description)
        self.add_argument(
            "--help-all", action=_HelpAll, help="Show every option (TRL's and transformers' too) and exit."
        )
        # The project's shared spellings, beside the Hugging Face field names they set.
        self._shared = {}
        dests = {action.dest for action in self._actions}
        if "output_dir" in dests:
            self._shared["output_dir"] = self.add_argument(
                "--out",
                dest="output_dir",
                default=argparse.SUPPRESS,
                metavar="DIR",
                help="Output folder: checkpoints and the final model (the field output_dir).",
            )
        if "disable_tqdm" in dests:
            self._shared["disable_tqdm"] = self.add_argument(
                "--quiet",
                dest="disable_tqdm",
                action="store_const",
                const=True,
                default=argparse.SUPPRESS,
                help=f"{QUIET_HELP.capitalize()} (the field disable_tqdm).",
            )
        self._common = (*common, *(name for name in self._shared if name not in common))
        self._own = [
            (
                _group_title(cls),
                [name for name in cls.__dict__.get("__annotations__", {}) if name not in self._common],
            )
            for cls in dataclass_types
            if cls.__module__.startswith("trainers.")
        ]

    def set_defaults_with_config(self, **values) -> list[str]:
        """Check a recipe's values against their fields' types (pydantic, strict) before TRL makes them
        the defaults: TRL passes YAML values through unchecked, so `lora_r: 8.5` would reach the run.
        Strings are left to argparse, which converts them with the field's type as it does flags."""
        hints = {}
        for cls in self.dataclass_types:
            hints.update(typing.get_type_hints(cls))
        for name, value in values.items():
            if name not in hints or isinstance(value, str):
                continue
            try:
                validator = pydantic.TypeAdapter(hints[name])
            except pydantic.PydanticSchemaGenerationError:
                continue  # a type pydantic cannot describe: left to TRL, as before
            try:
                validator.validate_python(value, strict=True)
            except pydantic.ValidationError as e:
                reason = e.errors()[0]["msg"].lower()
                raise ValueError(f"recipe field {name}: {reason}, got {value!r}") from None
        return super().set_defaults_with_config(**values)

    def format_full_help(self) -> str:
        return super().format_help()

    def format_help(self) -> str:
        return self.summary_parser().format_help()

    def format_usage(self) -> str:  # the short usage line above an error, not every field's flag
        return self.summary_parser().format_usage()

    def summary_parser(self) -> argparse.ArgumentParser:
        """The short --help as a parser of its own: --config, the common options, the project's own."""
        epilog = "Every field of TRL's and transformers' configs is an option too: --help-all lists them."
        if any("MusaCoder" in (action.help or "") for action in self._actions):
            epilog = f"{MUSACODER} {epilog}"
        summary = argparse.ArgumentParser(
            prog=self.prog,
            usage=f"{self.prog} --config RECIPE.yaml [--FIELD VALUE ...]",
            description=self.description,
            epilog=epilog,
            formatter_class=argparse.ArgumentDefaultsHelpFormatter,
            add_help=False,
        )
        summary.add_argument(
            "--config",
            metavar="RECIPE.yaml",
            default=argparse.SUPPRESS,
            help="YAML recipe setting any field below or in --help-all (configs/); flags override it.",
        )
        actions = {}
        for action in self._actions:  # the first action of a field (not its --no_FIELD), under one name
            if action.dest not in actions:
                actions[action.dest] = copy.copy(action)
                actions[action.dest].option_strings = action.option_strings[:1]
        # a field with a shared spelling is shown under it
        actions.update({name: copy.copy(action) for name, action in self._shared.items()})
        groups = [("common options", list(self._common)), *self._own]
        for title, names in groups:
            chosen = [actions[name] for name in names if name in actions]
            if chosen:
                group = summary.add_argument_group(title)
                for action in chosen:
                    group._add_action(action)
        for flags, text in (
            (("-h", "--help"), "Show this message and exit."),
            (("--help-all",), "Show every option and exit."),
        ):
            summary.add_argument(*flags, action="store_true", default=argparse.SUPPRESS, help=text)
        return summary


def _group_title(cls: type) -> str:
    return next((title for base, title in GROUP_TITLES if issubclass(cls, base)), "other options")


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _default(f: dataclasses.Field) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default if f.default is not dataclasses.MISSING else None


def _overrides(config: Any) -> dict[str, Any]:
    current = config.to_dict() if hasattr(config, "to_dict") else dataclasses.asdict(config)
    out = {}
    for f in sorted(dataclasses.fields(config), key=lambda f: f.name):
        if not f.init or f.name not in current:
            continue
        default = _default(f)
        value = _plain(current[f.name])
        if f.name == "accelerator_config" and isinstance(value, dict):
            from transformers.trainer_pt_utils import AcceleratorConfig

            default = {k: v for k, v in AcceleratorConfig().to_dict().items() if k in value}
        # Values __post_init__ derives from an unset default (None, "auto") need not be written.
        derived_empty = value in (None, [], {}) and default in (None, "auto", "", [])
        if (
            derived_empty
            or value == _plain(default)
            or (isinstance(value, list) and [_plain(default)] == value)
            or [value] == _plain(default)  # a one-element default that __post_init__ unwraps
        ):
            continue
        if isinstance(value, str) and value.startswith("<") and value.endswith(">"):
            continue  # secrets that to_dict masks (hub_token)
        out[f.name] = value
    if hasattr(config, "output_dir"):
        out["output_dir"] = config.output_dir
    return out


def config_overrides(*configs: Any) -> dict[str, Any]:
    """The init fields of `configs` whose values differ from their defaults, as plain YAML-able values."""
    out = {}
    for config in configs:
        out.update(_overrides(config))
    # transformers 5.24 renamed gradient_checkpointing* to activation_checkpointing*; the old names
    # are read by every 5.x, so a saved recipe replays on older installs too.
    renames = (
        ("activation_checkpointing", "gradient_checkpointing"),
        ("activation_checkpointing_kwargs", "gradient_checkpointing_kwargs"),
    )
    for new, old in renames:
        if new in out:
            out[old] = out.pop(new)
    return out


def save_recipe(path: str | Path, *configs: Any) -> Path:
    """Write the non-default fields of `configs` as a YAML recipe that `--config` reads back."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config_overrides(*configs), sort_keys=True))
    return path


def run_command(parser: KernelParser, train: Callable[..., Path], argv: list[str] | None = None) -> Path:
    """A trainer's `main`: logging, its command line and config file parsed, then `train` on the
    parsed dataclasses; returns what `train` returns (the saved model's folder)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return train(*parse_command(parser, argv))


def parse_command(parser: KernelParser, argv: list[str] | None = None) -> tuple:
    """The parsed dataclasses, or the usage and a one-line error (exit status 2) for what the user got
    wrong: nothing given (a recipe or its fields as flags), a recipe file that is not there, an unknown
    flag, a value its field refuses (TRL and transformers raise ValueError for the last two, which
    would otherwise be a traceback)."""
    if not (sys.argv[1:] if argv is None else argv):
        parser.error("give a recipe: --config RECIPE.yaml (configs/sft, configs/rl) or its fields as flags")
    try:
        with warnings.catch_warnings():
            # TRL's configs default gradient_checkpointing, which transformers >= 5.24 warns of on every run
            warnings.filterwarnings("ignore", "`gradient_checkpointing` is deprecated", FutureWarning)
            return parser.parse_args_and_config(argv)
    except FileNotFoundError as e:  # the only file the parser opens is --config's
        parser.error(f"no such recipe file: {e.filename}")
    except ValueError as e:
        parser.error(str(e).strip().splitlines()[0])
