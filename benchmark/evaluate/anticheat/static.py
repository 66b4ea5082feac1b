"""Static analysis of candidate source (AST, with import aliases resolved).

Catches what is visible in the code: torch compute calls and torch.nn.functional, torch.compile,
subclassing the reference, try/except fallbacks, forbidden imports and calls, frame walking and
monkeypatching. Tensor *methods* (x.sum(), x @ w) cannot be typed statically; the runtime op
census (census.py) catches those, and C++ calls into torch, too.

Only code the candidate executes is judged, so that answers in KernelBench's format (a copied
reference `Model`, `get_inputs()` calling `torch.rand`, an unused `import torch.nn.functional as F`,
a `__main__` block) are not flagged for code that never runs in the harness:
- everything that runs at import: module-level statements, class bodies, decorators, default
  values and annotations, including every module-level import (importing executes code, so a
  forbidden import is a finding even when unused);
- the bodies of functions and classes reached from `class ModelNew` (and from code that runs at
  import) through names, attribute names or string constants, transitively; a decorated function
  is judged where it stands, since its decorator can hand it on without naming it;
- not judged: unreached definitions and the body of `if __name__ == "__main__":` (the harness
  imports the candidate under another name), unless the file rebinds `__name__`.

A Helion kernel (a function decorated with `helion.kernel`) is Python whose device code, the bodies
of its `hl.tile`/`hl.grid` loops, Helion traces and lowers into one Triton kernel: torch operators
there are the kernel language and are allowed; the rest of the function runs on the host as plain
PyTorch and is judged like forward. Only Helion's public API may be named (allowlist.HELION_API).

The native sources the file compiles (C/C++/CUDA strings, PTX, build flags) are judged by native.py,
wherever in the file they are, and their findings are returned with these."""

from __future__ import annotations

import ast

from benchmark.evaluate.anticheat import native
from benchmark.evaluate.anticheat.allowlist import (
    ALLOWED_IMPORTS,
    FORBIDDEN_IMPORT_ROOTS,
    FORBIDDEN_OS_ATTRS,
    HELION_API,
    HELION_DECORATORS,
    HELION_DEVICE_LOOPS,
    HELION_LANGUAGE,
    TORCH_PLUMBING,
)
from benchmark.evaluate.anticheat.findings import Finding
from benchmark.evaluate.anticheat.findings import dotted as _dotted

FORBIDDEN_BUILTINS = {
    "exec",
    "eval",
    "compile",
    "__import__",
    "globals",
    "locals",
    "vars",
    "open",
    "breakpoint",
    "input",
    "delattr",
}
INTROSPECTION_ATTRS = {
    "f_back",
    "f_globals",
    "f_locals",
    "f_code",
    "f_builtins",
    "gi_frame",
    "cr_frame",
    "tb_frame",
    "tb_next",
    "__globals__",
    "__code__",
    "__closure__",
    "__subclasses__",
    "__bases__",
    "__mro__",
    "__dict__",
    "__builtins__",
    "__getattribute__",
    "__reduce__",
    "__reduce_ex__",
    "__self__",
    "__func__",
    "__wrapped__",
    "__loader__",
    "__spec__",
}
PRECISION_CALLS = {
    "torch.set_float32_matmul_precision",
    "torch.set_default_dtype",
    "torch.set_flush_denormal",
}
TORCH_OK_PREFIXES = ("torch.utils.cpp_extension.", "torch.nn.", "torch.cuda.Stream", "torch.cuda.Event")
FUNCTIONAL = "torch.nn.functional"
# Decorators that keep the function in its class: such a method is judged when its class is reached.
PLAIN_DECORATORS = {"staticmethod", "classmethod", "property"}
COMPUTED_NAME_CALLS = {"operator.attrgetter", "operator.methodcaller"}


def canonical(full: str) -> str:
    """`full` named as what it is, where it reaches torch or torch.nn.functional through one of
    torch.nn's submodules, which import them under their own names: torch.nn.modules.module.torch
    is torch, so `torch.nn.modules.module.torch.enable_grad` is `torch.enable_grad` and
    `torch.nn.modules.conv.F.conv2d` is `torch.nn.functional.conv2d` (else the `torch.nn.` prefix
    the rules allow would let any torch function through). Only attributes of torch's own modules
    are looked up; a name that does not resolve is left as it is."""
    parts = full.split(".")
    if len(parts) < 4 or parts[:2] != ["torch", "nn"]:
        return full
    import types

    import torch

    obj: object = torch
    for i, part in enumerate(parts[1:], start=1):
        if not isinstance(obj, types.ModuleType) or not obj.__name__.startswith("torch"):
            return full  # past torch's modules: a class or function's attribute is not followed
        obj = getattr(obj, part, None)
        if obj is None:
            return full
        here = ".".join(parts[: i + 1])
        if isinstance(obj, types.ModuleType) and obj.__name__ != here:
            return canonical(".".join([obj.__name__, *parts[i + 1 :]]))
        home, name = getattr(obj, "__module__", None), getattr(obj, "__name__", None)
        last = i == len(parts) - 1
        if last and callable(obj) and isinstance(home, str) and isinstance(name, str):
            parent = ".".join(parts[:i])
            if home.startswith("torch") and parent not in (home, FUNCTIONAL):
                return f"{home}.{name}"  # a torch function imported by name into a torch.nn module
    return full


def _is_main_guard(test: ast.AST) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(mains) == 1


def _rebinds_name(tree: ast.AST) -> bool:
    """Whether any statement could bind `__name__`, which would let a `__main__` block run on import."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "__name__" and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Global | ast.Nonlocal) and "__name__" in node.names:
            return True
        bound = (getattr(node, "name", None), getattr(node, "asname", None), getattr(node, "rest", None))
        if "__name__" in bound:
            return True
    return False


def helion_internal(full: str) -> bool:
    """Whether a dotted name reaches past Helion's public API (`helion.runtime...`, `hl.loops.torch`)."""
    parts = full.split(".")
    if parts[0] != "helion" or len(parts) < 2:
        return False
    if parts[1] not in HELION_API:
        return True
    return parts[1] == "language" and len(parts) > 2 and parts[2] not in HELION_LANGUAGE


def _plain_decorators(decorators: list[ast.expr]) -> bool:
    return all(isinstance(d, ast.Name) and d.id in PLAIN_DECORATORS for d in decorators)


class _Analyzer(ast.NodeVisitor):
    """Visits what runs at import; defers function bodies until their name is reached (see analyze)."""

    def __init__(self, main_guard_skippable: bool):
        self.aliases: dict[str, str] = {}  # local name -> fully qualified module or object
        self.findings: list[Finding] = []
        self.in_init = 0
        self.in_body = 0  # > 0 while judging a function body: everything in it is judged at once
        self.owner: str | None = None  # the module-level class whose body is being visited
        self.deferred: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.pending: dict[str, list[Finding]] = {}  # findings that count only if their owner is reached
        self.referenced: set[str] = {"ModelNew"}
        self.attr_bases: set[int] = set()
        self.main_guard_skippable = main_guard_skippable
        self.helion_kernel = 0  # > 0 inside the body of a Helion kernel
        self.device_code = 0  # > 0 inside a Helion kernel's device loops (see HELION_DEVICE_LOOPS)

    def flag(self, flag: str, node: ast.AST, detail: str) -> None:
        self.findings.append(Finding(flag, getattr(node, "lineno", 0), detail))

    def is_helion_kernel(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        heads = (d.func if isinstance(d, ast.Call) else d for d in node.decorator_list)
        return any(self.resolve(d) in HELION_DECORATORS for d in heads)

    def resolve(self, node: ast.AST) -> str | None:
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            return canonical(self.aliases[head] + ("." + rest if rest else ""))
        return canonical(dotted)

    # imports
    def _check_module(self, module: str, node: ast.AST) -> None:
        if helion_internal(module):
            self.flag("forbidden_import", node, f"imports {module}: only Helion's public API is allowed")
            return
        if module in ALLOWED_IMPORTS:
            return
        parts = module.split(".")
        prefixes = {".".join(parts[: i + 1]) for i in range(len(parts))}
        # torch.nn.functional is not refused here: importing it computes nothing, a use of it does.
        if prefixes & {"torch.jit", "torch._dynamo", "torch.compiler", "torch._inductor"}:
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
            if helion_internal(full):
                self._check_module(full, node)
            elif full in ALLOWED_IMPORTS or module in ALLOWED_IMPORTS and module != "torch":
                pass
            else:
                self._check_module(full, node)
            self.aliases[a.asname or a.name] = full

    # structure
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        """Bases, keywords, decorators and the class body run at import; methods wait for the class."""
        for expr in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(expr)
        owner = None if self.in_body else (self.owner or node.name)
        for base in node.bases:
            name = _dotted(base) or ""
            if name.split(".")[-1] == "Model":
                detail = f"class {node.name} derives from the reference Model"
                finding = Finding("subclasses_reference", node.lineno, detail)
                if owner is None:
                    self.findings.append(finding)
                else:
                    self.pending.setdefault(owner, []).append(finding)
        if owner is not None and node.decorator_list:
            self.referenced.add(owner)  # a class decorator can hand the class on without naming it
        outer, self.owner = self.owner, owner
        for stmt in node.body:
            self.visit(stmt)
        self.owner = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """The header runs at import; the body is judged now inside a judged body or behind a decorator
        that could hand the function on, otherwise once the function's (or its class's) name is reached."""
        for expr in node.decorator_list:
            self.visit(expr)
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        if self.in_body or not _plain_decorators(node.decorator_list):
            self.judge_body(node)
        else:
            self.deferred.setdefault(self.owner or node.name, []).append(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def judge_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        init = node.name == "__init__"
        helion = self.is_helion_kernel(node)
        self.in_init += init
        self.in_body += 1
        self.helion_kernel += helion
        for stmt in node.body:
            self.visit(stmt)
        self.helion_kernel -= helion
        self.in_body -= 1
        self.in_init -= init

    def visit_For(self, node: ast.For) -> None:
        """A Helion kernel's `for tile in hl.tile(...)`: its body is device code."""
        iterator = node.iter.func if isinstance(node.iter, ast.Call) else None
        device = (
            self.helion_kernel > 0 and iterator is not None and self.resolve(iterator) in HELION_DEVICE_LOOPS
        )
        if not device:
            self.generic_visit(node)
            return
        self.visit(node.target)
        self.visit(node.iter)
        self.device_code += 1
        for stmt in node.body:
            self.visit(stmt)
        self.device_code -= 1
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_If(self, node: ast.If) -> None:
        at_module_level = not self.in_body and self.owner is None
        if at_module_level and self.main_guard_skippable and _is_main_guard(node.test):
            for stmt in node.orelse:  # the else branch is what runs on import
                self.visit(stmt)
            return
        self.generic_visit(node)

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
        self._check_helion(node)
        self.referenced.add(node.attr)  # `me.helper` on the module imported by its own name reaches helper
        self._check_functional(node)
        self.attr_bases.add(id(node.value))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "__builtins__":
            self.flag("introspection", node, "reads __builtins__")
        if isinstance(node.ctx, ast.Load):
            self.referenced.add(node.id)
            self._check_functional(node)
            self._check_helion(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and node.value.isidentifier():
            self.referenced.add(node.value)  # getattr(module, "helper") reaches helper

    def _check_helion(self, node: ast.Name | ast.Attribute) -> None:
        """A name that reaches Helion's internals; judged once, at the outermost attribute."""
        if id(node) in self.attr_bases:
            return
        full = self.resolve(node) or ""
        if helion_internal(full):
            self.flag("forbidden_import", node, f"uses {full}: only Helion's public API is allowed")

    def _check_functional(self, node: ast.Name | ast.Attribute) -> None:
        """A use of torch.nn.functional: F.relu, a name imported from it, or the module itself passed on."""
        if id(node) in self.attr_bases or self.device_code:
            return  # the base of F.relu (that attribute was judged already), or Helion device code
        full = self.resolve(node) or ""
        if full.startswith(FUNCTIONAL + ".") or (full == FUNCTIONAL and isinstance(node.ctx, ast.Load)):
            self.flag("torch_compute_op", node, f"uses {full}")

    # calls
    def visit_Call(self, node: ast.Call) -> None:
        full = self.resolve(node.func)
        if isinstance(node.func, ast.Name) and node.func.id not in self.aliases:
            name = node.func.id
            if name in FORBIDDEN_BUILTINS:
                self.flag("forbidden_call", node, f"calls {name}()")
            elif name == "setattr":
                target = self.resolve(node.args[0]) if node.args else None
                kind = (
                    "monkeypatch"
                    if target and target.split(".")[0] in self.aliases.values()
                    else "forbidden_call"
                )
                self.flag(kind, node, "calls setattr()")
            elif name == "getattr" and len(node.args) >= 2:
                if not isinstance(node.args[1], ast.Constant):
                    self.flag("forbidden_call", node, "getattr with a computed name")
                else:
                    obj = self.resolve(node.args[0])
                    if obj:
                        self._check_qualified(f"{obj}.{node.args[1].value}", node)
        elif full in COMPUTED_NAME_CALLS and not all(isinstance(a, ast.Constant) for a in node.args):
            self.flag("forbidden_call", node, f"{full} with a computed name")
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
        elif self.in_init or self.device_code:
            return  # parameters may be initialised with any torch op; Helion lowers its device code
        elif full.startswith("torch.nn.functional."):
            pass  # flagged as a use of the name (_check_functional)
        elif full.startswith(TORCH_OK_PREFIXES):
            return
        else:
            rest = full[len("torch.") :]
            if rest not in TORCH_PLUMBING and rest.split(".")[-1] not in TORCH_PLUMBING:
                self.flag("torch_compute_op", node, f"calls {full}")


def analyze(source: str) -> list[Finding]:
    """Findings for a candidate's source; empty for code that does not parse (the build reports that)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    analyzer = _Analyzer(main_guard_skippable=not _rebinds_name(tree))
    analyzer.visit(tree)
    # Module dunders (a PEP 562 __getattr__, __dir__) are called by Python itself, unnamed.
    analyzer.referenced |= {key for key in analyzer.deferred if key.startswith("__") and key.endswith("__")}
    judged: set[str] = set()
    while ready := [key for key in analyzer.deferred if key in analyzer.referenced and key not in judged]:
        for key in ready:
            judged.add(key)
            for function in analyzer.deferred[key]:
                analyzer.judge_body(function)
    for key, findings in analyzer.pending.items():
        if key in analyzer.referenced:
            analyzer.findings.extend(findings)
    return sorted(analyzer.findings + native.analyze_tree(tree), key=lambda f: f.line)
