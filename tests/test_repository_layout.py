"""The wings of the repository keep apart: no module under scripts/ or experiments/ edits sys.path;
experiments/ (not installed, run from the root as `python -m experiments.NAME`) imports the packages
and itself, never a script; a script, run as a file where experiments/ is not on the path, never
imports experiments/; no package or experiment has an import circle, and none imports another
package's private names; the evaluation of one sample needs neither the suite nor the verifier."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
EXPERIMENTS = ROOT / "experiments"


def _sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _edits_sys_path(tree: ast.AST) -> list[int]:
    """Lines that change sys.path: a call of one of its methods, an assignment to it or an item of
    it, or site.addsitedir."""

    def is_sys_path(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        )

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if is_sys_path(node.func.value) or (
                node.func.attr == "addsitedir"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "site"
            ):
                lines.append(node.lineno)
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if is_sys_path(target) or (isinstance(target, ast.Subscript) and is_sys_path(target.value)):
                lines.append(node.lineno)
    return sorted(lines)


def _imported(tree: ast.AST) -> set[str]:
    """Absolute module names a module imports, anywhere in it (functions included), except under
    `if TYPE_CHECKING:` (names for the type checker, never imported when run)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("folder", [SCRIPTS, EXPERIMENTS], ids=["scripts", "experiments"])
def test_no_module_edits_sys_path(folder):
    found = {
        str(p.relative_to(ROOT)): lines
        for p in _sources(folder)
        if (lines := _edits_sys_path(ast.parse(p.read_text())))
    }
    assert not found, found


def test_the_sys_path_finder_finds_each_kind_of_edit():
    source = """
import site, sys
sys.path.insert(0, "a")
sys.path.append("b")
sys.path = ["c"]
sys.path[0] = "d"
sys.path += ["e"]
site.addsitedir("f")
print(sys.path)
"""
    assert _edits_sys_path(ast.parse(source)) == [3, 4, 5, 6, 7, 8]


def test_experiments_import_no_script():
    scripts = {p.stem for p in _sources(SCRIPTS)}
    wrong = {
        str(p.relative_to(ROOT)): sorted(names)
        for p in _sources(EXPERIMENTS)
        if (names := {n for n in _imported(ast.parse(p.read_text())) if n.split(".")[0] in scripts})
    }
    assert not wrong, wrong
    # and nothing they import resolves to a file under scripts/ (tests put scripts/ on the path)
    for p in _sources(EXPERIMENTS):
        for name in _imported(ast.parse(p.read_text())):
            top = name.split(".")[0]
            spec = importlib.util.find_spec(top) if top not in sys.builtin_module_names else None
            origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
            assert origin is None or SCRIPTS not in origin.parents, (p, name, origin)


def test_scripts_import_no_experiment():
    """A script runs as a file (`python scripts/X.py`), where the repository root, and so experiments/,
    is not on the path."""
    wrong = {
        str(p.relative_to(ROOT)): sorted(names)
        for p in _sources(SCRIPTS)
        if (names := {n for n in _imported(ast.parse(p.read_text())) if n.split(".")[0] == "experiments"})
    }
    assert not wrong, wrong


PACKAGES = ("benchmark", "datasets_builder", "trainers", "leaderboard", "experiments")


def _tree_modules() -> dict[str, Path]:
    """Every module of the packages and the experiments, the suite's task files aside."""
    return {
        _module_name(p): p
        for top in PACKAGES
        for p in _sources(ROOT / top)
        if not p.is_relative_to(ROOT / "benchmark" / "tasks")
    }


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """Module -> the modules of the tree it imports."""
    names = _tree_modules()
    return {m: _imported(ast.parse(p.read_text())) & set(names) - {m} for m, p in names.items()}


def test_no_import_circle_anywhere(graph):
    _assert_acyclic(graph)


def test_the_evaluation_of_one_sample_needs_neither_the_suite_nor_the_verifier(graph):
    wrong = {
        (m, n)
        for m, deps in graph.items()
        if m.startswith("benchmark.evaluate")
        for n in deps
        if n.startswith(("benchmark.suite", "benchmark.verify"))
    }
    assert not wrong, wrong


def test_the_childs_entry_point_is_imported_by_nothing_but_the_zygote(graph):
    """The sandbox child's entry point imports the rest but is imported by nothing (the zygote, which
    runs it in a forked child, aside)."""
    importers = {m for m, deps in graph.items() if "benchmark.evaluate.worker" in deps}
    assert importers <= {"benchmark.evaluate.zygote"}, importers


def test_the_circle_check_finds_one():
    with pytest.raises(AssertionError, match="a -> b -> a"):
        _assert_acyclic({"a": {"b"}, "b": {"a"}})


def test_no_private_name_is_imported_from_another_package():
    """`from X import _name` only within X's own top-level package: what another package needs is public."""
    wrong = []
    for module, path in _tree_modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
                continue
            top = node.module.split(".")[0]
            if top not in PACKAGES or top == module.split(".")[0]:
                continue
            wrong += [f"{module}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert not wrong, wrong


def _assert_acyclic(graph: dict[str, set[str]]) -> None:
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> list[str] | None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return [*path, m, n]
            if n not in state and (found := visit(n, [*path, m])):
                return found
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [])
            assert found is None, " -> ".join(found)


@pytest.mark.slow
def test_an_experiment_runs_from_the_root_without_being_installed():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "experiments.compare_runs", "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:")
