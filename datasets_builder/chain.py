"""Operator chains with shape inference: the engine behind synthesized variants and compositions.

A ChainBuilder holds the forward program being built: its inputs, parameters, and the value each
line computes with its named dims (e.g. ("B", "N", "D")). Each operator checks that it applies to
the current value's shape and records the new shape, so a chain of any length is well-formed by
construction; its cost model (sizing.Cost) is linear in the row count "N", which is what the sizes
are solved for. Sizes other than N are fixed before the chain is built."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from datasets_builder.ops import Op
from datasets_builder.sizing import Cost, SizeConfig, op_seconds
from datasets_builder.task_source import DTYPES, ELEMENT_SIZE, InputSpec

ROWS = "N"


class ShapeError(ValueError):
    """The operator does not apply to the current value's shape."""


@dataclass
class ChainBuilder:
    dtype: str
    sizes: dict[str, int]  # every size but N, which is solved for later
    rng: random.Random
    inputs: list[InputSpec] = field(default_factory=list)
    init: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ops: list[str] = field(default_factory=list)
    fixed_dims: set[str] = field(default_factory=set)  # sizes parameters depend on (never free)
    uses_functional: bool = False
    current: str = ""
    _terms: list[tuple[tuple[str, ...], float, float, float]] = field(
        default_factory=list
    )  # (dims, passes, flops/elem, out elems ratio)
    _param_elems: int = 0
    _counter: int = 0

    # values
    def add_input(
        self,
        dims: tuple[str, ...],
        order: tuple[int, ...] | None = None,
        init: str = "randn",
        scale: float = 1.0,
        offset: float = 0.0,
    ) -> str:
        name = "x" if not self.inputs else f"x{len(self.inputs)}"
        self.inputs.append(InputSpec(name, dims, init=init, scale=scale, offset=offset, order=order))
        self.values[name] = dims
        if not self.current:
            self.current = name
        return name

    def _new(self, dims: tuple[str, ...], expr: str, op: Op) -> str:
        name = f"t{self._counter}"
        self._counter += 1
        self.lines.append(f"{name} = {expr}")
        self.values[name] = dims
        self.current = name
        self.ops.append(op.name)
        self.uses_functional |= op.functional
        return name

    def _param(self, op: Op, d: str, h: str | None = None) -> str:
        if ROWS in (d, h):
            raise ShapeError("a parameter cannot depend on the row count, which the alternate inputs change")
        attr = f"{op.name.split('_')[0]}{sum(1 for o in self.ops if o == op.name)}"
        text = op.param.format(p=attr, d=d.lower(), h=(h or d).lower(), dt=DTYPES[self.dtype])
        self.init.extend(text.splitlines())
        self.fixed_dims.update({d, h} - {None})
        self._param_elems += self.sizes[d] * (self.sizes[h] if h else 1) + (
            self.sizes[h] if h else self.sizes[d]
        )
        return attr

    # operators
    def unary(self, op: Op) -> str:
        dims = self.values[self.current]
        self._terms.append((dims, op.passes, 0.0, 1.0))
        return self._new(dims, op.template.format(x=self.current), op)

    def binary(self, op: Op, operand: str) -> str:
        """operand: "input" (a new input of the same shape), "row" (a new input over the last size),
        "param" (a parameter over the last size) or the name of an earlier value of the same shape."""
        dims = self.values[self.current]
        if operand == "input":
            y = self.add_input(dims, scale=1.0)
        elif operand == "row":
            y = self.add_input((dims[-1],), init="rand", offset=0.5)
        elif operand == "param":
            if dims[-1] == ROWS:
                raise ShapeError(
                    "a parameter cannot depend on the row count, which the alternate inputs change"
                )
            attr = f"w{len(self.init)}"
            self.init.append(
                f"self.{attr} = nn.Parameter(torch.randn({dims[-1].lower()}, dtype={DTYPES[self.dtype]}))"
            )
            self.fixed_dims.add(dims[-1])
            self._param_elems += self.sizes[dims[-1]]
            y = f"self.{attr}"
        else:
            if self.values.get(operand) != dims:
                raise ShapeError(f"{operand} has dims {self.values.get(operand)}, not {dims}")
            y = operand
        self._terms.append((dims, op.passes, 0.0, 1.0))
        return self._new(dims, op.template.format(x=self.current, y=y), op)

    def reduce(self, op: Op, axis: int, keepdim: bool) -> str:
        dims = self.values[self.current]
        if len(dims) < 2:
            raise ShapeError("reducing a 1-d value would leave a scalar")
        axis = axis % len(dims)
        dim_text = str(axis - len(dims)) if axis == len(dims) - 1 else str(axis)
        out = dims[:axis] + dims[axis + 1 :] if not keepdim else dims
        ratio = 1.0 / (self.sizes.get(dims[axis], 1) if dims[axis] != ROWS else 1)
        self._terms.append((dims, op.passes, 0.0, ratio))
        expr = op.template.format(x=self.current, dim=dim_text, kd=", keepdim=True" if keepdim else "")
        name = self._new(out if not keepdim else dims[:axis] + ("1",) + dims[axis + 1 :], expr, op)
        return name

    def norm(self, op: Op) -> str:
        dims = self.values[self.current]
        expr = op.template.format(x=self.current, p="{p}")
        if op.param:
            expr = expr.replace("{p}", self._param(op, dims[-1]))
        self._terms.append((dims, op.passes, 0.0, 1.0))
        return self._new(dims, expr, op)

    def linear(self, op: Op, out_dim: str) -> str:
        dims = self.values[self.current]
        attr = self._param(op, dims[-1], out_dim)
        self._terms.append((dims, 1.0, 2.0 * self.sizes[out_dim], self.sizes[out_dim] / self.sizes[dims[-1]]))
        return self._new(dims[:-1] + (out_dim,), op.template.format(x=self.current, p=attr), op)

    def transpose(self, op: Op) -> str:
        dims = self.values[self.current]
        if len(dims) < 2:
            raise ShapeError("transposing needs two dims")
        return self._new(dims[:-2] + (dims[-1], dims[-2]), op.template.format(x=self.current), op)

    # results
    def cost(self, cfg: SizeConfig) -> Cost:
        es = ELEMENT_SIZE[self.dtype]
        per_row = fixed = bytes_row = 0.0
        for dims, passes, flops_per_elem, out_ratio in self._terms:
            clean = tuple(d for d in dims if d != "1")
            elems = math.prod(self.sizes[d] for d in clean if d != ROWS)
            nbytes = elems * es * (passes + out_ratio)
            t = op_seconds(nbytes, elems * flops_per_elem, self.dtype, cfg)
            if ROWS in clean:
                per_row += t
                bytes_row += elems * es
            else:
                fixed += t
        for inp in self.inputs:
            elems = math.prod(self.sizes[d] for d in inp.dims if d != ROWS)
            if ROWS in inp.dims:
                bytes_row += elems * es
        n_ops = len(self._terms)
        return Cost(
            per_row_s=per_row,
            fixed_s=fixed + n_ops * cfg.launch_ms * 1e-3,
            bytes_per_row=bytes_row * 2,
            fixed_bytes=self._param_elems * es,
        )

    def value_dims(self, name: str) -> tuple[str, ...]:
        return self.values[name]
