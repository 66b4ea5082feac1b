"""The GPU side of the Inductor teacher: compile a task's Model with TorchInductor (Triton codegen)
and record what the translator needs (inductor_record.Capture).

The model is compiled through Dynamo with a backend of our own that notes, for every graph input,
which forward argument, parameter or size it is, then hands the graph to Inductor; the compiled
model runs once, so autotuning picks each kernel's launch configuration, which is recorded too.

Settings, and why (all in `teacher_options`, overridable per variant):
- dynamic shapes, no duck sizing: the candidate must also run on the task's alternate shapes, so
  sizes are symbols read from the inputs at run time, never constants baked into the kernels;
  Python floats and ints held by the model (a norm's eps) stay constants;
- matmuls through Inductor's Triton templates (max_autotune_gemm with the TRITON backend only, a
  few configs): otherwise mm/addmm/bmm become cuBLAS extern calls, which the strict anti-cheat
  refuses; convolutions the same way where a Triton template exists;
- emulate_precision_casts: bf16/fp16 intermediates rounded as eager rounds them, so results stay
  inside the task's tolerance;
- outputs cloned before they leave the graph, so no output is a view that AOTAutograd rebuilds
  outside the compiled code;
- one compile thread, no FX graph cache: workers compile many small graphs in parallel, and a
  cache hit would skip the code we read.

This needs a CUDA device: on a CPU, Inductor emits C++ rather than Triton."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field

import torch

from datasets_builder.teachers.inductor_record import (
    Capture,
    GraphInput,
    LaunchConfig,
    forward_parameters,
    input_ref,
)
from datasets_builder.teachers.inductor_translate import InductorSkip

TEACHER_OPTIONS: dict[str, object] = {
    "compile_threads": 1,
    "fx_graph_cache": False,
    "max_autotune_gemm": True,
    "max_autotune_gemm_backends": "TRITON",
    "max_autotune_conv_backends": "TRITON",
    "emulate_precision_casts": True,
    "triton.autotune_pointwise": False,
    "test_configs.max_mm_configs": 4,
    "benchmark_epilogue_fusion": False,
}
DYNAMO_OPTIONS: dict[str, object] = {
    "specialize_float": True,
    "specialize_int": True,
}
VARIANTS: dict[str, dict[str, object]] = {
    "default": {},
    "looped_reductions": {"triton.persistent_reductions": False},
    "unfused": {"max_fusion_size": 1},
    # Inductor's pattern matcher rewrites softmax(QK^T)V into scaled_dot_product_attention, which
    # then runs as a library kernel; without it the attention stays Triton. The teacher retries a
    # task that way when a variant meets a library call or fallback.
    "no_patterns": {"pattern_matcher": False},
}
RETRY = "no_patterns"
RETRY_REASONS = ("fallback_op", "extern_kernel")
_SIZE_SOURCE = re.compile(r"\[(?:'(?P<name>\w+)'|(?P<index>\d+))\]\.(?P<prop>size|stride)\(\)\[(?P<dim>\d+)\]$")
_ARG_SOURCE = re.compile(r"\[(?:'(?P<name>\w+)'|(?P<index>\d+))\]$")


@dataclass
class _Record:
    inputs: tuple[GraphInput, ...] = ()
    configs: dict[str, LaunchConfig] = field(default_factory=dict)


class _CloneOutputs(torch.nn.Module):
    """The task's model with every output tensor cloned, so outputs are never views of anything."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        out = self.model(*args)
        if isinstance(out, torch.Tensor):
            return out.clone()
        cloned = [o.clone() if isinstance(o, torch.Tensor) else o for o in out]
        return tuple(cloned) if isinstance(out, tuple) else cloned


def memory_order(t: torch.Tensor) -> tuple[int, ...]:
    """Dims of `t` from outermost to innermost in memory (identity for a contiguous tensor)."""
    return tuple(sorted(range(t.dim()), key=lambda d: (-t.stride(d), d)))


def dense(t: torch.Tensor) -> torch.Tensor:
    """`t` itself when its memory is dense in some dim order, else a contiguous copy."""
    if t.is_contiguous() or t.permute(memory_order(t)).is_contiguous():
        return t
    return t.contiguous()


def available_options(options: dict[str, object]) -> dict[str, object]:
    """The options this torch knows; older versions lack some (a missing one is simply not set)."""
    import torch._inductor.config as config

    known = {}
    for key, value in options.items():
        obj, *path = key.split(".")
        target = config
        for part in [obj, *path][:-1]:
            target = getattr(target, part, None)
            if target is None:
                break
        if target is not None and hasattr(target, key.split(".")[-1]):
            known[key] = value
    return known


@contextlib.contextmanager
def record_launch_configs(store: dict[str, LaunchConfig]):
    """Note the launch configuration each Inductor kernel runs with (after its autotuning)."""
    from torch._inductor.runtime import triton_heuristics

    original = triton_heuristics.CachingAutotuner.run

    def run(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        launchers = getattr(self, "launchers", None) or []
        cfg = getattr(launchers[0], "config", None) if launchers else None
        name = getattr(self.fn, "__name__", None) or self.inductor_meta.get("kernel_name")
        if cfg is not None and name:
            store[name] = LaunchConfig(
                {k: int(v) for k, v in cfg.kwargs.items() if isinstance(v, int)},
                int(cfg.num_warps), int(cfg.num_stages),
            )
        return result

    triton_heuristics.CachingAutotuner.run = run
    try:
        yield
    finally:
        triton_heuristics.CachingAutotuner.run = original


def _symbol(value) -> str | None:
    if isinstance(value, torch.SymInt):
        return str(value.node.expr)
    return None


def _graph_inputs(gm, example_inputs, tensors: list, state: dict[int, str], names, varargs,
                  state_ptrs: dict[tuple, str] | None = None) -> tuple[GraphInput, ...]:
    """Which forward argument, parameter or size each placeholder of the Dynamo graph is."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise InductorSkip("inputs", f"{len(placeholders)} placeholders for {len(example_inputs)} example inputs")
    by_ptr = {}
    for i, t in enumerate(tensors):
        if isinstance(t, torch.Tensor):
            by_ptr.setdefault((t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype), i)
    fake_sizes: dict[str, tuple[str, int, str]] = {}  # symbol -> (input ref, dim, size|stride)
    found: list[GraphInput | None] = []
    for node, ex in zip(placeholders, example_inputs, strict=True):
        if not isinstance(ex, torch.Tensor):
            found.append(None)
            continue
        index = next((i for i, t in enumerate(tensors) if t is ex), None)
        if index is None:
            index = by_ptr.get((ex.data_ptr(), tuple(ex.shape), tuple(ex.stride()), ex.dtype))
        if index is not None:
            ref = input_ref(index, names, varargs)
            found.append(GraphInput("input", ref, order=memory_order(ex)))
            fake = node.meta.get("example_value")
            if isinstance(fake, torch.Tensor):
                for d, s in enumerate(fake.shape):
                    sym = _symbol(s)
                    if sym:
                        fake_sizes.setdefault(sym, (ref, d, "size"))
                for d, s in enumerate(fake.stride()):
                    sym = _symbol(s)
                    if sym:
                        fake_sizes.setdefault(sym, (ref, d, "stride"))
        elif id(ex) in state:
            found.append(GraphInput("param", state[id(ex)]))
        elif (state_ptrs or {}).get((ex.data_ptr(), tuple(ex.shape), tuple(ex.stride()), ex.dtype)):
            found.append(GraphInput("param", state_ptrs[(ex.data_ptr(), tuple(ex.shape), tuple(ex.stride()), ex.dtype)]))
        else:
            raise InductorSkip("inputs", f"graph input {node.name} is neither a forward argument nor a parameter")
    result = []
    for node, g in zip(placeholders, found, strict=True):
        if g is not None:
            result.append(g)
            continue
        sym = _symbol(node.meta.get("example_value"))
        if sym in fake_sizes:
            ref, dim, prop = fake_sizes[sym]
            result.append(GraphInput(prop, ref, dim=dim))
            continue
        grapharg = node.meta.get("grapharg")
        source = grapharg.source.name() if grapharg is not None and getattr(grapharg, "source", None) else ""
        m = _SIZE_SOURCE.search(source)
        a = _ARG_SOURCE.search(source)
        if m:
            i = int(m["index"]) if m["index"] is not None else names.index(m["name"])
            result.append(GraphInput(m["prop"], input_ref(i, names, varargs), dim=int(m["dim"])))
        elif a:
            i = int(a["index"]) if a["index"] is not None else names.index(a["name"])
            result.append(GraphInput("scalar", input_ref(i, names, varargs)))
        else:
            raise InductorSkip("inputs", f"cannot tell what the symbolic input {node.name} ({source or sym}) is")
    return tuple(result)


def _compile(module, tensors: list) -> tuple[object, list[str]]:
    """Run the compiled module once and return its output and Inductor's output code."""
    from torch._inductor.utils import run_and_get_code

    with torch.no_grad():
        return run_and_get_code(module, *tensors)


def capture(task_module, task_source: str, device: str, variant: str = "default", seed: int = 0) -> Capture:
    """Compile the task on `device` (a CUDA device) and record its Inductor output; InductorSkip on failure."""
    import torch._dynamo
    import torch._inductor
    import torch._inductor.config as inductor_config
    from torch.fx.experimental import _config as fx_config

    from benchmark.worker import TaskProgram, pin_precision

    if variant not in VARIANTS:
        raise ValueError(f"unknown Inductor variant {variant!r}; known: {sorted(VARIANTS)}")
    pin_precision()
    names, varargs = forward_parameters(task_source)
    program = TaskProgram(task_module, torch.device(device))
    model = program.build(task_module.Model, seed)
    if isinstance(model, torch.nn.Module):
        model.eval()
    tensors = [dense(x) if isinstance(x, torch.Tensor) else x for x in program.inputs(seed + 1000)]
    with torch.no_grad():
        eager = model(*tensors)
    if isinstance(eager, torch.Tensor):
        outputs, n_outputs = "tensor", 1
    elif isinstance(eager, tuple | list) and eager and all(isinstance(o, torch.Tensor) for o in eager):
        outputs, n_outputs = type(eager).__name__, len(eager)
    else:
        raise InductorSkip("outputs", f"forward returns {type(eager).__name__}; a tensor or a tuple of tensors is needed")
    state: dict[int, str] = {}
    state_ptrs: dict[tuple, str] = {}
    if isinstance(model, torch.nn.Module):
        for name, t in [*model.named_parameters(), *model.named_buffers()]:
            state.setdefault(id(t), name)
            state_ptrs.setdefault((t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype), name)
    record = _Record()

    def backend(gm, example_inputs):
        record.inputs = _graph_inputs(gm, example_inputs, tensors, state, names, varargs, state_ptrs)
        return torch._inductor.compile(gm, example_inputs)

    options = available_options({**TEACHER_OPTIONS, **VARIANTS[variant]})
    torch._dynamo.reset()
    duck = getattr(fx_config, "use_duck_shape", None)
    try:
        if duck is not None:
            fx_config.use_duck_shape = False
        dynamo_options = {k: v for k, v in DYNAMO_OPTIONS.items() if hasattr(torch._dynamo.config, k)}
        with torch._dynamo.config.patch(dynamo_options), inductor_config.patch(options), \
                record_launch_configs(record.configs):
            compiled = torch.compile(_CloneOutputs(model), backend=backend, dynamic=True, fullgraph=True)
            try:
                _, codes = _compile(compiled, tensors)
            except InductorSkip:
                raise
            except Exception as e:  # noqa: BLE001 - any compile failure skips the task, with the reason
                text = f"{type(e).__name__}: {e}".splitlines()[0][:300]
                reason = "graph_break" if "graph break" in text.lower() or "Unsupported" in text else "compile_error"
                raise InductorSkip(reason, text) from e
    finally:
        if duck is not None:
            fx_config.use_duck_shape = duck
        torch._dynamo.reset()
    if len(codes) != 1:
        raise InductorSkip("format", f"Inductor wrote {len(codes)} output modules; one graph was expected")
    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = ""
    return Capture(
        output_code=codes[0], inputs=record.inputs, outputs=outputs, n_outputs=n_outputs,
        configs=dict(record.configs), variant=variant, torch_version=torch.__version__,
        triton_version=triton_version, device=torch.cuda.get_device_name() if torch.cuda.is_available() else device,
    )
