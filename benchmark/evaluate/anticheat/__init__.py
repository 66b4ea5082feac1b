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
    # static analysis of the native sources (C/C++/CUDA, PTX, build flags): native.py
    "native_python_api": "native code runs Python (CPython C API, pybind11 exec/import/attr/getattr/cast)",
    "native_torch_internals": "native code bypasses torch's dispatcher (at::native, dispatch-key guards) or sets its global state",
    "native_dynamic_loading": "native code loads libraries or looks up symbols at run time (dlopen, dlsym)",
    "native_syscall": "native code makes raw system calls (syscall, ioctl, prctl) or runs host CPU assembly",
    "native_process_memory": "native code reaches other memory: /proc, ptrace, process_vm_*, stack walking, CUDA IPC",
    "native_memory_protection": "native code maps or re-protects memory (mmap, mprotect, memfd_create)",
    "native_signal": "native code installs signal handlers, sends signals or arms timers (signal, sigaction, kill, alarm)",
    "native_process": "native code creates or steers processes (fork, exec, system, popen, clone)",
    "native_thread": "native code starts threads that can outlive the call (std::thread, pthread_create, std::async)",
    "native_timer": "native code reads a clock, host or device (clock_gettime, std::chrono, rdtsc, clock64, %globaltimer)",
    "native_file_access": "native code opens files, descriptors, sockets or stdin, or includes a file by path",
    "native_environment": "native code reads or changes the environment (getenv, setenv, environ)",
    "native_cuda_state": "native code changes process-wide CUDA state (reset, limits, L2 persistence, cache config, contexts, profiler)",
    "native_build_flags": "build flags inject code or link beyond the CUDA libraries (-include, -Wl, -fplugin, -l, forbidden -D)",
    "native_obfuscation": "native code hides names (token pasting, computed includes, trigraphs, constructors, symbol aliases)",
    "native_unresolved_source": "native code the rules cannot read: built at run time, loaded from disk, or a compiler passed on",
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
