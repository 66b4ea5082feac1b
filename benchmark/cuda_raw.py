"""The raw-CUDA fast path: compile CUDA C with pycuda's SourceModule (under a second, nothing
from pycuda's cache, against tens of seconds for a load_inline extension) and launch its kernels on torch
tensors, inside torch's CUDA context (pycuda.autoprimaryctx shares the primary context).

    from benchmark.cuda_raw import compile_cuda
    mod = compile_cuda(SOURCE)                      # SOURCE holds extern "C"-free __global__ kernels
    relu = mod.kernel("relu", "PPq")                # argument types: P pointer, i int32, q int64, f float
    relu(x, y, x.numel(), grid=(blocks,), block=(256,))

Kernels launch on torch's default stream, which is the current stream everywhere the harness runs
them; launching while another stream is current is refused rather than silently unordered, since
pycuda cannot adopt a stream created by torch. pycuda is an optional dependency (`[gpu]` extra)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import torch

_ARG_TYPES = set("Piqf")


class RawCudaError(RuntimeError):
    pass


def _pycuda():
    try:
        import pycuda.driver as driver
        from pycuda.compiler import SourceModule
    except ImportError as e:
        raise RawCudaError("the raw-CUDA path needs pycuda: pip install 'solbench[gpu]'") from e
    return driver, SourceModule


def _cache_dir() -> str | None:
    root = os.environ.get("SOLBENCH_CACHE")
    if not root:
        return None
    path = Path(root) / "pycuda"
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


@dataclass
class RawKernel:
    function: object
    arg_types: str
    name: str

    def __call__(self, *args, grid: tuple[int, ...], block: tuple[int, ...], shared: int = 0) -> None:
        if len(args) != len(self.arg_types):
            raise RawCudaError(
                f"{self.name} takes {len(self.arg_types)} arguments ({self.arg_types}), got {len(args)}"
            )
        if torch.cuda.current_stream() != torch.cuda.default_stream():
            raise RawCudaError("raw-CUDA kernels launch on torch's default stream; another stream is current")
        values = []
        for kind, arg in zip(self.arg_types, args, strict=True):
            if kind == "P":
                if not isinstance(arg, torch.Tensor) or not arg.is_cuda:
                    raise RawCudaError(
                        f"{self.name}: a pointer argument needs a CUDA tensor, got {type(arg).__name__}"
                    )
                values.append(arg.data_ptr())
            else:
                values.append(float(arg) if kind == "f" else int(arg))
        if len(grid) > 2 or len(block) > 3:
            raise RawCudaError("grid takes at most 2 dimensions and block at most 3")
        grid2 = (*grid, 1)[:2] if len(grid) == 1 else tuple(grid)
        block3 = (*block, 1, 1)[:3]
        self.function.prepared_async_call(grid2, block3, None, *values, shared_size=shared)


class RawModule:
    def __init__(self, module):
        self._module = module

    def kernel(self, name: str, arg_types: str) -> RawKernel:
        """`arg_types`: one letter per argument, P (tensor pointer), i (int32), q (int64), f (float32)."""
        if not set(arg_types) <= _ARG_TYPES:
            raise RawCudaError(
                f"argument types must be letters from {''.join(sorted(_ARG_TYPES))}, got {arg_types!r}"
            )
        function = self._module.get_function(name)
        function.prepare(arg_types)
        return RawKernel(function, arg_types, name)


def compile_cuda(source: str, options: list[str] | None = None) -> RawModule:
    """Compile CUDA C source (kernels are wrapped in extern "C" by pycuda) for the current GPU."""
    _, source_module = _pycuda()
    torch.cuda.init()  # torch creates the primary context first; pycuda then adopts it
    import pycuda.autoprimaryctx  # noqa: F401 - binds pycuda to the primary context torch uses

    try:
        return RawModule(source_module(source, options=options or ["-O3"], cache_dir=_cache_dir()))
    except Exception as e:  # pycuda raises CompileError with the compiler's log
        raise RawCudaError(f"build failed:\n{e}") from e
