"""What a candidate may use from torch: tensor plumbing only. The one place both the static rules
and the runtime op census read, so they cannot drift apart."""

# torch.* and Tensor-method names allowed in forward: allocation, views, layout, shape queries.
TORCH_PLUMBING: frozenset[str] = frozenset(
    {
        # allocation
        "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
        "full_like", "new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided", "arange", "tensor",
        "as_tensor", "scalar_tensor",
        # views and layout
        "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "permute", "transpose", "t", "T", "mT",
        "expand", "expand_as", "squeeze", "unsqueeze", "contiguous", "clone", "detach", "narrow", "select",
        "split", "chunk", "unbind", "movedim", "swapaxes", "as_strided", "copy_", "fill_", "zero_", "to",
        "cuda", "cpu", "float", "half", "bfloat16", "double", "int", "long", "type_as",
        # queries
        "size", "shape", "dim", "ndim", "numel", "stride", "storage_offset", "is_contiguous", "data_ptr",
        "element_size", "dtype", "device", "is_cuda", "get_device", "item", "nelement", "requires_grad",
        # device and streams (launching on the current stream is how kernels should run)
        "cuda.current_stream", "cuda.current_device", "cuda.get_device_properties", "cuda.device",
        "cuda.set_device", "cuda.get_device_capability", "cuda.is_available", "device_count",
        "cuda.synchronize", "cuda.current_blas_handle", "cuda.stream",
        "no_grad", "inference_mode", "Size", "finfo", "iinfo", "is_tensor",
        "float32", "float16", "float64", "int32", "int64", "int8", "uint8", "bool", "contiguous_format", "channels_last",
    }
)

# aten overload packets that forward may dispatch.
ATEN_PLUMBING: frozenset[str] = frozenset(
    {
        "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
        "new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided", "arange", "scalar_tensor",
        "lift_fresh", "lift_fresh_copy", "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided",
        "permute", "transpose", "t", "expand", "squeeze", "unsqueeze", "flatten", "unflatten", "slice", "select",
        "split", "split_with_sizes", "chunk", "unbind", "narrow", "alias", "detach", "clone", "contiguous",
        "copy_", "_to_copy", "_copy_from", "_copy_from_and_resize", "fill_", "zero_", "resize_", "set_",
        "_local_scalar_dense", "movedim", "swapaxes", "view_as", "expand_as", "result_type",
        "is_same_size", "_has_compatible_shallow_copy_type", "sym_size", "sym_stride", "sym_numel",
        "sym_storage_offset", "is_contiguous", "record_stream", "_conj", "conj", "resolve_conj", "resolve_neg",
        "empty_permuted", "_reshape_copy", "detach_", "to",
    }
)

# Modules a candidate may import. Anything else with compute or escape power is refused.
ALLOWED_IMPORTS: frozenset[str] = frozenset(
    {
        "torch", "torch.nn", "torch.utils.cpp_extension", "triton", "triton.language", "pycuda",
        "pycuda.autoprimaryctx", "pycuda.driver", "pycuda.compiler", "benchmark.cuda_raw", "math", "typing",
        "functools", "dataclasses", "itertools", "collections", "__future__", "textwrap", "enum", "operator",
        "os",
    }
)

# os functions that create processes, touch files or descriptors, or signal: refused by name.
FORBIDDEN_OS_ATTRS: frozenset[str] = frozenset(
    {
        "system", "popen", "fork", "forkpty", "kill", "killpg", "abort", "_exit", "open", "write", "read",
        "remove", "unlink", "rename", "replace", "rmdir", "mkdir", "makedirs", "chdir", "chmod", "dup", "dup2",
        "pipe", "fdopen", "listdir", "scandir", "walk", "symlink", "link", "truncate", "posix_spawn",
        "posix_spawnp", "startfile", "setpgid", "setsid",
    }
)
FORBIDDEN_IMPORT_ROOTS: frozenset[str] = frozenset(
    {
        "numpy", "cupy", "scipy", "jax", "jaxlib", "tensorflow", "numba", "cublas", "nvmath", "cuda", "cutlass",
        "torch_tensorrt", "tensorrt", "xformers", "flash_attn", "apex", "transformer_engine", "onnxruntime",
        "threading", "_thread", "multiprocessing", "concurrent", "asyncio", "subprocess", "socket", "ssl",
        "http", "urllib", "requests", "ctypes", "cffi", "sys", "gc", "inspect", "importlib", "builtins",
        "signal", "shutil", "pathlib", "tempfile", "io", "pickle", "marshal", "time", "timeit", "traceback",
        "faulthandler", "atexit", "weakref", "code", "codeop", "dis", "types", "mmap", "fcntl", "resource",
        "torch._dynamo", "torch._inductor", "torch.jit", "torch.compiler", "torch.fx", "torch.testing",
        "torch.library", "torch.overrides", "torch.utils._python_dispatch", "benchmark",
    }
)
