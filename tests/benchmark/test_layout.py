"""The package layout holds (import circles: tests/test_repository_layout.py): the evaluation never
imports the suite or the verifier, and the sandbox child's entry point imports the rest but is imported by nothing
(the zygote, which runs it in a forked child, aside)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "benchmark"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST, known: set[str]) -> set[str]:
    """Modules of `known` a module imports, anywhere in it, except under `if TYPE_CHECKING:`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found & known


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    files = [p for p in PACKAGE.rglob("*.py") if "tasks" not in p.relative_to(PACKAGE).parts]
    names = {_module_name(p): p for p in files}
    return {m: _imports(ast.parse(p.read_text()), set(names)) - {m} for m, p in names.items()}


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
    importers = {m for m, deps in graph.items() if "benchmark.evaluate.worker" in deps}
    assert importers <= {"benchmark.evaluate.zygote"}, importers
