"""Anti-cheat: the checks that stop a candidate from passing without computing the task's function
with its own kernels. Every finding is a stable flag name from FLAGS; in strict mode any flag
fails the sample with the `cheat` verdict. docs/anti-cheat.md maps each exploit to its check."""

FLAGS: dict[str, str] = {
    # static analysis of the source
    "torch_compute_op": "calls a torch compute op or torch.nn.functional in code reachable from forward",
    "torch_compile": "uses torch.compile, torch.jit or torch._dynamo",
    "subclasses_reference": "ModelNew is, or derives from, the reference Model",
    "try_fallback": "try/except that can fall back to another code path",
    "forbidden_import": "imports a compute library or a process/thread/network/introspection module",
    "forbidden_call": "calls exec/eval/compile/__import__/setattr/getattr-by-name/open or os process and file functions",
    "introspection": "walks frames, globals or object internals (f_back, __globals__, __dict__, __subclasses__ ...)",
    "monkeypatch": "assigns to an attribute of an imported module (torch, time, builtins, ...)",
    "precision_change": "changes torch's precision settings (TF32, matmul precision, reduced-precision reductions)",
    # runtime checks
    "aten_compute_op": "a torch compute op was dispatched during forward (from Python or from a C++ extension)",
    "no_custom_kernel": "no kernel of the candidate's own ran on the GPU during forward",
    "library_kernels_dominate": "library kernels (cuBLAS, cuDNN, torch's own) took most of forward's device time",
    "side_stream": "forward ran kernels on a stream other than the current one",
    "input_mutation": "forward changed an input tensor in place",
    "output_aliases_input": "an output shares storage with an input",
    "output_not_plain_tensor": "an output is a tensor subclass, has no real storage, or is on the meta device",
    "output_layout": "an output's strides differ from the reference's and it is not contiguous",
    "timed_output_mismatch": "outputs produced during timing disagree with the reference (caching or skipped work)",
    "stale_output": "a seen input rewritten in place, or new values at a seen address, got an old result (memoized)",
    "spawned_threads": "forward started threads (work that escapes the caller and the timer)",
    "harness_tampered": "a timer, synchronize, the checker or a torch function the harness relies on was replaced",
    "sandbox_violation": "the sandbox refused a process, socket or file write the candidate attempted",
    "faster_than_light": "measured time is below the task's speed-of-light floor on this device",
    "uninitialized_output": "an output holds memory nothing wrote (e.g. stale memory of the reference's result)",
    # the judge's checks of what the candidate's process reports
    "timing_mismatch": "the candidate's reported call times disagree with the wall time or the kernels the judge saw",
    "deferred_work": "the candidate's process left work running after reporting a timed call done",
}
