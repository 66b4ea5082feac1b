"""Static analysis of candidate source (AST, with import aliases resolved).

Catches what is visible in the code: torch compute calls and torch.nn.functional, torch.compile,
subclassing the reference, try/except fallbacks, forbidden imports and calls, frame walking and
monkeypatching. Tensor *methods* (x.sum(), x @ w) cannot be typed statically; the runtime op
census (census.py) catches those, and C++ calls into torch, too."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from benchmark.anticheat.allowlist import (
    ALLOWED_IMPORTS,
    FORBIDDEN_IMPORT_ROOTS,
    FORBIDDEN_OS_ATTRS,
    TORCH_PLUMBING,
)

FORBIDDEN_BUILTINS = {
    "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "open", "breakpoint", "input", "delattr",
}
INTROSPECTION_ATTRS = {
    "f_back", "f_globals", "f_locals", "f_code", "f_builtins", "gi_frame", "cr_frame", "tb_frame", "tb_next",
    "__globals__", "__code__", "__closure__", "__subclasses__", "__bases__", "__mro__", "__dict__",
    "__builtins__", "__getattribute__", "__reduce__", "__reduce_ex__", "__self__", "__func__", "__wrapped__",
    "__loader__", "__spec__",
}
PRECISION_CALLS = {"torch.set_float32_matmul_precision", "torch.set_default_dtype", "torch.set_flush_denormal"}
TORCH_OK_PREFIXES = ("torch.utils.cpp_extension.", "torch.nn.", "torch.cuda.Stream", "torch.cuda.Event")


@dataclass(frozen=True)
class Finding:
    flag: str
    line: int
    detail: str

    def __str__(self) -> str:
        return f"{self.flag} (line {self.line}): {self.detail}"


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Analyzer(ast.NodeVisitor):
    def __init__(self):
        self.aliases: dict[str, str] = {}  # local name -> fully qualified module or object
        self.findings: list[Finding] = []
        self.in_init = 0

    def flag(self, flag: str, node: ast.AST, detail: str) -> None:
        self.findings.append(Finding(flag, getattr(node, "lineno", 0), detail))

    def resolve(self, node: ast.AST) -> str | None:
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            return self.aliases[head] + ("." + rest if rest else "")
        return dotted

    # imports
    def _check_module(self, module: str, node: ast.AST) -> None:
        if module in ALLOWED_IMPORTS:
            return
        parts = module.split(".")
        prefixes = {".".join(parts[: i + 1]) for i in range(len(parts))}
        if "torch.nn.functional" in prefixes:
            self.flag("torch_compute_op", node, f"imports {module}")
        elif prefixes & {"torch.jit", "torch._dynamo", "torch.compiler", "torch._inductor"}:
            self.flag("torch_compile", node, f"imports {module}")
        elif prefixes & FORBIDDEN_IMPORT_ROOTS:
            self.flag("forbidden_import", node, f"imports {module}")

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._check_module(a.name, node)
            self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        self._check_module(module, node)
        for a in node.names:
            full = f"{module}.{a.name}"
            if full in ALLOWED_IMPORTS or module in ALLOWED_IMPORTS and module != "torch":
                pass
            else:
                self._check_module(full, node)
            self.aliases[a.asname or a.name] = full

    # structure
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            name = _dotted(base) or ""
            if name.split(".")[-1] == "Model":
                self.flag("subclasses_reference", node, f"class {node.name} derives from the reference Model")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        init = node.name == "__init__"
        self.in_init += init
        self.generic_visit(node)
        self.in_init -= init

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Try(self, node: ast.Try) -> None:
        if node.handlers:
            self.flag("try_fallback", node, "try/except can fall back to another code path")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    # assignments: monkeypatching and precision settings
    def _check_target(self, target: ast.AST, node: ast.AST) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for t in target.elts:
                self._check_target(t, node)
            return
        if isinstance(target, ast.Name) and target.id == "ModelNew" and isinstance(node, ast.Assign):
            if isinstance(node.value, ast.Name) and node.value.id == "Model":
                self.flag("subclasses_reference", node, "ModelNew is the reference Model")
        if not isinstance(target, ast.Attribute):
            return
        root = target
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.aliases:
            full = self.resolve(target) or ""
            if full.startswith("torch.backends."):
                self.flag("precision_change", node, f"assigns {full}")
            else:
                self.flag("monkeypatch", node, f"assigns {full}")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._check_target(t, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_target(node.target, node)
        self.generic_visit(node)

    # attribute reads
    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in INTROSPECTION_ATTRS:
            self.flag("introspection", node, f"reads .{node.attr}")
        full = self.resolve(node) or ""
        if full.startswith("torch.nn.functional."):
            self.flag("torch_compute_op", node, f"uses {full}")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "__builtins__":
            self.flag("introspection", node, "reads __builtins__")

    # calls
    def visit_Call(self, node: ast.Call) -> None:
        full = self.resolve(node.func)
        if isinstance(node.func, ast.Name) and node.func.id not in self.aliases:
            name = node.func.id
            if name in FORBIDDEN_BUILTINS:
                self.flag("forbidden_call", node, f"calls {name}()")
            elif name == "setattr":
                target = self.resolve(node.args[0]) if node.args else None
                kind = "monkeypatch" if target and target.split(".")[0] in self.aliases.values() else "forbidden_call"
                self.flag(kind, node, "calls setattr()")
            elif name == "getattr" and len(node.args) >= 2:
                if not isinstance(node.args[1], ast.Constant):
                    self.flag("forbidden_call", node, "getattr with a computed name")
                else:
                    obj = self.resolve(node.args[0])
                    if obj:
                        self._check_qualified(f"{obj}.{node.args[1].value}", node)
        elif full:
            self._check_qualified(full, node)
        self.generic_visit(node)

    def _check_qualified(self, full: str, node: ast.AST) -> None:
        if full.startswith("os."):
            attr = full.split(".")[1]
            if attr in FORBIDDEN_OS_ATTRS or attr.startswith(("exec", "spawn")):
                self.flag("forbidden_call", node, f"calls {full}")
            return
        if not full.startswith("torch."):
            return
        if full in PRECISION_CALLS or full.startswith("torch.backends."):
            self.flag("precision_change", node, f"calls {full}")
        elif full == "torch.compile" or full.startswith(("torch.jit.", "torch._dynamo.", "torch.compiler.")):
            self.flag("torch_compile", node, f"calls {full}")  # anywhere, __init__ included
        elif self.in_init:
            return  # parameters may be initialised with any torch op
        elif full.startswith("torch.nn.functional."):
            pass  # already flagged as an attribute use
        elif full.startswith(TORCH_OK_PREFIXES):
            return
        else:
            rest = full[len("torch."):]
            if rest not in TORCH_PLUMBING and rest.split(".")[-1] not in TORCH_PLUMBING:
                self.flag("torch_compute_op", node, f"calls {full}")


def analyze(source: str) -> list[Finding]:
    """Findings for a candidate's source; empty for code that does not parse (the build reports that)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    analyzer = _Analyzer()
    analyzer.visit(tree)
    return analyzer.findings
