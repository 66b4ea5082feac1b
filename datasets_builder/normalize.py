"""Normalized token streams of Python programs: what deduplication and decontamination compare.

A program is parsed and walked in a fixed order; what a person could change without changing what
the program computes is normalized away: docstrings, comments, formatting, imports, the SOLBENCH
metadata dict, type annotations, and the names of variables, functions, classes and `self.`
attributes (all become `ID`). What it computes stays: node kinds, operators, the torch API called
(`torch.softmax`, `.sum`, `nn.Linear`, with import aliases resolved, so `F.gelu` reads as
`torch.nn.functional.gelu`) and keyword names (`dim=`); dtypes (`torch.bfloat16`) all read as
`torch.DTYPE`, since the same program in another precision is the same task. Numbers become `NUM` unless asked to keep
them: decontamination drops them (a suite task with other shapes or scales is still that task),
exact deduplication keeps them (shape variants are distinct tasks by design)."""

from __future__ import annotations

import ast
import hashlib

SKIP_ASSIGNS = {"SOLBENCH"}
DTYPES = {"float32", "float16", "bfloat16", "float64", "half", "float", "double"}  # torch.X as a dtype


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_super_init(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and ast.unparse(node.value).startswith("super(")
        and ".__init__(" in ast.unparse(node.value)
    )


def _aliases(tree: ast.Module) -> dict[str, str]:
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                found[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


class _Tokens:
    def __init__(self, aliases: dict[str, str], keep_numbers: bool):
        self.aliases = aliases
        self.keep_numbers = keep_numbers
        self.out: list[str] = []

    def emit(self, token: str) -> None:
        self.out.append(token)

    def body(self, stmts: list[ast.stmt]) -> None:
        for i, stmt in enumerate(stmts):
            if (i == 0 and _is_docstring(stmt)) or _is_super_init(stmt):
                continue
            if (
                isinstance(stmt, ast.FunctionDef)
                and stmt.name == "__init__"
                and all(_is_super_init(s) for s in stmt.body)
            ):
                continue
            self.node(stmt)

    def node(self, node: ast.AST | None) -> None:
        if node is None:
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            return
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in SKIP_ASSIGNS for t in node.targets
        ):
            return
        if isinstance(node, ast.Name):
            head, *rest = self.aliases.get(node.id, "ID").split(".")
            self.emit(head)
            for part in rest:
                self.emit("." + part)
            return
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                self.emit("self.ID")
                return
            self.node(node.value)
            self.emit(".DTYPE" if node.attr in DTYPES and self.out[-1] == "torch" else "." + node.attr)
            return
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or v is None:
                self.emit(repr(v))
            elif isinstance(v, int | float | complex):
                self.emit(repr(v) if self.keep_numbers else "NUM")
            else:
                self.emit("STR")
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.emit("def")
            for dec in node.decorator_list:
                self.node(dec)
            args = node.args
            self.emit(f"args{len(args.posonlyargs) + len(args.args)}")
            for default in args.defaults:
                self.node(default)
            self.body(node.body)
            self.emit("enddef")
            return
        if isinstance(node, ast.ClassDef):
            self.emit("class")
            for base in node.bases:
                self.node(base)
            self.body(node.body)
            self.emit("endclass")
            return
        if isinstance(node, ast.keyword):
            self.emit(f"kw:{node.arg}")
            self.node(node.value)
            return
        if isinstance(node, ast.arg):
            self.emit("ID")
            return
        if isinstance(node, ast.AnnAssign):
            self.emit("Assign")
            self.node(node.target)
            self.node(node.value)
            return
        name = type(node).__name__
        if isinstance(node, ast.BinOp | ast.AugAssign):
            name += ":" + type(node.op).__name__
        elif isinstance(node, ast.UnaryOp | ast.BoolOp):
            name += ":" + type(node.op).__name__
        elif isinstance(node, ast.Compare):
            name += ":" + ",".join(type(o).__name__ for o in node.ops)
        self.emit(name)
        for field, value in ast.iter_fields(node):
            if field in ("ctx", "type_comment", "annotation", "returns", "op", "ops"):
                continue
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self.body(value)
                else:
                    for item in value:
                        if isinstance(item, ast.AST):
                            self.node(item)
            elif isinstance(value, ast.AST):
                self.node(value)


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr):
        self.name = name
        self.value = value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.value if node.id == self.name and isinstance(node.ctx, ast.Load) else node


class _InlineTemporaries(ast.NodeTransformer):
    """`t = expr` followed by exactly one later use of `t` becomes that use: `t0 = F.gelu(x);
    return t0` and `return F.gelu(x)` are one computation written two ways."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        body = list(node.body)
        changed = True
        while changed:
            changed = False
            for i, stmt in enumerate(body):
                if not (
                    isinstance(stmt, ast.Assign)
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                ):
                    continue
                name = stmt.targets[0].id
                later = body[i + 1 :]
                loads = [n for s in later for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == name]
                stores = [n for n in loads if not isinstance(n.ctx, ast.Load)]
                if len(loads) != 1 or stores:
                    continue
                sub = _Substitute(name, stmt.value)
                body = body[:i] + [sub.visit(s) for s in later]
                changed = True
                break
        node.body = body
        return node


def model_tokens(source: str, keep_numbers: bool = False) -> list[str]:
    """Normalized tokens of the `Model` class alone (its constructor and forward), with single-use
    temporaries inlined: the computation, without the input-generation boilerplate around it."""
    tree = ast.parse(source)
    model = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
    if model is None:
        return []
    model = _InlineTemporaries().visit(ast.parse(ast.unparse(model)).body[0])
    t = _Tokens(_aliases(tree), keep_numbers)
    t.body(model.body)
    return t.out


def normalized_tokens(source: str, keep_numbers: bool = False) -> list[str]:
    """The program's normalized token stream; raises SyntaxError for code that does not parse."""
    tree = ast.parse(source)
    t = _Tokens(_aliases(tree), keep_numbers)
    t.body(tree.body)
    return t.out


def stable_hash(text: str) -> int:
    """A 64-bit hash that is the same in every process (Python's hash() of a str is not)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def shingles(tokens: list[str], n: int) -> set[int]:
    """Hashes of every run of `n` consecutive tokens (the whole stream when it is shorter)."""
    if len(tokens) < n:
        return {stable_hash("\x1f".join(tokens))} if tokens else set()
    return {stable_hash("\x1f".join(tokens[i : i + n])) for i in range(len(tokens) - n + 1)}


def fingerprint(source: str, keep_numbers: bool = True) -> str:
    """Hex digest of the normalized token stream: equal for programs that differ only in naming,
    formatting, comments and docstrings (and, without keep_numbers, constants)."""
    return hashlib.sha256("\x1f".join(normalized_tokens(source, keep_numbers)).encode()).hexdigest()


def jaccard(a: set[int], b: set[int]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)
