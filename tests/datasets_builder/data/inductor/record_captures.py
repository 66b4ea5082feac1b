"""Record `NAME.captures.json` for a fixture task `NAME.py` on a machine without a GPU: the Inductor
teacher's own capture (one compilation per input signature), with Inductor's Triton code generator
pointed at CPU tensors and each compilation cut off once its output code is written; the graph then
runs eagerly, so Dynamo's guards still decide which input sets compile anew. Nothing runs a kernel,
so no launch configuration is recorded (the translator's defaults apply).

    PYTHONPATH=DIR_WITH_TRITON python tests/datasets_builder/data/inductor/record_captures.py NAME

Needs Triton importable (any CPU machine can pip-install it); `codegen_only(triton=False)` keeps
Inductor's C++ code generator instead, which is what the CPU tests of the capture use."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


class _CodegenDone(Exception):
    """Raised where Inductor would load (and compile) the module it has just written."""


@contextlib.contextmanager
def codegen_only(triton: bool = True):
    """Inductor writes its output code, then the graph runs eagerly instead of compiled."""
    import torch
    import torch._inductor
    import torch._inductor.codegen.triton as triton_codegen
    import torch._inductor.config as inductor_config
    import torch.utils._triton as triton_utils
    from torch._inductor.codecache import PyCodeCache

    real_compile = torch._inductor.compile

    def compile_then_eager(gm, example_inputs):
        try:
            real_compile(gm, example_inputs)
        except Exception as e:  # noqa: BLE001 - Inductor wraps the cut in its own error types
            chain = []
            while e is not None:
                chain.append(e)
                e = e.__cause__ or e.__context__
            if not any(isinstance(c, _CodegenDone) for c in chain):
                raise chain[0] from None
        return gm.forward

    def cut(*args, **kwargs):
        raise _CodegenDone()

    saved = [
        (torch._inductor, "compile", real_compile),
        (PyCodeCache, "load_by_key_path", PyCodeCache.__dict__["load_by_key_path"]),
    ]
    torch._inductor.compile = compile_then_eager
    PyCodeCache.load_by_key_path = classmethod(cut)
    if triton:  # the backend hash needs a GPU driver; the code does not depend on it
        for module in (triton_utils, triton_codegen):
            if hasattr(module, "triton_hash_with_backend"):
                saved.append((module, "triton_hash_with_backend", module.triton_hash_with_backend))
                module.triton_hash_with_backend = lambda: "fake"
    try:
        with inductor_config.patch({"cpu_backend": "triton" if triton else "cpp"}):
            yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


def main(name: str) -> None:
    sys.path.insert(0, str(HERE.parents[3]))
    from benchmark.task import load_task
    from datasets_builder.teachers.inductor_capture import capture
    from datasets_builder.teachers.inductor_record import describe, forward_parameters

    task = load_task(HERE / f"{name}.py")
    with codegen_only():
        captures = capture(task.load_module(), task.source, "cpu")
    names, varargs = forward_parameters(task.source)
    for c in captures:
        print(describe(c.signature, names, varargs))
    (HERE / f"{name}.captures.json").write_text(json.dumps([c.to_dict() for c in captures], indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
