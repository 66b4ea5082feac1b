"""The Triton helper functions Inductor's kernels call (`triton_helpers.maximum`, `max2`, `welford`,
...), taken from the installed torch's own `torch/_inductor/runtime/triton_helpers.py` so that a
standalone candidate behaves exactly like the kernels that were generated against it.

The file is read as text and parsed, never imported, so this works on machines without Triton.
Each helper a kernel needs is copied with everything it depends on in that file, and renamed with
a `_ih_` prefix (a helper called `any` must not shadow the builtin in the candidate). Inside the
copies, `math` (Triton's math module there) becomes `tl_math` and `pymath` (Python's) becomes
`math`, which are the names a candidate file defines. Non-JIT helpers (Triton builtins) cannot be
copied into a candidate; asking for one raises HelperError."""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PREFIX = "_ih_"
MODULE = "torch._inductor.runtime.triton_helpers"
# Names the helpers file imports, and what a candidate calls them.
IMPORTED = {"math": "tl_math", "pymath": "math", "tl": "tl", "triton": "triton", "libdevice": "libdevice"}


class HelperError(ValueError):
    """A kernel needs a helper that cannot be part of a standalone candidate."""


@dataclass(frozen=True)
class _Definition:
    name: str
    node: ast.stmt
    jit: bool  # a @triton.jit function (or a module-level constant when not a function)


def helpers_path() -> Path:
    spec = importlib.util.find_spec(MODULE)
    if spec is None or spec.origin is None:
        raise HelperError(f"cannot find {MODULE} in the installed torch")
    return Path(spec.origin)


def _is_jit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) in ("triton.jit", "jit")


@cache
def _definitions(path: Path) -> dict[str, _Definition]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: dict[str, _Definition] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = _Definition(node.name, node, jit=any(_is_jit(d) for d in node.decorator_list))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = _Definition(node.target.id, node, jit=True)
        elif (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            found[node.targets[0].id] = _Definition(node.targets[0].id, node, jit=True)
    return found


def _local_names(node: ast.AST) -> set[str]:
    """Arguments and assigned names of a function: never renamed, whatever they shadow."""
    names: set[str] = set()
    if isinstance(node, ast.FunctionDef):
        args = node.args
        names |= {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def _free_names(node: ast.AST) -> set[str]:
    local = _local_names(node)
    body = node.body if isinstance(node, ast.FunctionDef) else [node]
    return {
        n.id
        for stmt in body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local
    }


class _Renamer(ast.NodeTransformer):
    def __init__(self, helpers: set[str], local: set[str]):
        self.helpers = helpers
        self.local = local

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.local:
            return node
        if node.id in self.helpers:
            return ast.copy_location(ast.Name(PREFIX + node.id, node.ctx), node)
        if node.id in IMPORTED:
            return ast.copy_location(ast.Name(IMPORTED[node.id], node.ctx), node)
        return node


def helper_name(name: str) -> str:
    return PREFIX + name


def helper_source(names: set[str], path: Path | None = None) -> str:
    """Source text defining every helper in `names` (without prefix) and what they depend on."""
    defs = _definitions(path or helpers_path())
    needed: dict[str, _Definition] = {}
    stack = sorted(names)
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        d = defs.get(name)
        if d is None:
            raise HelperError(f"triton_helpers.{name} does not exist in {MODULE} of the installed torch")
        if not d.jit:
            raise HelperError(f"triton_helpers.{name} is not a @triton.jit function and cannot be copied")
        needed[name] = d
        stack.extend(sorted(n for n in _free_names(d.node) if n in defs and n not in IMPORTED))
    order = list(defs)
    chunks = []
    for name in sorted(needed, key=order.index):
        node = needed[name].node
        local = _local_names(node) if isinstance(node, ast.FunctionDef) else set()
        renamed = _Renamer(set(needed), local).visit(ast.parse(ast.unparse(node)).body[0])
        if isinstance(renamed, ast.FunctionDef):
            renamed.name = PREFIX + renamed.name
        elif isinstance(renamed, ast.AnnAssign):
            renamed.target = ast.Name(PREFIX + name, ast.Store())
        else:
            renamed.targets = [ast.Name(PREFIX + name, ast.Store())]
        chunks.append(ast.unparse(ast.fix_missing_locations(renamed)))
    return "\n\n\n".join(chunks)
