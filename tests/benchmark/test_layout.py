"""The package layout holds: no import circle inside benchmark/, the evaluation never imports the suite
or the verifier, and the sandbox child's entry point imports the rest but is imported by nothing
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


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return path[path.index(n) :] + [n]
            if n not in state and (found := visit(n)):
                return found
        state[m] = 2
        path.pop()
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_circle(graph):
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


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
