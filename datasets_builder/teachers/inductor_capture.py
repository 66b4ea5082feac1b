"""The GPU side of the Inductor teacher: compile a task's Model with TorchInductor (Triton codegen)
and record what the translator needs (inductor_record.Capture).

The model is compiled through Dynamo with a backend of our own that notes, for every graph input,
which forward argument, parameter or size it is, then hands the graph to Inductor; the compiled
model runs once on the main inputs and once on each alternate input set, so autotuning picks each
kernel's launch configuration, which is recorded too. An input set the guards of an earlier
compilation refuse (another rank, dtype or non-tensor value, a size Dynamo or Inductor
specialised) compiles anew, exactly as torch.compile recompiles; each compilation is one Capture,
with the input signature it serves (its sizes fixed where the graph fixed them), and the capture
checks that dispatching on those signatures sends every input set to the compilation that ran it.

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

import ast
import contextlib
import dataclasses
import re
from dataclasses import dataclass, field

import torch

from datasets_builder.teachers.inductor_record import (
    ArgSignature,
    Capture,
    GraphInput,
    LaunchConfig,
    Signature,
    describe,
    dispatch,
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
_SIZE_SOURCE = re.compile(
    r"\[(?:'(?P<name>\w+)'|(?P<index>\d+))\]\.(?P<prop>size|stride)\(\)\[(?P<dim>\d+)\]$"
)
_ARG_SOURCE = re.compile(r"\[(?:'(?P<name>\w+)'|(?P<index>\d+))\]$")


@dataclass
class _Record:
    """One compilation, filled in as it happens."""

    inputs: tuple[GraphInput, ...] = ()
    configs: dict[str, LaunchConfig] = field(default_factory=dict)
    first_set: int = 0  # the input set whose call compiled it
    fakes: dict[str, object] = field(default_factory=dict)  # forward argument ref -> its fake tensor
    code: str = ""


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
                int(cfg.num_warps),
                int(cfg.num_stages),
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


def _graph_inputs(
    gm,
    example_inputs,
    tensors: list,
    state: dict[int, str],
    names,
    varargs,
    state_ptrs: dict[tuple, str] | None = None,
) -> tuple[GraphInput, ...]:
    """Which forward argument, parameter or size each placeholder of the Dynamo graph is."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise InductorSkip(
            "inputs", f"{len(placeholders)} placeholders for {len(example_inputs)} example inputs"
        )
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
            found.append(
                GraphInput(
                    "param", state_ptrs[(ex.data_ptr(), tuple(ex.shape), tuple(ex.stride()), ex.dtype)]
                )
            )
        else:
            raise InductorSkip(
                "inputs", f"graph input {node.name} is neither a forward argument nor a parameter"
            )
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
            raise InductorSkip(
                "inputs", f"cannot tell what the symbolic input {node.name} ({source or sym}) is"
            )
    return tuple(result)


@contextlib.contextmanager
def output_codes(sink: list[str]):
    """Collect the output module of every graph Inductor compiles meanwhile. Unlike
    `torch._inductor.utils.run_and_get_code`, this keeps Dynamo's cache: an input set the guards of
    an earlier compilation accept must run that compilation, not a new one."""
    from torch._inductor.graph import GraphLowering

    if not hasattr(GraphLowering, "save_output_code"):
        raise RuntimeError("this torch's GraphLowering has no save_output_code hook to read output code from")
    original = GraphLowering.save_output_code
    GraphLowering.save_output_code = staticmethod(sink.append)
    try:
        yield
    finally:
        GraphLowering.save_output_code = original


def concrete_signature(args: list) -> Signature:
    """The signature of one input set, every size fixed; InductorSkip for a value no literal can name."""
    out = []
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            out.append(ArgSignature("tensor", dtype=str(a.dtype), sizes=tuple(int(s) for s in a.shape)))
            continue
        text = repr(a)
        try:
            same = ast.literal_eval(text) == a and type(ast.literal_eval(text)) is type(a)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            same = False
        if not same:
            kind = type(a).__name__
            raise InductorSkip("signature", f"argument {i} is a {kind}, which dispatch cannot compare")
        out.append(ArgSignature("value", value=text))
    return tuple(out)


def _static_size(size) -> int | None:
    """A graph size as the compilation fixed it, or None where the compiled code reads it at run time."""
    if isinstance(size, torch.SymInt):
        return size.node.maybe_as_int()
    return int(size)


def compiled_signature(
    concrete: Signature, fakes: dict[str, object], names: list[str], varargs: str | None
) -> Signature:
    """The signature a compilation serves: its input set's, with each size the graph keeps symbolic
    (a size Dynamo or Inductor specialised, a size 0 or 1 included, stays fixed)."""
    out = []
    for i, a in enumerate(concrete):
        fake = fakes.get(input_ref(i, names, varargs)) if a.kind == "tensor" else None
        if isinstance(fake, torch.Tensor) and fake.dim() == len(a.sizes):
            a = dataclasses.replace(a, sizes=tuple(_static_size(s) for s in fake.shape))
        elif a.kind == "tensor":  # not a graph input: its sizes are read, if at all, at run time
            a = dataclasses.replace(a, sizes=(None,) * len(a.sizes))
        out.append(a)
    return tuple(out)


def narrowed(signature: Signature, concretes: list[Signature]) -> Signature:
    """`signature` with every size fixed that all of `concretes` (the input sets it serves) share."""
    out = []
    for i, a in enumerate(signature):
        if a.kind == "tensor":
            seen = [{c[i].sizes[d] for c in concretes} for d in range(len(a.sizes))]
            sizes = tuple(
                s if s is not None or len(seen[d]) > 1 else next(iter(seen[d])) for d, s in enumerate(a.sizes)
            )
            a = dataclasses.replace(a, sizes=sizes)
        out.append(a)
    return tuple(out)


def check_dispatch(
    signatures: list[Signature],
    concretes: list[Signature],
    served: list[int],
    names: list[str],
    varargs: str | None,
) -> list[Signature]:
    """Signatures under which the translated forward runs each input set with the compilation
    torch.compile ran it with. Where the specialised sizes do not tell compilations apart (a guard
    on a size the code still reads at run time), each compilation's signature also fixes the sizes
    its input sets share; where even that does not, InductorSkip."""

    def wrong(sigs: list[Signature]) -> int | None:
        return next((s for s, c in enumerate(concretes) if dispatch(sigs, c) != served[s]), None)

    if wrong(signatures) is None:
        return signatures
    signatures = [
        narrowed(sig, [c for c, r in zip(concretes, served, strict=True) if r == k])
        for k, sig in enumerate(signatures)
    ]
    bad = wrong(signatures)
    if bad is None:
        return signatures
    chosen = dispatch(signatures, concretes[bad])
    ran = "no compilation"
    if chosen is not None:
        ran = f"the compilation for {describe(signatures[chosen], names, varargs)}"
    right = describe(signatures[served[bad]], names, varargs)
    raise InductorSkip(
        "signature",
        f"input set {describe(concretes[bad], names, varargs)} would run {ran}, "
        f"not the one torch.compile chose ({right})",
    )


def _skip_in(error: BaseException) -> InductorSkip | None:
    """The InductorSkip behind `error`, if any (Dynamo wraps what a backend raises)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, InductorSkip):
            return error
        seen.add(id(error))
        error = getattr(error, "inner_exception", None) or error.__cause__ or error.__context__
    return None


def _limits(n_sets: int) -> dict[str, object]:
    """Dynamo options that let every input set compile once: the recompile limit is 8 by default."""
    import torch._dynamo

    config = torch._dynamo.config
    keys = [k for k in ("recompile_limit", "cache_size_limit") if hasattr(config, k)]
    return {k: max(n_sets + 1, getattr(config, k)) for k in keys}


def capture(
    task_module, task_source: str, device: str, variant: str = "default", seed: int = 0
) -> tuple[Capture, ...]:
    """Compile the task on `device` (a CUDA device) as torch.compile would serve its main inputs and then
    each alternate input set: one compilation serves every set its guards accept, and a set they
    refuse (another rank, dtype or non-tensor value, a size Inductor specialised) compiles anew.
    One Capture per compilation, in order, each with the signature it serves; InductorSkip on failure
    (of any input set: a candidate must run them all)."""
    import torch._dynamo
    import torch._inductor
    import torch._inductor.config as inductor_config
    from torch.fx.experimental import _config as fx_config

    from benchmark.evaluate.program import TaskProgram, pin_precision

    if variant not in VARIANTS:
        raise ValueError(f"unknown Inductor variant {variant!r}; known: {sorted(VARIANTS)}")
    pin_precision()
    names, varargs = forward_parameters(task_source)
    program = TaskProgram(task_module, torch.device(device))
    model = program.build(task_module.Model, seed)
    if isinstance(model, torch.nn.Module):
        model.eval()
    input_sets = [program.inputs(seed + 1000, alt) for alt in [None, *range(program.n_alt())]]
    input_sets = [[dense(x) if isinstance(x, torch.Tensor) else x for x in xs] for xs in input_sets]
    set_names = ["the main inputs"] + [f"alternate input set {j}" for j in range(len(input_sets) - 1)]
    outputs = []
    for tensors in input_sets:
        with torch.no_grad():
            eager = model(*tensors)
        if isinstance(eager, torch.Tensor):
            outputs.append(("tensor", 1))
        elif isinstance(eager, tuple | list) and eager and all(isinstance(o, torch.Tensor) for o in eager):
            outputs.append((type(eager).__name__, len(eager)))
        else:
            kind = type(eager).__name__
            raise InductorSkip("outputs", f"forward returns {kind}; a tensor or a tuple of tensors is needed")
    concretes = [concrete_signature(xs) for xs in input_sets]
    state: dict[int, str] = {}
    state_ptrs: dict[tuple, str] = {}
    if isinstance(model, torch.nn.Module):
        for name, t in [*model.named_parameters(), *model.named_buffers()]:
            state.setdefault(id(t), name)
            state_ptrs.setdefault((t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype), name)
    records: list[_Record] = []
    live: dict[str, object] = {"set": 0, "served": None}

    def backend(gm, example_inputs):
        record = _Record(first_set=live["set"])
        tensors = input_sets[live["set"]]
        record.inputs = _graph_inputs(gm, example_inputs, tensors, state, names, varargs, state_ptrs)
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        record.fakes = {
            g.ref: n.meta.get("example_value")
            for n, g in zip(placeholders, record.inputs, strict=True)
            if g.kind == "input"
        }
        index = len(records)
        records.append(record)
        compiled = torch._inductor.compile(gm, example_inputs)

        def run(*args):
            live["served"] = index
            return compiled(*args)

        return run

    options = available_options({**TEACHER_OPTIONS, **VARIANTS[variant]})
    configs: dict[str, LaunchConfig] = {}
    codes: list[str] = []
    served: list[int] = []
    torch._dynamo.reset()
    duck = getattr(fx_config, "use_duck_shape", None)
    try:
        if duck is not None:
            fx_config.use_duck_shape = False
        dynamo_options = {k: v for k, v in DYNAMO_OPTIONS.items() if hasattr(torch._dynamo.config, k)}
        with (
            torch._dynamo.config.patch({**dynamo_options, **_limits(len(input_sets))}),
            inductor_config.patch(options),
            record_launch_configs(configs),
            output_codes(codes),
        ):
            compiled = torch.compile(_CloneOutputs(model), backend=backend, dynamic=True, fullgraph=True)
            for s, tensors in enumerate(input_sets):
                n_records, n_codes = len(records), len(codes)
                live.update(set=s, served=None)
                configs.clear()  # autotuning runs at a kernel's first launch: this call's are the new ones
                try:
                    with torch.no_grad():
                        compiled(*tensors)
                except Exception as e:  # noqa: BLE001 - any compile failure skips the task, with the reason
                    skip = _skip_in(e)
                    if skip is not None:  # raised by our backend, wrapped by Dynamo
                        detail = f"{set_names[s]}: {skip.detail}" if s else skip.detail
                        raise InductorSkip(skip.reason, detail) from e
                    text = f"{type(e).__name__}: {e}".splitlines()[0][:300]
                    broke = "graph break" in text.lower() or "Unsupported" in text
                    reason = "graph_break" if broke else "compile_error"
                    raise InductorSkip(reason, f"{set_names[s]}: {text}" if s else text) from e
                new_codes = list(dict.fromkeys(codes[n_codes:]))
                if len(records) - n_records != len(new_codes) or len(new_codes) > 1:
                    graphs = len(records) - n_records
                    raise InductorSkip(
                        "format",
                        f"{set_names[s]}: Inductor wrote {len(new_codes)} output "
                        f"modules for {graphs} graphs; one graph was expected",
                    )
                if new_codes:
                    records[-1].code, records[-1].configs = new_codes[0], dict(configs)
                if live["served"] is None:
                    raise InductorSkip(
                        "signature",
                        f"{set_names[s]} ran without a compiled graph "
                        "(Dynamo's recompile limit, or a guard failing on its own inputs)",
                    )
                served.append(live["served"])
        signatures = [compiled_signature(concretes[r.first_set], r.fakes, names, varargs) for r in records]
    finally:
        if duck is not None:
            fx_config.use_duck_shape = duck
        torch._dynamo.reset()
    if len(records) > 1:
        signatures = check_dispatch(signatures, concretes, served, names, varargs)
    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = ""
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else device
    return tuple(
        Capture(
            output_code=r.code,
            inputs=r.inputs,
            outputs=outputs[r.first_set][0],
            n_outputs=outputs[r.first_set][1],
            configs=dict(r.configs),
            variant=variant,
            torch_version=torch.__version__,
            triton_version=triton_version,
            device=gpu,
            signature=sig,
        )
        for r, sig in zip(records, signatures, strict=True)
    )
