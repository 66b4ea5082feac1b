"""Inductor's output code for a task -> a standalone candidate file whose ModelNew launches the same
Triton kernels directly.

What changes, and why:
- Kernels: the `async_compile.triton(NAME, '''...''')` sources lose their imports and the
  `@triton_heuristics.*` autotuning decorator (plain `@triton.jit` stays); `triton_helpers.X` calls
  become copies of those helpers from the installed torch (see inductor_helpers).
- The wrapper's `call(args)` becomes ModelNew.forward: its inputs are bound to forward's arguments,
  the model's parameters and their sizes (from the capture record); `empty_strided_cuda` becomes
  `torch.empty_strided`, `reinterpret_tensor` becomes `as_strided`; stream handles, device guards
  and size asserts go; each `KERNEL.run(args, stream=...)` becomes `KERNEL[grid](args, BLOCK=...,
  num_warps=..., num_stages=...)` with the configuration autotuning chose and the grid Inductor's
  launcher would have computed.
- ModelNew.__init__ is the task's own Model.__init__, so both build the same parameters.
- A task compiled once per input signature (translate_signatures) gets one method per compilation
  (`_forward_0`, ...), and forward dispatches on its arguments' ranks, dtypes, specialised sizes and
  non-tensor values (most specialised first) and raises for any other signature; kernels shared by
  compilations are defined once. A single compilation translates as before, without dispatch.

What cannot become a legal candidate is refused with InductorSkip and a stable reason code:
extern kernels (cuBLAS/cuDNN calls such as mm or convolution), fallback ATen ops, kernels of other
languages, grids this module does not know, compilations whose signatures dispatch cannot tell
apart, and anything else in the wrapper it does not recognise. The result is never trusted: the strict verifier judges it like any other candidate."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import json
from dataclasses import dataclass, field

from benchmark.evaluate.anticheat.allowlist import TORCH_PLUMBING
from datasets_builder.teachers.inductor_helpers import HelperError, helper_name, helper_source
from datasets_builder.teachers.inductor_record import (
    Capture,
    LaunchConfig,
    Signature,
    describe,
    dispatch_order,
    forward_parameters,
    input_ref,
)

SUPPORTED_HEURISTICS = ("pointwise", "reduction", "persistent_reduction", "template")
MAX_Y_GRID = 65535  # CUDA's limit on the y and z grid dimensions
DROPPED_CALLS = {"args.clear", "assert_size_stride", "assert_alignment", "torch.cuda.set_device"}
ALLOC_CALLS = {"empty_strided_cuda", "empty_strided_cpu", "empty_strided"}
STREAM_CALLS = {"get_raw_stream", "get_cuda_stream"}
DEVICE_GUARDS = ("torch.cuda._DeviceGuard", "torch.cuda.device")
PLAIN_CALLS = {"max", "min", "abs", "int", "float", "len", "tuple", "list", "range"}
ALLOWED_IMPORT_ROOTS = ("torch", "nn", "math")
HEADER = """import math

import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice

tl_math = tl.math
"""
LAYOUT_HELPER = '''def _layout(t, order):
    """`t` with its dims laid out in memory in `order` (outermost first), as the kernels index it."""
    p = t.permute(order)
    if p.is_contiguous():
        return t
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return p.contiguous().permute(inverse)
'''


class InductorSkip(Exception):
    """The task's Inductor output cannot become a standalone legal candidate; `reason` is a stable code."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass
class Kernel:
    name: str
    heuristic: str
    params: list[str]  # runtime arguments, in order
    constexprs: list[str]  # constexpr parameters (block sizes)
    body_constants: dict[str, int]  # `R0_BLOCK: tl.constexpr = 1024` lines at the top of the body
    grid_type: str | None
    extra_launcher_args: list[str]
    decorator: dict[str, object]  # literal keyword arguments of the heuristics decorator
    source: str = ""
    helpers: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Translation:
    code: str
    kernels: tuple[str, ...]  # kernel names, in definition order
    launches: int  # kernel launches per forward
    heuristics: tuple[str, ...]  # pointwise / reduction / persistent_reduction / template, per kernel
    signatures: int = 1  # input signatures forward dispatches on (launches counts the first one's)


def _dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - unparse of odd nodes; the caller only compares names
        return ""


def _literal(node: ast.AST) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _dict_entries(node: ast.AST) -> dict[str, object]:
    """String-keyed entries of a dict display whose values are literals (others are left out)."""
    if not isinstance(node, ast.Dict):
        return {}
    out = {}
    for k, v in zip(node.keys, node.values, strict=True):
        key = _literal(k) if k is not None else None
        if isinstance(key, str):
            value = _literal(v)
            if value is not None:
                out[key] = value
    return out


class _KernelRewriter(ast.NodeTransformer):
    """`triton_helpers.X` -> `_ih_X` (recording X); local helper functions renamed per kernel."""

    def __init__(self, local_renames: dict[str, str]):
        self.local = local_renames
        self.helpers: set[str] = set()

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "triton_helpers":
            self.helpers.add(node.attr)
            return ast.copy_location(ast.Name(helper_name(node.attr), node.ctx), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.local:
            return ast.copy_location(ast.Name(self.local[node.id], node.ctx), node)
        return node


def _is_constexpr(arg: ast.arg) -> bool:
    return arg.annotation is not None and _dotted(arg.annotation) in (
        "tl.constexpr",
        "triton.language.constexpr",
    )


def parse_kernel(name: str, source: str) -> Kernel:
    """One kernel module's source (as Inductor wrote it) -> its metadata and a standalone definition."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise InductorSkip("format", f"kernel {name} does not parse: {e.msg}") from e
    main: ast.FunctionDef | None = None
    others: list[ast.FunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and _dotted(node.value).startswith("triton_helpers.set_driver_to_"):
            continue
        if isinstance(node, ast.FunctionDef):
            if node.name == name:
                main = node
            else:
                others.append(node)
            continue
        raise InductorSkip(
            "format", f"kernel {name} has an unexpected top-level statement: {_dotted(node)[:80]}"
        )
    if main is None:
        raise InductorSkip("format", f"kernel source defines no function {name}")
    heuristic, decorator = None, {}
    for dec in main.decorator_list:
        text = _dotted(dec.func if isinstance(dec, ast.Call) else dec)
        if text.startswith("triton_heuristics."):
            heuristic = text.split(".", 1)[1]
            if isinstance(dec, ast.Call):
                for kw in dec.keywords:
                    if kw.arg == "inductor_meta":
                        decorator.update(_dict_entries(kw.value))
                    elif kw.arg == "config":
                        decorator["config"] = _dict_entries(kw.value)
                    elif kw.arg is not None:
                        value = _literal(kw.value)
                        if value is not None:
                            decorator[kw.arg] = value
    if heuristic is None:
        raise InductorSkip("format", f"kernel {name} has no triton_heuristics decorator")
    if heuristic not in SUPPORTED_HEURISTICS:
        raise InductorSkip("unsupported_kernel", f"{name} uses the {heuristic} heuristic")
    main.decorator_list = [ast.parse("triton.jit", mode="eval").body]
    params, constexprs = [], []
    for arg in main.args.args:
        (constexprs if _is_constexpr(arg) else params).append(arg.arg)
    body_constants = {}
    for stmt in main.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            value = _literal(stmt.value) if stmt.value is not None else None
            if isinstance(value, int) and not isinstance(value, bool):
                body_constants[stmt.target.id] = value
    renames = {f.name: f"{name}__{f.name.lstrip('_')}" for f in others}
    rewriter = _KernelRewriter(renames)
    chunks = []
    for fn in [*others, main]:
        fn = rewriter.visit(fn)
        if fn.name in renames:
            fn.name = renames[fn.name]
        chunks.append(ast.unparse(ast.fix_missing_locations(fn)))
    return Kernel(
        name=name,
        heuristic=heuristic,
        params=params,
        constexprs=constexprs,
        body_constants=body_constants,
        grid_type=decorator.get("grid_type"),
        extra_launcher_args=list(decorator.get("extra_launcher_args") or []),
        decorator=decorator,
        source="\n\n\n".join(chunks),
        helpers=rewriter.helpers,
    )


def rename_kernel(kernel: Kernel, new: str) -> Kernel:
    """`kernel` defined as `new`, its local helpers renamed with it (`{new}__fn`): two compilations
    may each have a kernel of the same name and different code."""
    old = kernel.name

    def renamed(name: str) -> str:
        return new + name[len(old) :] if name == old or name.startswith(old + "__") else name

    class _Rename(ast.NodeTransformer):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            node.name = renamed(node.name)
            return self.generic_visit(node)

        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Name(renamed(node.id), node.ctx), node)

    tree = _Rename().visit(ast.parse(kernel.source))
    source = "\n\n\n".join(ast.unparse(ast.fix_missing_locations(fn)) for fn in tree.body)
    return dataclasses.replace(kernel, name=new, source=source)


def default_config(kernel: Kernel) -> LaunchConfig:
    """A safe launch configuration for a kernel whose autotuned one was not recorded."""
    kw: dict[str, int] = {}
    blocks = [c for c in ("XBLOCK", "YBLOCK", "ZBLOCK") if c in kernel.constexprs]
    if kernel.heuristic == "pointwise":
        sizes = {1: [1024], 2: [32, 32], 3: [16, 8, 8]}.get(len(blocks), [])
        kw.update(zip(blocks, sizes, strict=False))
    else:
        kw.update(dict.fromkeys(blocks, 1))
    reduction_blocks = [c for c in kernel.constexprs if c.startswith("R") and c.endswith("_BLOCK")]
    for c in reduction_blocks:
        kw[c] = 1024 if len(reduction_blocks) == 1 else 64
    if kernel.heuristic == "template":
        return LaunchConfig(
            kw, int(kernel.decorator.get("num_warps", 4)), int(kernel.decorator.get("num_stages", 2))
        )
    if isinstance(kernel.decorator.get("config"), dict):
        fixed = dict(kernel.decorator["config"])
        return LaunchConfig(
            {**kw, **{k: v for k, v in fixed.items() if k.isupper()}},
            int(fixed.get("num_warps", 4)),
            int(fixed.get("num_stages", 1)),
        )
    warps = 4 if kernel.heuristic == "pointwise" else 8
    if kernel.heuristic == "persistent_reduction":
        warps = 8 if max(kernel.body_constants.values(), default=0) >= 2048 else 4
    return LaunchConfig(kw, warps, 1)


def _cdiv(numel: str, block: int | None) -> str:
    if block is None or block == 1:
        return numel
    if numel.isdigit():
        return str(-(-int(numel) // block))
    return f"triton.cdiv({numel}, {block})"


class _Forward:
    """Translates the statements of `call(args)` into the body of ModelNew.forward."""

    def __init__(self, kernels: dict[str, Kernel], capture: Capture, names: list[str], varargs: str | None):
        self.kernels = kernels
        self.capture = capture
        self.names = names
        self.varargs = varargs
        self.lines: list[str] = []
        self.launches = 0
        self.streams: set[str] = set()
        self.unpacked = False
        self.returned = False
        self.uses_layout = False
        self.grid_counter = 0

    # expressions
    def expr(self, node: ast.expr) -> str:
        return ast.unparse(_ExprRewriter(self).visit(ast.parse(ast.unparse(node), mode="eval").body))

    # statements
    def body(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id == "args":
            self.prologue(stmt)
            return
        if (
            isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Call)
            and _dotted(stmt.value.func) in STREAM_CALLS
        ):
            self.streams.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
            return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = _dotted(stmt.value.func)
            if func in DROPPED_CALLS:
                return
            if isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "run":
                self.launch(stmt.value)
                return
        if isinstance(stmt, ast.With):
            guard = (
                _dotted(stmt.items[0].context_expr.func)
                if isinstance(stmt.items[0].context_expr, ast.Call)
                else ""
            )
            if len(stmt.items) == 1 and guard.startswith(DEVICE_GUARDS):
                self.body(stmt.body)
                return
            raise InductorSkip("unsupported_statement", f"with {_dotted(stmt.items[0].context_expr)[:80]}")
        if isinstance(stmt, ast.Return):
            self.output(stmt)
            return
        if isinstance(stmt, ast.Delete):
            self.lines.append(ast.unparse(stmt))
            return
        if isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr):
            rewritten = _ExprRewriter(self).visit(ast.parse(ast.unparse(stmt)).body[0])
            self.lines.append(ast.unparse(ast.fix_missing_locations(rewritten)))
            return
        raise InductorSkip("unsupported_statement", ast.unparse(stmt).splitlines()[0][:100])

    def prologue(self, stmt: ast.Assign) -> None:
        target = stmt.targets[0]
        names = [e.id for e in target.elts] if isinstance(target, ast.Tuple) else [target.id]
        inputs = self.capture.inputs
        if len(names) != len(inputs):
            raise InductorSkip(
                "inputs", f"call() takes {len(names)} inputs; the capture describes {len(inputs)}"
            )
        tensor_var = {}
        for name, g in zip(names, inputs, strict=True):
            if g.kind == "input":
                order = tuple(g.order) if g.order is not None else None
                if order is None:
                    self.lines.append(f"{name} = {g.ref}")
                elif order == tuple(range(len(order))):
                    self.lines.append(f"{name} = {g.ref}.contiguous()")
                else:
                    self.uses_layout = True
                    self.lines.append(f"{name} = _layout({g.ref}, {order!r})")
                tensor_var[g.ref] = name
            elif g.kind == "param":
                path = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in g.ref.split("."))
                self.lines.append(f"{name} = self{path}")
        first = next((n for n, g in zip(names, inputs, strict=True) if g.kind == "input"), None)
        if first is None:
            raise InductorSkip("inputs", "the compiled graph takes no tensor input")
        self.lines.append(f"_device = {first}.device")
        for name, g in zip(names, inputs, strict=True):
            if g.kind == "size":
                self.lines.append(f"{name} = {g.ref}.shape[{g.dim}]")
            elif g.kind == "stride":
                self.lines.append(f"{name} = {tensor_var.get(g.ref, g.ref)}.stride({g.dim})")
            elif g.kind == "scalar":
                self.lines.append(f"{name} = {g.ref}")
        self.unpacked = True

    def launch(self, call: ast.Call) -> None:
        name = _dotted(call.func.value)
        kernel = self.kernels.get(name)
        if kernel is None:
            raise InductorSkip("unsupported_call", f"{name}.run is not a Triton kernel of this module")
        extra_kw = [kw.arg for kw in call.keywords if kw.arg not in ("stream",)]
        if extra_kw:
            raise InductorSkip("unsupported_grid", f"{name}.run passes {extra_kw}")
        args = [self.expr(a) for a in call.args]
        n_extra = len(kernel.extra_launcher_args)
        main, extra = (args[: len(args) - n_extra], args[len(args) - n_extra :]) if n_extra else (args, [])
        if len(main) != len(kernel.params):
            raise InductorSkip(
                "format", f"{name} takes {len(kernel.params)} arguments; the wrapper passes {len(main)}"
            )
        bound = dict(zip(kernel.params, main, strict=True))
        cfg = self.capture.configs.get(name) or default_config(kernel)
        fallback = default_config(kernel).kwargs
        constexprs = {}
        for c in kernel.constexprs:
            value = cfg.kwargs.get(c, fallback.get(c))
            if value is None:
                raise InductorSkip("config", f"no value for {name}'s constexpr {c}")
            constexprs[c] = int(value)

        def block(n: str) -> int | None:
            for source in (constexprs, kernel.body_constants, cfg.kwargs):
                if n in source:
                    return int(source[n])
            return None

        def numel(n: str) -> str:
            if n not in bound:
                raise InductorSkip(
                    "unsupported_grid", f"{name} has no {n} argument for its {kernel.grid_type} grid"
                )
            return f"({bound[n]})" if not bound[n].isidentifier() and not bound[n].isdigit() else bound[n]

        grid_type = kernel.grid_type
        if grid_type == "Grid1D":
            grid = [_cdiv(numel("xnumel"), block("XBLOCK"))]
        elif grid_type == "Grid2D":
            grid = [_cdiv(numel("xnumel"), block("XBLOCK")), _cdiv(numel("ynumel"), block("YBLOCK"))]
        elif grid_type == "Grid3D":
            grid = [
                _cdiv(numel("xnumel"), block("XBLOCK")),
                _cdiv(numel("ynumel"), block("YBLOCK")),
                _cdiv(numel("znumel"), block("ZBLOCK")),
            ]
        elif grid_type == "Grid2DWithYZOverflow":
            k = self.grid_counter
            self.grid_counter += 1
            self.lines.append(f"y_grid_{k} = {_cdiv(numel('ynumel'), block('YBLOCK'))}")
            self.lines.append(f"z_grid_{k} = triton.cdiv(y_grid_{k}, {MAX_Y_GRID})")
            grid = [
                _cdiv(numel("xnumel"), block("XBLOCK")),
                f"0 if z_grid_{k} == 0 else triton.cdiv(y_grid_{k}, z_grid_{k})",
                f"z_grid_{k}",
            ]
        elif grid_type == "FixedGrid" and len(extra) == 3:
            grid = extra
        else:
            raise InductorSkip("unsupported_grid", f"{name} uses grid type {grid_type!r}")
        kwargs = [f"{k}={v}" for k, v in constexprs.items()]
        kwargs += [f"num_warps={cfg.num_warps}", f"num_stages={cfg.num_stages}"]
        self.lines.append(f"{kernel.name}[({', '.join(grid)},)]({', '.join([*main, *kwargs])})")
        self.launches += 1

    def output(self, stmt: ast.Return) -> None:
        value = stmt.value
        elts = list(value.elts) if isinstance(value, ast.Tuple | ast.List) else [value]
        if len(elts) != self.capture.n_outputs:
            raise InductorSkip(
                "outputs", f"call() returns {len(elts)} tensors; forward returns {self.capture.n_outputs}"
            )
        parts = [self.expr(e) for e in elts]
        if self.capture.outputs == "tensor":
            self.lines.append(f"return {parts[0]}")
        elif self.capture.outputs == "list":
            self.lines.append(f"return [{', '.join(parts)}]")
        else:
            self.lines.append(f"return ({', '.join(parts)}{',' if len(parts) == 1 else ''})")
        self.returned = True


class _ExprRewriter(ast.NodeTransformer):
    def __init__(self, forward: _Forward):
        self.forward = forward

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)
        func = _dotted(node.func)
        if func in ALLOC_CALLS:
            if len(node.args) < 3:
                raise InductorSkip("format", f"{func} with {len(node.args)} arguments")
            size, stride, dtype = (ast.unparse(a) for a in node.args[:3])
            return ast.parse(
                f"torch.empty_strided({size}, {stride}, dtype={dtype}, device=_device)", mode="eval"
            ).body
        if func == "reinterpret_tensor":
            base, size, stride, offset = (ast.unparse(a) for a in node.args[:4])
            extra = "" if offset == "0" else f", {base}.storage_offset() + {offset}"
            return ast.parse(f"{base}.as_strided({size}, {stride}{extra})", mode="eval").body
        if func == "device":
            return ast.Name("_device", ast.Load())
        if func.startswith("extern_kernels."):
            raise InductorSkip("extern_kernel", f"{func} (a library call, not a Triton kernel)")
        if func.startswith(("aten.", "torch.ops.", "inductor_ops.", "_quantized.")):
            raise InductorSkip("fallback_op", func)
        if func in PLAIN_CALLS or func.startswith(("math.", "triton.cdiv")):
            return node
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in TORCH_PLUMBING
            and not func.startswith("torch.")
        ):
            return node
        raise InductorSkip("unsupported_call", func or ast.unparse(node)[:80])

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.forward.streams:
            raise InductorSkip("unsupported_statement", f"stream handle {node.id} used outside a launch")
        return node


def _find_call(tree: ast.Module) -> ast.FunctionDef:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "call":
            return node
        if isinstance(node, ast.ClassDef) and node.name == "Runner":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "call":
                    return item
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and _dotted(node.value.func) == "Runner"
        ):
            partitions = next((kw.value for kw in node.value.keywords if kw.arg == "partitions"), None)
            if isinstance(partitions, ast.List) and partitions.elts:
                raise InductorSkip("unsupported_statement", "graph partitions")
    raise InductorSkip("format", "the output code defines no call(args)")


def _kernels(tree: ast.Module) -> dict[str, Kernel]:
    kernels: dict[str, Kernel] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        func = _dotted(node.value.func)
        if not func.startswith("async_compile."):
            continue
        name = node.targets[0].id if isinstance(node.targets[0], ast.Name) else "?"
        kind = func.split(".", 1)[1]
        if kind != "triton":
            raise InductorSkip("unsupported_kernel", f"{name} is a {kind} kernel, not Triton")
        source = next((_literal(a) for a in node.value.args[1:2]), None)
        if not isinstance(source, str):
            raise InductorSkip("format", f"kernel {name} has no literal source")
        kernels[name] = parse_kernel(name, source)
    return kernels


def check_translatable(task_source: str) -> None:
    """Raise InductorSkip where the translator cannot copy Model.__init__ (with the constants it
    reads) or forward's signature from the task's source, before anything is compiled."""
    _init_source(task_source)
    _forward_signature(task_source)


def _init_source(task_source: str) -> tuple[str, list[str]]:
    """ModelNew.__init__ copied from the task's Model.__init__, and the module-level constants it reads."""
    tree = ast.parse(task_source)
    model = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
    if model is None:
        raise InductorSkip("init", "the task defines no class Model")
    init = next((n for n in model.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return "def __init__(self):\n    super().__init__()", []
    top: dict[str, ast.stmt] = {}
    imports: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for a in node.names:
                imports[a.asname or a.name.split(".")[0]] = (
                    node.module + "." if isinstance(node, ast.ImportFrom) and node.module else ""
                ) + a.name
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        top[n.id] = node
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AnnAssign):
            name = (
                node.target.id
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                else getattr(node, "name", None)
            )
            if name:
                top[name] = node
    local = {a.arg for a in init.args.args} | {
        n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    used = {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - local
    constants: list[str] = []
    for name in sorted(used):
        if name == "Model" or (hasattr(builtins, name) and name not in top and name not in imports):
            continue
        if name in imports:
            module = imports[name]
            if module not in ("torch", "torch.nn", "math"):
                raise InductorSkip("init", f"Model.__init__ uses {name} ({module})")
            continue
        node = top.get(name)
        if node is None and name in ALLOWED_IMPORT_ROOTS:
            continue
        if node is None:
            raise InductorSkip("init", f"Model.__init__ uses {name}, which the task does not define")
        if not isinstance(node, ast.Assign) or any(isinstance(n, ast.Call) for n in ast.walk(node.value)):
            raise InductorSkip("init", f"Model.__init__ uses {name}, defined by more than a constant")
        text = ast.unparse(node)
        if text not in constants:
            constants.append(text)

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Name("ModelNew", node.ctx), node) if node.id == "Model" else node

    init = _Rename().visit(ast.parse(ast.unparse(init)).body[0])
    return ast.unparse(ast.fix_missing_locations(init)), constants


def _forward_signature(task_source: str) -> str:
    tree = ast.parse(task_source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return ast.unparse(item.args)
    raise InductorSkip("init", "the task defines no Model.forward")


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + line if line.strip() else line for line in text.splitlines())


def _parse(capture: Capture) -> tuple[ast.Module, dict[str, Kernel]]:
    """One compilation's output code and its kernels, by the names the wrapper calls them."""
    try:
        tree = ast.parse(capture.output_code)
    except SyntaxError as e:
        raise InductorSkip("format", f"the output code does not parse: {e.msg}") from e
    kernels = _kernels(tree)
    if not kernels:
        raise InductorSkip("no_triton_kernel", "Inductor generated no Triton kernel for this task")
    return tree, kernels


def _lower(
    tree: ast.Module, kernels: dict[str, Kernel], capture: Capture, names: list[str], varargs: str | None
) -> _Forward:
    """The wrapper's `call(args)` as forward lines."""
    call = _find_call(tree)
    forward = _Forward(kernels, capture, names, varargs)
    forward.body(call.body)
    if not forward.unpacked or not forward.returned:
        raise InductorSkip("format", "call() does not unpack args and return outputs")
    if forward.launches == 0:
        raise InductorSkip("no_triton_kernel", "call() launches no Triton kernel")
    return forward


def _candidate(task_source: str, doc: str, kernels: list[Kernel], uses_layout: bool, methods: str) -> str:
    """The candidate file: header, the constants __init__ reads, helpers, kernels, then ModelNew."""
    helpers: set[str] = set().union(*(k.helpers for k in kernels))
    try:
        helper_text = helper_source(helpers) if helpers else ""
    except HelperError as e:
        raise InductorSkip("helper", str(e)) from e
    init, constants = _init_source(task_source)
    parts = [doc + HEADER]
    if constants:
        parts.append("\n".join(constants))
    if helper_text:
        parts.append(helper_text)
    parts.extend(k.source for k in kernels)
    if uses_layout:
        parts.append(LAYOUT_HELPER.rstrip())
    parts.append("class ModelNew(nn.Module):\n" + _indent(init, 4) + "\n\n" + methods)
    code = "\n\n\n".join(p.strip("\n") for p in parts) + "\n"
    try:
        ast.parse(code)
    except SyntaxError as e:
        raise InductorSkip(
            "format", f"the translated candidate does not parse: {e.msg} (line {e.lineno})"
        ) from e
    return code


def translate(task_source: str, capture: Capture, task_id: str = "task") -> Translation:
    """Build the candidate file; raises InductorSkip when the output cannot become a legal candidate."""
    tree, kernels = _parse(capture)
    names, varargs = forward_parameters(task_source)
    forward = _lower(tree, kernels, capture, names, varargs)
    # A neutral docstring: the file is a training target, and its provenance (teacher, torch and
    # Triton versions, variant) travels in the dataset's columns and the candidate record instead.
    doc = (
        f'"""Triton kernels for {task_id}: {len(kernels)} kernel(s), {forward.launches} launch(es) per '
        'forward, called directly from ModelNew.forward."""\n\n'
    )
    methods = f"    def forward({_forward_signature(task_source)}):\n" + _indent("\n".join(forward.lines), 8)
    code = _candidate(task_source, doc, list(kernels.values()), forward.uses_layout, methods)
    return Translation(
        code=code,
        kernels=tuple(kernels),
        launches=forward.launches,
        heuristics=tuple(k.heuristic for k in kernels.values()),
    )


def _forward_arguments(task_source: str) -> str:
    """How forward passes its own arguments on to a method of the same signature."""
    tree = ast.parse(task_source)
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
    args = next(i for i in model.body if isinstance(i, ast.FunctionDef) and i.name == "forward").args
    parts = [a.arg for a in [*args.posonlyargs, *args.args]][1:]
    if args.vararg:
        parts.append(f"*{args.vararg.arg}")
    parts += [f"{a.arg}={a.arg}" for a in args.kwonlyargs]
    if args.kwarg:
        parts.append(f"**{args.kwarg.arg}")
    return ", ".join(parts)


def _condition(signature: Signature, names: list[str], varargs: str | None, mixed: set[int]) -> list[str]:
    """The test forward applies to its arguments for one signature (ArgSignature.covers, as code),
    one clause per argument."""
    clauses = [f"len({varargs}) == {len(signature) - len(names)}"] if varargs is not None else []
    for i, a in enumerate(signature):
        ref = input_ref(i, names, varargs)
        if a.kind == "value":
            singleton = a.value in ("None", "True", "False")
            clauses.append(f"{ref} is {a.value}" if singleton else f"{ref} == {a.value}")
            continue
        parts = [f"isinstance({ref}, torch.Tensor)"] if i in mixed else []
        parts += [f"{ref}.dim() == {len(a.sizes)}", f"{ref}.dtype == {a.dtype}"]
        parts += [f"{ref}.shape[{d}] == {size}" for d, size in enumerate(a.sizes) if size is not None]
        clauses.append(" and ".join(parts))
    return clauses


def _dispatch(
    signatures: list[Signature], names: list[str], varargs: str | None, call_args: str
) -> list[str]:
    """forward's body: try each signature in dispatch order, and refuse inputs of any other."""
    kinds = [{sig[i].kind for sig in signatures if i < len(sig)} for i in range(max(map(len, signatures)))]
    mixed = {i for i, k in enumerate(kinds) if len(k) > 1}
    lines = ['"""One launch sequence per input signature, as torch.compile compiles one per signature."""']
    for k in dispatch_order(signatures):
        clauses = _condition(signatures[k], names, varargs, mixed)
        test = " and ".join(clauses)
        if len(test) > 90:  # one argument a line
            test = "(\n    " + "\n    and ".join(clauses) + "\n)"
        lines += [f"if {test}:", f"    return self._forward_{k}({call_args})"]
    got = []
    for i, name in enumerate(names[: len(kinds)]):
        tensor = kinds[i] == {"tensor"}
        got.append(f"{name}: {{{name}.dtype}} {{tuple({name}.shape)}}" if tensor else f"{name}={{{name}!r}}")
    if varargs is not None:
        got.append(f"{varargs}: {{len({varargs})}} argument(s)")
    known = [describe(sig, names, varargs) for sig in signatures]
    lines += [
        "raise ValueError(",
        f'    f"no Triton launch sequence for {", ".join(got)}; "',
        '    "translated signatures: "',
    ]
    lines += [f"    {json.dumps(t + '; ' if i < len(known) - 1 else t)}" for i, t in enumerate(known)]
    return [*lines, ")"]


def translate_signatures(task_source: str, captures: list[Capture], task_id: str = "task") -> Translation:
    """One candidate for every compilation of the task: each compilation's launch sequence becomes a
    method `_forward_K` (K in capture order), and forward dispatches on its arguments' signature.
    Kernels are defined once each (by source); a name two compilations give different kernels is
    suffixed with the later one's index. A single compilation translates exactly as `translate`."""
    if not captures:
        raise ValueError("translate_signatures needs at least one capture")
    if len(captures) == 1:
        return translate(task_source, captures[0], task_id)
    names, varargs = forward_parameters(task_source)
    signatures = [c.signature for c in captures]
    if not all(signatures):
        raise ValueError("captures of several compilations must each record the input signature they serve")
    if len(set(signatures)) < len(signatures):
        raise InductorSkip(
            "signature",
            "two compilations serve the same input signature: "
            + describe(next(s for s in signatures if signatures.count(s) > 1), names, varargs),
        )
    lengths = {len(s) for s in signatures}
    if (varargs is None and len(lengths) > 1) or min(lengths) < len(names):
        raise InductorSkip("signature", "the input sets pass different numbers of arguments")
    by_source: dict[str, Kernel] = {}  # a kernel's source with a neutral name -> the kernel as defined
    defined: list[Kernel] = []
    forwards: list[_Forward] = []
    for k, capture in enumerate(captures):
        try:
            tree, kernels = _parse(capture)
            named: dict[str, Kernel] = {}
            for call_name, kernel in kernels.items():
                neutral = rename_kernel(kernel, "_inductor_kernel").source
                if neutral not in by_source:
                    taken = {d.name for d in defined}
                    name = kernel.name if kernel.name not in taken else f"{kernel.name}_sig{k}"
                    by_source[neutral] = kernel if name == kernel.name else rename_kernel(kernel, name)
                    defined.append(by_source[neutral])
                first = by_source[neutral]  # this compilation's launch metadata, the shared definition
                named[call_name] = dataclasses.replace(kernel, name=first.name, source=first.source)
            forwards.append(_lower(tree, named, capture, names, varargs))
        except InductorSkip as e:
            where = describe(capture.signature, names, varargs)
            raise InductorSkip(e.reason, f"signature {where}: {e.detail}") from e
    signature_text = _forward_signature(task_source)
    call_args = _forward_arguments(task_source)
    dispatch_lines = _dispatch(signatures, names, varargs, call_args)
    methods = [f"    def forward({signature_text}):\n" + _indent("\n".join(dispatch_lines), 8)]
    for k, (capture, forward) in enumerate(zip(captures, forwards, strict=True)):
        doc = f'"""Inductor\'s launch sequence for {describe(capture.signature, names, varargs)}."""'
        body = _indent("\n".join([doc, *forward.lines]), 8)
        methods.append(f"    def _forward_{k}({signature_text}):\n" + body)
    launches = ", ".join(str(f.launches) for f in forwards)
    doc = (
        f'"""Triton kernels for {task_id}: {len(defined)} kernel(s), {len(captures)} input signatures '
        f'({launches} launch(es) per forward), called directly from ModelNew.forward."""\n\n'
    )
    code = _candidate(task_source, doc, defined, any(f.uses_layout for f in forwards), "\n\n".join(methods))
    return Translation(
        code=code,
        kernels=tuple(k.name for k in defined),
        launches=forwards[0].launches,
        heuristics=tuple(k.heuristic for k in defined),
        signatures=len(captures),
    )
