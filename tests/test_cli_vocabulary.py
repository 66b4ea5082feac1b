"""Every command line of the project speaks one vocabulary: the shared flags are spelled and described
the same way everywhere (benchmark.flags), the older spellings are hidden, and no --help names the
project's internal modules, files or classes. Walks each entry point's parser in-process."""

from __future__ import annotations

import argparse
import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.flags import API_KEY_ENV_HELP, DEPRECATED_SPELLINGS, DEVICE_HELP, DEVICES, QUIET_HELP

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("benchmark", "datasets_builder", "trainers", "leaderboard")
# Each `python -m` entry point and the function that builds its parser.
CLIS = {
    "benchmark.run": ("benchmark.run", "build_parser"),
    "benchmark.check": ("benchmark.check", "build_parser"),
    "benchmark.serve": ("benchmark.serve", "build_parser"),
    "benchmark.suite": ("benchmark.suite.cli", "build_parser"),
    "datasets_builder": ("datasets_builder.__main__", "build_parser"),
    "trainers.sft": ("trainers.sft", "parser"),
    "trainers.rl": ("trainers.rl", "parser"),
    "leaderboard.build": ("leaderboard.build", "build_parser"),
    "leaderboard.examples": ("leaderboard.examples", "build_parser"),
    "leaderboard.submit": ("leaderboard.submit", "build_parser"),
    "leaderboard.suites": ("leaderboard.suites", "build_parser"),
    "leaderboard.verify": ("leaderboard.verify", "build_parser"),
}
# Entry points that are not user commands: processes the harness starts itself, and the module
# behind `python -m benchmark.suite`.
NOT_COMMANDS = {"benchmark.evaluate.worker", "benchmark.evaluate.zygote", "benchmark.suite.cli"}
# Commands (or subcommands) that write something, and those that show progress bars.
WRITES = {
    "benchmark.run",
    "benchmark.suite validate",
    "benchmark.suite profile",
    "benchmark.suite manifest",
    "benchmark.suite docs",
    "benchmark.suite export",
    "datasets_builder build",
    "trainers.sft",
    "trainers.rl",
    "leaderboard.build",
    "leaderboard.examples",
    "leaderboard.submit",
}
SHOWS_PROGRESS = {
    "benchmark.run",
    "benchmark.suite validate",
    "benchmark.suite manifest",
    "datasets_builder build",
    "trainers.sft",
    "trainers.rl",
    "leaderboard.examples",
    "leaderboard.verify",
}
# Spellings of the shared ideas that no help may show (the shared ones are --out, --quiet, --api-key-env).
SYNONYMS = re.compile(r"--(output|out[-_]dir|output[-_]dir|no[-_]progress|progress|token[-_]env|.*secret.*)$")
CONTRACT_NAMES = {"ModelNew"}  # names a candidate must define: the user's terms, not internals


def _python_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "tasks" not in path.relative_to(ROOT / package).parts:
                yield path


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] in ("__init__", "__main__") else parts)


def _is_entry_point(path: Path) -> bool:
    if path.name == "__main__.py":
        return True
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            sides = [node.test.left, *node.test.comparators]
            if any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
                isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
            ):
                return True
    return False


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(command, parser) for every command and subcommand; the trainers' short --help as its parser."""
    for name, (module, builder) in CLIS.items():
        parser = getattr(importlib.import_module(module), builder)()
        if hasattr(parser, "summary_parser"):
            parser = parser.summary_parser()
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    yield f"{name} {sub}", subparser


@pytest.fixture(scope="module")
def walked() -> dict[str, argparse.ArgumentParser]:
    return dict(parsers())


def visible(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {
        option: action
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for option in action.option_strings
    }


def test_every_entry_point_is_walked():
    found = {_module(p) for p in _python_files() if _is_entry_point(p)}
    assert found - NOT_COMMANDS == set(CLIS), (
        "a new command line: add it to CLIS (and to WRITES/SHOWS_PROGRESS)"
    )


def test_the_shared_flags_are_spelled_and_described_once(walked):
    for command, parser in walked.items():
        options = visible(parser)
        hidden = sorted(o for o in options if o in DEPRECATED_SPELLINGS or SYNONYMS.match(o))
        assert not hidden, f"{command} shows {hidden}: spell it --out, --quiet or --api-key-env"
        if command in WRITES:
            assert "--out" in options, f"{command} writes, so it takes --out"
        if command in SHOWS_PROGRESS:
            assert "--quiet" in options, f"{command} shows progress, so --quiet turns it off"
        if "--quiet" in options:
            assert options["--quiet"].help.lower().startswith(QUIET_HELP), command
            assert options["--quiet"].nargs == 0, f"{command}: --quiet takes no value"
        if "--device" in options:
            assert tuple(options["--device"].choices) == DEVICES, command
            assert options["--device"].help.startswith(f"{DEVICE_HELP} (default: "), command
        if "--api-key-env" in options:
            assert options["--api-key-env"].help.startswith(API_KEY_ENV_HELP), command
            assert options["--api-key-env"].default, f"{command}: --api-key-env names a default variable"


def test_the_older_spellings_still_work_and_say_what_replaced_them(capsys):
    from benchmark.suite.cli import build_parser as suite_parser
    from datasets_builder.__main__ import build_parser as builder_parser
    from leaderboard.submit import build_parser as submit_parser

    args = suite_parser().parse_args(["validate", "--no-progress"])
    assert args.quiet is True
    assert capsys.readouterr().err == "warning: --no-progress is deprecated; use --quiet\n"
    assert suite_parser().parse_args(["docs", "--output", "page.md"]).out == Path("page.md")
    assert suite_parser().parse_args(["docs"]).out == Path("docs/suite.md")  # the alias leaves the default
    args = builder_parser().parse_args(["publish", "folder", "--repo", "o/n", "--token-env", "MY_TOKEN"])
    assert args.api_key_env == "MY_TOKEN"
    assert submit_parser().parse_args(["run", "--name", "m", "--out-dir", "subs"]).out == Path("subs")
    assert capsys.readouterr().err.count("is deprecated; use --") == 3


def _internal_names() -> tuple[set[str], set[str], set[str]]:
    """The project's module paths (less the commands'), its file names, and its class names made
    of several words."""
    modules, files, classes = set(), set(), set()
    for path in _python_files():
        module = _module(path)
        if module not in CLIS and module.count(".") > 0:
            modules.add(module)
        if path.stem not in ("__init__", "__main__"):
            files.add(path.name)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and re.fullmatch(r"_?[A-Z][a-z0-9]+[A-Z]\w*", node.name):
                classes.add(node.name.lstrip("_"))
    return modules, files, classes - CONTRACT_NAMES


def test_no_help_names_the_projects_internals(walked):
    modules, files, classes = _internal_names()
    assert {"benchmark.evaluate.harness", "schema.py", "EvalConfig"} <= modules | files | classes
    for command, parser in walked.items():
        text = parser.format_help()
        words = set(re.findall(r"[\w.]+", text))
        named = sorted(
            {m for m in modules if re.search(rf"(?<![\w/.]){re.escape(m)}(?![\w])", text)}
            | {f for f in files if re.search(rf"(?<![\w/.]){re.escape(f)}\b", text)}
            | (classes & {w.split(".")[0] for w in words})
        )
        assert not named, f"{command} --help names internals: {named}"
        if "MusaCoder" in text:
            assert "arXiv" in text, f"{command} --help names MusaCoder without saying what it is"


def test_the_suite_usage_names_every_subcommand(walked):
    usage = walked["benchmark.suite"].description
    for sub in (name.split()[1] for name in walked if name.startswith("benchmark.suite ")):
        assert f"python -m benchmark.suite {sub}" in usage
