"""The native sources a candidate carries, read from its Python without running it: the C/C++/CUDA
text and the build flags it hands to `torch.utils.cpp_extension.load_inline`, to `benchmark.cuda_raw`
and pycuda's compilers, the PTX of Triton's `inline_asm_elementwise`, and the code string of torch's
jiterator. Native code is not bound by Python's audit hooks, so the rules (native.py) must see all of it.

A source argument is resolved as far as the file allows: literals, names bound anywhere in the file
(module level, function bodies, `self.x = ...`), lists and tuples, `+`, implicit concatenation,
f-strings (their holes resolved where they name constants), `.format`/`%` of a constant template,
`textwrap.dedent`, `"sep".join([...])`, the plain str methods, conditional expressions, functions
of the file that return text, and parameters traced to the arguments of their call sites. What stays
unknown is one of two kinds:
- a hole: a value no string operation made (a parameter nobody passes in this file, `x.shape[1]`,
  `int(...)`): the source is `complete=False`, and the rules then also judge every string constant
  and identifier of the file (an attacker assembles sources from pieces);
- opaque: text made at run time by something the rules cannot read (`chr`, `bytes.decode`, base64,
  a comprehension, an unknown call, an object's `__name__`): the source is reported as unresolved.
Loading native code from disk (`cpp_extension.load`, pycuda's `module_from_file`) and passing a
compiler function on as a value are reported as unresolved too."""

from __future__ import annotations

import ast
import itertools
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field

from benchmark.evaluate.anticheat.findings import dotted as _dotted

MAX_ALTERNATIVES = 16  # past this many possible values a text keeps its pieces, not every combination
MAX_DEPTH = 40
MAX_TEXT = 1_000_000  # a str operation that would make a longer text is not evaluated (it keeps its pieces)
_HUGE_NUMBER = re.compile(r"\d{7,}")  # a width or count that large in a format or call

LOAD_INLINE = (
    "name",
    "cpp_sources",
    "cuda_sources",
    "sycl_sources",
    "functions",
    "extra_cflags",
    "extra_cuda_cflags",
    "extra_sycl_cflags",
    "extra_ldflags",
    "extra_include_paths",
)
PYCUDA = ("source", "nvcc", "options", "keep", "no_extern_c", "arch", "code", "cache_dir", "include_dirs")


@dataclass(frozen=True)
class Builder:
    """A function that compiles native text: its parameters in order, and the role of each one read."""

    params: tuple[str, ...]
    sources: dict[str, str]  # parameter -> language of its text ("c" C/C++/CUDA, "ptx")
    flags: tuple[str, ...] = ()  # parameters holding compiler or linker flags
    paths: tuple[str, ...] = ()  # parameters holding include folders
    names: tuple[str, ...] = ()  # parameters that end up inside the build (torch's extension name)
    compiler: tuple[str, ...] = ()  # parameters naming a compiler binary


BUILDERS: dict[str, Builder] = {
    "torch.utils.cpp_extension.load_inline": Builder(
        LOAD_INLINE,
        {"cpp_sources": "c", "cuda_sources": "c", "sycl_sources": "c", "functions": "c"},
        flags=("extra_cflags", "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags"),
        paths=("extra_include_paths",),
        names=("name",),
    ),
    "benchmark.cuda_raw.compile_cuda": Builder(("source", "options"), {"source": "c"}, flags=("options",)),
    "pycuda.compiler.SourceModule": Builder(
        PYCUDA, {"source": "c"}, flags=("options",), paths=("include_dirs",), compiler=("nvcc",)
    ),
    "pycuda.compiler.DynamicSourceModule": Builder(
        PYCUDA, {"source": "c"}, flags=("options",), paths=("include_dirs",), compiler=("nvcc",)
    ),
    "pycuda.compiler.compile": Builder(
        PYCUDA, {"source": "c"}, flags=("options",), paths=("include_dirs",), compiler=("nvcc",)
    ),
    "triton.language.inline_asm_elementwise": Builder(
        ("asm", "constraints", "args", "dtype", "is_pure", "pack"), {"asm": "ptx"}
    ),
    "torch.cuda.jiterator._create_jit_fn": Builder(("code_string",), {"code_string": "c"}),
    "torch.cuda.jiterator._create_multi_output_jit_fn": Builder(("code_string",), {"code_string": "c"}),
}
# Functions that load native code the candidate's text does not hold (sources or binaries on disk).
LOADERS: frozenset[str] = frozenset(
    {
        "torch.utils.cpp_extension.load",
        "torch.utils.cpp_extension._jit_compile",
        "torch.utils.cpp_extension._import_module_from_library",
        "pycuda.driver.module_from_file",
        "pycuda.driver.module_from_buffer",
        "torch.ops.load_library",
        "torch.classes.load_library",
    }
)
# Final names distinctive enough to mean the builder or loader however the module was reached.
_BY_LAST_NAME = {q.rsplit(".", 1)[1]: q for q in BUILDERS if not q.endswith(".compile")}
_BY_LAST_NAME |= {q.rsplit(".", 1)[1]: q for q in LOADERS if not q.endswith((".load", "._jit_compile"))}

# Calls whose value is a number or a plain value, never text an attacker wrote.
_VALUE_CALLS = frozenset(
    {"int", "len", "min", "max", "abs", "round", "float", "bool", "sum", "divmod", "pow", "hash", "id"}
)
_VALUE_METHODS = frozenset(
    {"size", "numel", "stride", "dim", "item", "element_size", "data_ptr", "get_device", "nelement"}
)
_VALUE_ROOTS = ("math.", "triton.", "torch.")
# Attribute names that turn code (names, docstrings, enum members) into text.
_NAME_ATTRS = frozenset({"name", "value", "_name_", "_value_"})
_STR_METHODS = frozenset(
    {
        "strip",
        "lstrip",
        "rstrip",
        "upper",
        "lower",
        "title",
        "capitalize",
        "swapcase",
        "casefold",
        "expandtabs",
        "removeprefix",
        "removesuffix",
        "replace",
        "center",
        "ljust",
        "rjust",
        "zfill",
    }
)


@dataclass(frozen=True)
class Text:
    """What a Python expression's text can be: every value it can take (`complete`), or else the
    pieces known; `opaque` says why some of it is made at run time from what cannot be read."""

    values: tuple[str, ...] = ()
    complete: bool = True
    opaque: str | None = None
    leaves: tuple[tuple[str, int], ...] = ()  # the string constants it is built from, with their lines


HOLE = Text((), complete=False)


def _opaque(why: str) -> Text:
    return Text((), complete=False, opaque=why)


def _const(value: str, line: int) -> Text:
    return Text((value,), leaves=((value, line),))


def _union(texts: list[Text]) -> Text:
    if not texts:
        return HOLE
    values = tuple(dict.fromkeys(v for t in texts for v in t.values))
    complete = all(t.complete for t in texts) and len(values) <= MAX_ALTERNATIVES
    opaque = next((t.opaque for t in texts if t.opaque), None)
    leaves = tuple(dict.fromkeys(leaf for t in texts for leaf in t.leaves))
    return Text(values, complete, opaque, leaves)


def _join(parts: list[Text], sep: str = "") -> Text:
    """Concatenation: every combination while they are few, otherwise the pieces."""
    opaque = next((p.opaque for p in parts if p.opaque), None)
    leaves = tuple(leaf for p in parts for leaf in p.leaves)
    count = 1
    for p in parts:
        count *= max(len(p.values), 1)
    longest = sum(max((len(v) for v in p.values), default=0) for p in parts)
    if all(p.complete for p in parts) and count <= MAX_ALTERNATIVES and longest <= MAX_TEXT:
        values = tuple(dict.fromkeys(sep.join(c) for c in itertools.product(*(p.values for p in parts))))
        return Text(values, True, opaque, leaves)
    pieces = tuple(dict.fromkeys(v for p in parts for v in p.values))
    return Text(pieces, False, opaque, leaves)


def _apply(text: Text, fn, *args) -> Text:
    """A str function of the text: exact on complete values; on pieces, both the pieces and their
    transforms are kept (the transform may need its neighbours). Not evaluated where a huge width or
    count among the values or `args` could make an enormous text."""
    if any(_HUGE_NUMBER.search(str(a)) for a in [*text.values, *args]):
        return Text(text.values, False, text.opaque, text.leaves)
    try:
        mapped = tuple(dict.fromkeys(fn(v) for v in text.values))
    except (TypeError, ValueError, IndexError, KeyError, OverflowError, MemoryError):
        return Text(text.values, False, text.opaque, text.leaves)
    if any(len(v) > MAX_TEXT for v in mapped):
        return Text(text.values, False, text.opaque, text.leaves)
    if text.complete:
        return Text(mapped, True, text.opaque, text.leaves)
    return Text(tuple(dict.fromkeys(text.values + mapped)), False, text.opaque, text.leaves)


@dataclass
class NativeSource:
    """One native text reaching a compiler: where it goes (`where`, e.g. `load_inline cuda_sources`),
    its language, what it resolved to, the Python line of the argument, and the build it belongs to."""

    where: str
    lang: str
    text: Text
    line: int
    build: int  # sources and flags of one builder call share this number


@dataclass
class NativeFlags:
    """Compiler or linker flags, include folders, a compiler path or an extension name of one build."""

    where: str
    role: str  # "flags", "paths", "names" or "compiler"
    items: list[Text]
    line: int
    build: int


@dataclass
class Extraction:
    sources: list[NativeSource] = field(default_factory=list)
    flags: list[NativeFlags] = field(default_factory=list)
    unresolved: list[tuple[int, str]] = field(default_factory=list)  # (line, what could not be read)
    constants: list[tuple[str, int]] = field(default_factory=list)  # every str constant of the file
    identifiers: list[tuple[str, int]] = field(default_factory=list)  # every name the file spells

    @property
    def conservative(self) -> bool:
        """Whether some native text is not fully known, so every constant of the file must be judged."""
        texts = [s.text for s in self.sources] + [i for f in self.flags for i in f.items]
        return bool(self.unresolved) or any(not t.complete for t in texts)


def _literal(node: ast.AST):
    """A plain Python constant (number, string, bytes, bool), or raises ValueError."""
    try:
        value = ast.literal_eval(node)
    except RecursionError as e:
        raise ValueError from e
    if isinstance(value, int | float | str | bytes | bool) or value is None:
        return value
    raise ValueError


class _File:
    """Bindings of the candidate file, and the resolution of expressions to text."""

    def __init__(self, tree: ast.Module, nodes: list[ast.AST]):
        self.tree = tree
        self.parent: dict[int, ast.AST] = {}
        self.aliases: dict[str, str] = {}  # import alias -> qualified name
        self.bindings: dict[tuple[int, str], list] = {}  # (scope node id, name) -> binding kinds
        self.attr_bindings: dict[str, list[ast.expr]] = {}
        self.mutations: dict[str, list[ast.expr]] = {}  # list names -> appended/extended expressions
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda]] = {}
        self.calls: dict[str, list[ast.Call]] = {}
        self.builder_aliases: dict[str, tuple[str, tuple[ast.Call, ...]]] = {}  # name -> builder, partials
        self.stack: set[int] = set()
        self.memo: dict[int, Text] = {}
        self.items_memo: dict[int, list[Text] | None] = {}
        self.scopes: dict[int, ast.AST] = {}
        self.nodes = nodes
        for node in self.nodes:
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
        self._collect()

    # scopes and bindings
    def scope_of(self, node: ast.AST) -> ast.AST:
        """The function (or lambda, or the module) whose scope `node` is in."""
        chain = []
        current: ast.AST | None = node
        while current is not None and id(current) not in self.scopes:
            chain.append(current)
            parent = self.parent.get(id(current))
            if parent is None or isinstance(
                parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module
            ):
                self.scopes[id(current)] = parent if parent is not None else self.tree
                break
            current = parent
        found = self.scopes[id(current)] if current is not None else self.tree
        for n in chain:
            self.scopes[id(n)] = found
        return found

    def _bind(self, target: ast.AST, kind: str, value, scope: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault((id(scope), target.id), []).append((kind, value))
        elif isinstance(target, ast.Attribute):
            if kind == "value":
                self.attr_bindings.setdefault(target.attr, []).append(value)
            else:
                self.attr_bindings.setdefault(target.attr, []).append(None)
        elif isinstance(target, ast.Tuple | ast.List):
            values = value.elts if kind == "value" and isinstance(value, ast.Tuple | ast.List) else None
            for i, t in enumerate(target.elts):
                if values is not None and len(values) == len(target.elts):
                    self._bind(t, "value", values[i], scope)
                else:
                    self._bind(t, "hole", None, scope)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, "hole", None, scope)

    def _collect(self) -> None:
        for node in self.nodes:
            scope = self.scope_of(node)
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module or ''}.{a.name}"
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    self._bind(t, "value", node.value, scope)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._bind(node.target, "value", node.value, scope)
            elif isinstance(node, ast.AugAssign):
                self._bind(node.target, "aug", node.value, scope)
            elif isinstance(node, ast.NamedExpr):
                self._bind(node.target, "value", node.value, scope)
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                self._bind(node.target, "each", node.iter, scope)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self._bind(node.optional_vars, "hole", None, scope)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.setdefault(node.name, []).append(node)
                self._bind(ast.Name(node.name), "def", node, scope)
                args = node.args
                for i, a in enumerate([*args.posonlyargs, *args.args]):
                    self._bind(ast.Name(a.arg), "param", (node, i, a.arg), node)
                for a in [*args.kwonlyargs, args.vararg, args.kwarg]:
                    if a is not None:
                        self._bind(ast.Name(a.arg), "param", (node, None, a.arg), node)
            elif isinstance(node, ast.Lambda):
                for i, a in enumerate(node.args.args):
                    self._bind(ast.Name(a.arg), "param", (node, i, a.arg), node)
            elif isinstance(node, ast.ClassDef):
                self._bind(ast.Name(node.name), "def", node, scope)
            elif isinstance(node, ast.Call):
                func = node.func
                name = (
                    func.id
                    if isinstance(func, ast.Name)
                    else func.attr
                    if isinstance(func, ast.Attribute)
                    else None
                )
                if name:
                    self.calls.setdefault(name, []).append(node)
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                    if func.attr in ("append", "extend", "insert") and node.args:
                        self.mutations.setdefault(func.value.id, []).append(node.args[-1])
                    elif func.attr in ("append", "extend", "insert"):
                        self.mutations.setdefault(func.value.id, []).append(None)
        for (_, name), kinds in self.bindings.items():
            for kind, value in kinds:
                if kind == "value" and isinstance(value, ast.Lambda):
                    self.functions.setdefault(name, []).append(value)

    def lookup(self, name: str, at: ast.AST) -> list | None:
        """The bindings of `name` seen from `at`: its own function first, then enclosing ones, then
        the module (a class body's names count as module-level)."""
        scope = self.scope_of(at)
        while True:
            found = self.bindings.get((id(scope), name))
            if found:
                return found
            if scope is self.tree:
                break
            scope = self.scope_of(scope)
        found = [b for (sid, n), b in self.bindings.items() if n == name]
        return [x for b in found for x in b] or None

    def qualified(self, node: ast.AST) -> str | None:
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            return self.aliases[head] + ("." + rest if rest else "")
        return dotted

    def builder_of(self, func: ast.AST) -> tuple[str, tuple[ast.Call, ...]] | None:
        """The builder or loader an expression is, and the partials around it (innermost first):
        through imports, aliases (class attributes too), `getattr(module, "load_inline")` and
        `functools.partial(load_inline, ...)`."""
        if isinstance(func, ast.Call):
            callee = self.qualified(func.func) or ""
            if callee.rsplit(".", 1)[-1] == "partial" and func.args:
                inner = self.builder_of(func.args[0])
                return (inner[0], (*inner[1], func)) if inner is not None else None
            name = func.args[1] if callee == "getattr" and len(func.args) >= 2 else None
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                return self.builder_of(ast.Attribute(func.args[0], name.value, ast.Load()))
            return None
        alias = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if alias in self.builder_aliases:
            return self.builder_aliases[alias]
        full = self.qualified(func)
        if full in BUILDERS or full in LOADERS:
            return full, ()
        last = (_dotted(func) or "").rsplit(".", 1)[-1]
        return (_BY_LAST_NAME[last], ()) if last in _BY_LAST_NAME else None

    # resolution of text
    def text(self, node: ast.AST | None, depth: int = 0) -> Text:
        if node is None:
            return HOLE
        if id(node) in self.memo:
            return self.memo[id(node)]
        if depth > MAX_DEPTH or id(node) in self.stack:
            return HOLE
        self.stack.add(id(node))
        try:
            result = self._text(node, depth + 1)
        finally:
            self.stack.discard(id(node))
        self.memo[id(node)] = result
        return result

    def _text(self, node: ast.AST, depth: int) -> Text:
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return _const(node.value, line)
            if isinstance(node.value, bytes):
                return _const(node.value.decode("latin-1"), line)
            return Text((str(node.value),))
        if isinstance(node, ast.JoinedStr):
            return _join([self._formatted(v, depth) for v in node.values])
        if isinstance(node, ast.FormattedValue):
            return self._formatted(node, depth)
        if isinstance(node, ast.BinOp):
            return self._binop(node, depth)
        if isinstance(node, ast.IfExp):
            return _union([self.text(node.body, depth), self.text(node.orelse, depth)])
        if isinstance(node, ast.BoolOp):
            return _union([self.text(v, depth) for v in node.values])
        if isinstance(node, ast.Name):
            return self._name(node, depth)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, depth)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, ast.List | ast.Tuple):
            # a list where one text is wanted: torch joins source lists with newlines
            items = self.items(node, depth)
            return _join(items, "\n") if items is not None else _opaque("a sequence built at run time")
        if isinstance(node, ast.UnaryOp | ast.Compare):
            return HOLE
        return _opaque(f"a {type(node).__name__} made at run time")

    def _formatted(self, node: ast.AST, depth: int) -> Text:
        if not isinstance(node, ast.FormattedValue):
            return self.text(node, depth)
        spec = self.text(node.format_spec, depth) if node.format_spec is not None else Text(("",))
        try:
            value = self._number(node.value)
            conv = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}[node.conversion]
            if spec.complete and len(spec.values) == 1 and not _HUGE_NUMBER.search(spec.values[0]):
                return Text((format(conv(value), spec.values[0]),))
        except (ValueError, TypeError, KeyError):
            pass
        inner = self.text(node.value, depth)
        if node.conversion in (114, 97):
            inner = _apply(inner, repr if node.conversion == 114 else ascii)
        if node.format_spec is not None:
            return Text(inner.values, False, inner.opaque or spec.opaque, inner.leaves)
        return inner

    def _number(self, node: ast.AST, depth: int = 0):
        """A numeric (or bool) constant the expression certainly is, or raises ValueError."""
        if depth > 10:
            raise ValueError
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and node.value is not None:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self._number(node.operand, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv):
            a, b = self._number(node.left, depth + 1), self._number(node.right, depth + 1)
            ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
            if isinstance(node.op, ast.FloorDiv):
                return a // b if b else 0
            return ops[type(node.op)]
        if isinstance(node, ast.Name):
            bound = self.lookup(node.id, node) or []
            values = {self._number(v, depth + 1) for kind, v in bound if kind == "value"}
            if len(bound) == 1 and len(values) == 1:
                return values.pop()
        raise ValueError

    def _binop(self, node: ast.BinOp, depth: int) -> Text:
        if isinstance(node.op, ast.Add):
            left, right = self.text(node.left, depth), self.text(node.right, depth)
            if not left.leaves and not right.leaves and not left.opaque and not right.opaque:
                return HOLE  # numbers
            return _join([left, right])
        if isinstance(node.op, ast.Mod):
            template = self.text(node.left, depth)
            if not template.leaves:
                return HOLE if not template.opaque else template
            try:
                args = (
                    _literal(node.right)
                    if not isinstance(node.right, ast.Tuple)
                    else tuple(_literal(e) for e in node.right.elts)
                )
                return _apply(template, lambda v: v % args, args)
            except (ValueError, SyntaxError, TypeError):
                rest = self.text(node.right, depth)
                return _join([Text(template.values, False, template.opaque, template.leaves), rest])
        if isinstance(node.op, ast.Mult):
            for text_side, count_side in ((node.left, node.right), (node.right, node.left)):
                text = self.text(text_side, depth)
                if text.leaves:
                    try:
                        count = self._number(count_side)
                        return _apply(text, lambda v, c=count: v * int(c), count)
                    except ValueError:
                        return Text(text.values, False, text.opaque, text.leaves)
        return HOLE  # arithmetic on numbers

    def _name(self, node: ast.Name, depth: int) -> Text:
        bound = self.lookup(node.id, node)
        if not bound and node.id.startswith("__") and node.id.endswith("__"):
            return _opaque(f"{node.id} (the module's own name, file or docstring) used as text")
        if not bound:
            return HOLE  # a builtin, an imported value or an undefined name (which fails on import)
        texts = []
        partial = False
        for kind, value in bound:
            if kind == "value":
                texts.append(self.text(value, depth))
            elif kind == "aug":
                partial = True
                texts.append(self.text(value, depth))
            elif kind == "each":
                items = self.items(value, depth)
                texts.append(
                    _union(items) if items is not None else _opaque("a loop over values made at run time")
                )
            elif kind == "param":
                texts.append(self._param(value, depth))
            elif kind == "def":
                texts.append(_opaque(f"the name of {node.id} used as text"))
            else:
                texts.append(HOLE)
        mutations = self.mutations.get(node.id)
        if mutations:
            partial = True
            for m in mutations:
                items = self.items(m, depth) if m is not None else None
                texts.append(_union(items) if items is not None else self.text(m, depth))
        result = _union(texts)
        if partial:
            result = Text(result.values, False, result.opaque, result.leaves)
        return result

    def _param(self, param: tuple, depth: int) -> Text:
        """A parameter: the arguments its function is called with in this file, and its default."""
        function, index, name = param
        texts = []
        default = self._default(function, name)
        if default is not None:
            texts.append(self.text(default, depth))
        fname = getattr(function, "name", None)
        if fname is None:  # a lambda: the name it is bound to
            assigned = self.parent.get(id(function))
            if isinstance(assigned, ast.Assign) and isinstance(assigned.targets[0], ast.Name):
                fname = assigned.targets[0].id
        if fname is None:
            return HOLE
        owner = self.parent.get(id(function))
        is_method = isinstance(owner, ast.ClassDef)
        for call in self.calls.get(owner.name if is_method and fname == "__init__" else fname, []):
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            if arg is None and index is not None:
                position = index - 1 if is_method else index
                if 0 <= position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args):
                    arg = call.args[position]
            if arg is None and any(isinstance(a, ast.Starred) for a in call.args):
                texts.append(_opaque("arguments unpacked at run time"))
            elif arg is not None:
                texts.append(self.text(arg, depth))
        if not texts:
            return HOLE
        result = _union(texts)
        # Callers outside the file (the harness builds ModelNew) may pass other values.
        return Text(result.values, False, result.opaque, result.leaves)

    @staticmethod
    def _default(function, name: str) -> ast.expr | None:
        args = function.args
        positional = [*getattr(args, "posonlyargs", []), *args.args]
        defaults = dict(
            zip(
                [a.arg for a in positional[len(positional) - len(args.defaults) :]],
                args.defaults,
                strict=True,
            )
        )
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if d is not None:
                defaults[a.arg] = d
        return defaults.get(name)

    def _attribute(self, node: ast.Attribute, depth: int) -> Text:
        values = self.attr_bindings.get(node.attr)
        if values:
            return _union([self.text(v, depth) if v is not None else HOLE for v in values])
        if node.attr in _NAME_ATTRS or (node.attr.startswith("__") and node.attr.endswith("__")):
            return _opaque(f".{node.attr} (a name or docstring of the code) used as text")
        return HOLE

    def _subscript(self, node: ast.Subscript, depth: int) -> Text:
        if isinstance(node.slice, ast.Slice):
            text = self.text(node.value, depth)
            try:
                bounds = [
                    None if b is None else self._number(b)
                    for b in (node.slice.lower, node.slice.upper, node.slice.step)
                ]
                return _apply(text, lambda v: v[slice(*bounds)])
            except ValueError:
                return Text(text.values, False, text.opaque, text.leaves)
        items = self.items(node.value, depth, keys=False)
        if items is None:
            text = self.text(node.value, depth)
            return Text(text.values, False, text.opaque, text.leaves) if text.leaves or text.opaque else HOLE
        try:
            index = self._number(node.slice)
            if isinstance(index, int) and -len(items) <= index < len(items):
                return items[index]
        except ValueError:
            pass
        key = self._key(node.value, node.slice, depth)
        return key if key is not None else _union(items)

    def _key(self, container: ast.AST, key: ast.AST, depth: int) -> Text | None:
        """dict[constant key] for a dict literal bound to a name."""
        if not (isinstance(key, ast.Constant) and isinstance(container, ast.Name)):
            return None
        bound = self.lookup(container.id, container) or []
        dicts = [v for kind, v in bound if kind == "value" and isinstance(v, ast.Dict)]
        if len(dicts) != 1 or len(bound) != 1:
            return None
        for k, v in zip(dicts[0].keys, dicts[0].values, strict=True):
            if isinstance(k, ast.Constant) and k.value == key.value:
                return self.text(v, depth)
        return None

    def _call(self, node: ast.Call, depth: int) -> Text:
        func = node.func
        full = self.qualified(func) or ""
        last = full.rsplit(".", 1)[-1]
        if full in ("textwrap.dedent", "inspect.cleandoc") or (last == "dedent" and node.args):
            return _apply(self.text(node.args[0], depth), textwrap.dedent) if node.args else HOLE
        if isinstance(func, ast.Name) and func.id in ("str", "repr") and self.lookup(func.id, func) is None:
            if len(node.args) == 1 and not node.keywords:
                inner = self.text(node.args[0], depth)
                return _apply(inner, repr) if func.id == "repr" else inner
            return _opaque(f"{func.id}() of several arguments")
        if isinstance(func, ast.Name) and func.id in _VALUE_CALLS and self.lookup(func.id, func) is None:
            return HOLE
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method == "format":
                return self._format(node, depth)
            if method == "join" and len(node.args) == 1:
                sep = self.text(func.value, depth)
                items = self.items(node.args[0], depth)
                if items is None:
                    inner = self.text(node.args[0], depth)
                    items = [Text(inner.values, False, inner.opaque, inner.leaves)]
                if sep.complete and len(sep.values) == 1:
                    return _join(items, sep.values[0])
                return _join([sep, *items])
            if method in _STR_METHODS or method in ("encode", "decode"):
                receiver = self.text(func.value, depth)
                if method in ("encode", "decode") and not node.args and not node.keywords:
                    return receiver
                try:
                    args = [_literal(a) for a in node.args]
                    kwargs = {k.arg: _literal(k.value) for k in node.keywords}
                    return _apply(
                        receiver, lambda v: getattr(v, method)(*args, **kwargs), *args, *kwargs.values()
                    )
                except (ValueError, SyntaxError, TypeError, AttributeError):
                    extra = [self.text(a, depth) for a in node.args]
                    return _join([Text(receiver.values, False, receiver.opaque, receiver.leaves), *extra])
            if method in _VALUE_METHODS or full.startswith(_VALUE_ROOTS):
                return HOLE
            if method == "get" and node.args:
                values = self.items(func.value, depth, keys=False)
                if values is not None:
                    default = [self.text(a, depth) for a in node.args[1:2]]
                    found = _union(values + default)
                    return Text(found.values, False, found.opaque, found.leaves)
        fname = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if fname and fname in self.functions:
            returns = [self._returns(f, depth) for f in self.functions[fname]]
            return _union(returns)
        if full.startswith(_VALUE_ROOTS):
            return HOLE
        return _opaque(f"text made at run time by {full or type(func).__name__}()")

    def _param_items(self, param: tuple, depth: int) -> list[Text] | None:
        """A parameter holding a sequence: the items of every sequence passed to it in this file."""
        function, index, name = param
        owner = self.parent.get(id(function))
        is_method = isinstance(owner, ast.ClassDef)
        fname = getattr(function, "name", None)
        if fname is None:
            return None
        found: list[Text] = []
        default = self._default(function, name)
        args = [default] if default is not None else []
        for call in self.calls.get(owner.name if is_method and fname == "__init__" else fname, []):
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            position = None if index is None else index - 1 if is_method else index
            if arg is None and position is not None and 0 <= position < len(call.args):
                arg = call.args[position]
            if arg is not None:
                args.append(arg)
        for arg in args:
            items = self.items(arg, depth + 1)
            if items is None:
                return None
            found.extend(items)
        return found or None

    def _returns(self, function, depth: int) -> Text:
        if isinstance(function, ast.Lambda):
            return self.text(function.body, depth)
        found = [n.value for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None]
        return _union([self.text(v, depth) for v in found]) if found else HOLE

    def _format(self, node: ast.Call, depth: int) -> Text:
        template = self.text(node.func.value, depth)
        try:
            args = [_literal(a) for a in node.args]
            kwargs = {k.arg: _literal(k.value) for k in node.keywords if k.arg}
            if any(k.arg is None for k in node.keywords):
                raise ValueError
            return _apply(template, lambda v: v.format(*args, **kwargs), *args, *kwargs.values())
        except (ValueError, SyntaxError, TypeError):
            pass
        parts = [Text(template.values, False, template.opaque, template.leaves)]
        parts += [self.text(a, depth) for a in node.args] + [self.text(k.value, depth) for k in node.keywords]
        return _join(parts)

    def items(self, node: ast.AST | None, depth: int = 0, keys: bool = True) -> list[Text] | None:
        """The texts of a sequence (list, tuple, dict keys and values), or None if it is not one."""
        if node is None or depth > MAX_DEPTH:
            return None
        key = id(node) * 2 + keys
        if key not in self.items_memo:
            self.items_memo[key] = None  # a sequence built from itself is not a sequence of known texts
            self.items_memo[key] = self._items(node, depth, keys)
        return self.items_memo[key]

    def _items(self, node: ast.AST, depth: int, keys: bool) -> list[Text] | None:
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            out: list[Text] = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    inner = self.items(e.value, depth + 1)
                    out.extend(inner if inner is not None else [_opaque("a sequence unpacked at run time")])
                else:
                    out.append(self.text(e, depth + 1))
            return out
        if isinstance(node, ast.Dict):
            values = [self.text(v, depth + 1) for v in node.values]
            return [self.text(k, depth + 1) for k in node.keys if k is not None] + values if keys else values
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.items(node.left, depth + 1), self.items(node.right, depth + 1)
            if left is not None or right is not None:
                return (left or [self.text(node.left, depth + 1)]) + (
                    right or [self.text(node.right, depth + 1)]
                )
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("list", "tuple")
        ):
            return self.items(node.args[0], depth + 1) if node.args else []
        if isinstance(node, ast.Name):
            bound = self.lookup(node.id, node) or []
            seqs = []
            for kind, v in bound:
                if kind in ("value", "aug"):
                    seqs.append(self.items(v, depth + 1))
                elif kind == "param":
                    seqs.append(self._param_items(v, depth + 1))
                else:
                    seqs.append(None)
            if bound and all(s is not None for s in seqs):
                out = [t for s in seqs for t in s]
                for m in self.mutations.get(node.id, []):
                    more = self.items(m, depth + 1) if m is not None else None
                    out.extend(more if more is not None else [self.text(m, depth + 1)])
                return out
        if isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            return [_opaque("a comprehension made at run time")]
        return None


def _bind_arguments(call: ast.Call, params: tuple[str, ...], file: _File, partials: tuple[ast.Call, ...]):
    """Parameter name -> argument expression, with `*args` and `**kwargs` resolved where they are
    literals; the names of arguments that could not be placed."""
    bound: dict[str, ast.expr] = {}
    unplaced: list[str] = []
    args = [a for p in partials for a in p.args[1:]]
    keywords = [k for p in partials for k in p.keywords]
    args += call.args
    keywords += call.keywords
    position = 0
    for a in args:
        if isinstance(a, ast.Starred):
            seq = a.value
            if isinstance(seq, ast.Name):
                bound_values = [v for kind, v in (file.lookup(seq.id, seq) or []) if kind == "value"]
                seq = bound_values[0] if len(bound_values) == 1 else seq
            if isinstance(seq, ast.List | ast.Tuple):
                for e in seq.elts:
                    if position < len(params):
                        bound[params[position]] = e
                    position += 1
            else:
                unplaced.append("*" + (_dotted(a.value) or "args"))
            continue
        if position < len(params):
            bound[params[position]] = a
        position += 1
    for k in keywords:
        if k.arg is not None:
            bound[k.arg] = k.value
            continue
        mapping = k.value
        if isinstance(mapping, ast.Name):
            values = [v for kind, v in (file.lookup(mapping.id, mapping) or []) if kind == "value"]
            mapping = values[0] if len(values) == 1 else mapping
        if isinstance(mapping, ast.Dict) and all(isinstance(key, ast.Constant) for key in mapping.keys):
            for key, value in zip(mapping.keys, mapping.values, strict=True):
                bound[str(key.value)] = value
        elif isinstance(mapping, ast.Call) and _dotted(mapping.func) == "dict" and not mapping.args:
            for kw in mapping.keywords:
                if kw.arg is not None:
                    bound[kw.arg] = kw.value
                else:
                    unplaced.append("**" + (_dotted(kw.value) or "kwargs"))
        else:
            unplaced.append("**" + (_dotted(k.value) or "kwargs"))
    return bound, unplaced


def _render_functions(text_items: list[Text], keys: list[Text], values: list[Text]) -> Text:
    """load_inline's bindings as torch writes them: each name and docstring spliced raw into main.cpp."""
    lines = []
    for k, v in zip(keys, values, strict=True):
        lines.append(
            _join(
                [
                    Text(('m.def("',)),
                    k,
                    Text(('", torch::wrap_pybind_function(',)),
                    k,
                    Text(('), "',)),
                    v,
                    Text(('");',)),
                ]
            )
        )
    lines += [
        _join([Text(('m.def("',)), t, Text(('", ',)), t, Text((', "',)), t, Text(('");',))])
        for t in text_items
    ]
    return _join(lines, "\n") if lines else Text(("",))


def _builder_references(file: _File, direct: set[int]) -> Iterator[tuple[int, str]]:
    """Builders and loaders reached other than as the function of a call the rules read: aliases,
    `getattr` and partials that end in such a call are followed; anything else (passing one on, an
    attribute of it, its name in a string) cannot be judged."""

    def followed(node: ast.AST) -> bool:
        parent = file.parent.get(id(node))
        if id(node) in direct:
            return True
        if isinstance(parent, ast.Assign) and all(isinstance(t, ast.Name) for t in parent.targets):
            return True  # an alias, followed where it is called
        wrapper = isinstance(parent, ast.Call) and file.builder_of(parent) is not None
        return wrapper and node in parent.args and followed(parent)  # partial(...) or getattr(...)

    for node in file.nodes:
        if isinstance(node, ast.Constant) and node.value in _BY_LAST_NAME:
            if not followed(node):
                yield node.lineno, f"names {node.value} in a string"
            continue
        if not isinstance(node, ast.Name | ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        found = file.builder_of(node)
        if found is not None and not followed(node):
            yield node.lineno, f"{found[0]} passed on as a value"


_TRIGGERS = frozenset(q.rsplit(".", 1)[1] for q in [*BUILDERS, *LOADERS])


def _spelled(nodes: list[ast.AST], out: Extraction) -> set[str]:
    """Record the file's string constants and identifiers; every name and constant it spells."""
    spelled: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.constants.append((node.value, node.lineno))
            spelled.add(node.value)
        elif isinstance(node, ast.Name):
            out.identifiers.append((node.id, node.lineno))
        elif isinstance(node, ast.Attribute):
            out.identifiers.append((node.attr, node.lineno))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.identifiers.append((node.name, node.lineno))
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            out.identifiers.append((node.arg, getattr(node, "lineno", 0)))
        elif isinstance(node, ast.alias):
            out.identifiers.append(((node.asname or node.name).split(".")[-1], getattr(node, "lineno", 0)))
            spelled.add(node.name.split(".")[-1])
    return spelled | {name for name, _ in out.identifiers}


def extract(tree: ast.Module) -> Extraction:
    """Every native source, flag list and unresolved builder call in the candidate's module."""
    out = Extraction()
    nodes = list(ast.walk(tree))
    if not _spelled(nodes, out) & _TRIGGERS:
        return out  # no compiler or loader is named anywhere (most Triton and Python candidates)
    file = _File(tree, nodes)
    for (_, name), kinds in list(file.bindings.items()):
        for kind, value in kinds:
            if kind != "value":
                continue
            found = file.builder_of(value)
            if found is not None:
                file.builder_aliases[name] = found
    direct: set[int] = set()
    build = 0
    for node in file.nodes:
        if not isinstance(node, ast.Call):
            continue
        found = file.builder_of(node.func)
        if found is None:
            continue
        direct.add(id(node.func))
        qualified, partials = found
        short = qualified.rsplit(".", 1)[-1]
        if qualified in LOADERS:
            out.unresolved.append((node.lineno, f"{short}() loads native code from a file or buffer"))
            continue
        builder = BUILDERS[qualified]
        build += 1
        bound, unplaced = _bind_arguments(node, builder.params, file, partials)
        for what in unplaced:
            out.unresolved.append((node.lineno, f"{short}() arguments {what} cannot be read"))
        texts: dict[str, tuple[Text, int]] = {}
        for param in builder.sources:
            arg = bound.get(param)
            if arg is None or (isinstance(arg, ast.Constant) and arg.value is None):
                continue
            if param == "functions":
                text = _functions_text(file, arg)
            else:
                items = file.items(arg)
                text = _join(items, "\n") if items is not None else file.text(arg)
            if text.opaque:
                out.unresolved.append((arg.lineno, f"{short} {param}: {text.opaque}"))
            texts[param] = (text, arg.lineno)
        if "functions" in texts and "cpp_sources" in texts:  # torch writes both into main.cpp
            (cpp, line), (functions, _) = texts["cpp_sources"], texts.pop("functions")
            texts["cpp_sources"] = (_join([cpp, functions], "\n"), line)
        for param, (text, line) in texts.items():
            out.sources.append(NativeSource(f"{short} {param}", builder.sources[param], text, line, build))
        for role, params in (
            ("flags", builder.flags),
            ("paths", builder.paths),
            ("names", builder.names),
            ("compiler", builder.compiler),
        ):
            for param in params:
                if param not in bound or (
                    isinstance(bound[param], ast.Constant) and bound[param].value is None
                ):
                    continue
                arg = bound[param]
                items = file.items(arg)
                texts = items if items is not None else [file.text(arg)]
                for t in texts:
                    if t.opaque:
                        out.unresolved.append((arg.lineno, f"{short} {param}: {t.opaque}"))
                out.flags.append(NativeFlags(f"{short} {param}", role, texts, arg.lineno, build))
    out.unresolved.extend(_builder_references(file, direct))
    return out


def _functions_text(file: _File, arg: ast.expr) -> Text:
    if isinstance(arg, ast.Dict):
        keys = [file.text(k) if k is not None else _opaque("unpacked") for k in arg.keys]
        values = [file.text(v) for v in arg.values]
        return _render_functions([], keys, values)
    items = file.items(arg)
    if items is None:
        return _render_functions([file.text(arg)], [], [])
    return _render_functions(items, [], [])
