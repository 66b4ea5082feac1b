"""Every script's `if __name__ == "__main__":` block is its last statement: a function defined below
it does not exist yet when the block runs (bench_harness's `spin` section failed so on an H100, a
NameError only a GPU call met)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[2] / "scripts").glob("*.py"))


def _is_main_guard(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_the_main_guard_comes_last(script):
    body = ast.parse(script.read_text()).body
    guards = [i for i, node in enumerate(body) if _is_main_guard(node)]
    assert guards in ([], [len(body) - 1]), f"{script.name}: statements after its __main__ block"
