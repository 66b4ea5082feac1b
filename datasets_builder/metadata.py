"""Tensor metadata of a task (stage 2 of the synthesis): what a prompt tells the model beyond the
program text. Shapes, strides and dtypes of every input, parameter, buffer and output at full size,
the alternate input shapes the candidate must also handle, the matrix FLOPs and least bytes of one
forward (benchmark.evaluate.sol.count) and, when the GPU's profile is known, the speed-of-light floor
(benchmark.evaluate.sol.floor_ms): the time below which no kernel can run.

The reference runs once, on the device the build uses, with the harness's seeding conventions."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from benchmark.evaluate import sol
from benchmark.evaluate.device_profile import DeviceProfile
from benchmark.evaluate.program import TaskProgram, clone_args
from benchmark.task import Task


@dataclass(frozen=True)
class TensorMeta:
    name: str
    role: str  # input | parameter | buffer | output
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: str

    def line(self) -> str:
        contiguous = self.stride == _contiguous_strides(self.shape)
        layout = "contiguous" if contiguous else f"stride {list(self.stride)}"
        label = self.name if self.name.startswith(self.role) else f"{self.role} {self.name}"
        return f"{label}: shape {list(self.shape)}, {self.dtype}, {layout}"


@dataclass(frozen=True)
class TaskMetadata:
    task_id: str
    tensors: tuple[TensorMeta, ...]
    alt_input_shapes: tuple[
        tuple[tuple[int, ...], ...], ...
    ]  # per alternate set, the shape of each tensor input
    flops: int
    bytes: int
    sol_ms: float | None = None
    gpu: str | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> TaskMetadata:
        d = dict(d)
        d["tensors"] = tuple(
            TensorMeta(**{**t, "shape": tuple(t["shape"]), "stride": tuple(t["stride"])})
            for t in d["tensors"]
        )
        d["alt_input_shapes"] = tuple(tuple(tuple(s) for s in alt) for alt in d.get("alt_input_shapes", ()))
        return cls(**d)

    def render(self) -> str:
        """The metadata block of a prompt."""
        lines = ["Tensor metadata of the reference at full size:"]
        lines += [f"- {t.line()}" for t in self.tensors]
        if self.alt_input_shapes:
            alts = "; ".join(", ".join(str(list(s)) for s in alt) for alt in self.alt_input_shapes)
            lines.append(f"- the kernels must also handle these other input shapes: {alts}")
        work = f"- work of one forward: {self.flops / 1e9:.3g} GFLOP of matrix math, at least {self.bytes / 1e6:.4g} MB moved"
        if self.sol_ms is not None and self.gpu:
            work += f"; speed-of-light floor on {self.gpu}: {self.sol_ms:.4g} ms"
        lines.append(work)
        return "\n".join(lines)


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(size, 1)
    return tuple(reversed(strides))


def _meta(name: str, role: str, t: torch.Tensor) -> TensorMeta:
    return TensorMeta(name, role, tuple(t.shape), tuple(t.stride()), str(t.dtype).removeprefix("torch."))


def describe(
    task: Task, device: str = "cpu", profile: DeviceProfile | None = None, seed: int = 0, module=None
) -> TaskMetadata:
    """Run the reference once at full size on `device` and describe its tensors and work."""
    from benchmark.task import import_file

    module = module or import_file(task.path, f"solbench_meta_{task.hash[:16]}")
    program = TaskProgram(module, torch.device(device))
    model = program.build(module.Model, seed)
    inputs = program.inputs(seed + 1000)
    names = _forward_names(module, len(inputs))
    tensors = [
        _meta(n, "input", x) for n, x in zip(names, inputs, strict=True) if isinstance(x, torch.Tensor)
    ]
    if isinstance(model, torch.nn.Module):
        tensors += [_meta(n, "parameter", p) for n, p in model.named_parameters()]
        tensors += [_meta(n, "buffer", b) for n, b in model.named_buffers()]
    counts, out = sol.count(model, clone_args(inputs))
    outs = sol.tensor_leaves(out)
    tensors += [
        _meta("output" if len(outs) == 1 else f"output[{i}]", "output", o) for i, o in enumerate(outs)
    ]
    alts = []
    for j in range(program.n_alt()):
        alts.append(
            tuple(tuple(x.shape) for x in program.inputs(seed + 2000 + j, j) if isinstance(x, torch.Tensor))
        )
    sol_ms = sol.floor_ms(counts, profile, task.dtype) if profile is not None else None
    return TaskMetadata(
        task_id=task.task_id,
        tensors=tuple(tensors),
        alt_input_shapes=tuple(alts),
        flops=counts.flops,
        bytes=counts.bytes,
        sol_ms=sol_ms,
        gpu=profile.gpu if profile is not None else None,
    )


def _forward_names(module, n: int) -> list[str]:
    import inspect

    try:
        params = list(inspect.signature(module.Model.forward).parameters)[1:]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) and not params[i].startswith("*") else f"input{i}" for i in range(n)]
