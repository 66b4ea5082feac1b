"""The in-process sandbox for candidate code, installed once the candidate module has loaded.

An audit hook refuses: creating processes (except the compilers Triton and load_inline run),
sockets, writing files outside the sample's own folders, tracing, garbage-collector walks, and setting attributes on torch.Tensor, nn.Module, CUDA events and streams,
and the harness's own classes. A refusal raises in the candidate
and is recorded, so the sample is flagged `sandbox_violation` even if the candidate swallows
the error. Reading files stays allowed: Python's own imports need it. Audit hooks cannot be
removed, but C code can bypass them; see docs/anti-cheat.md for the limits."""

from __future__ import annotations

import os
import sys

COMPILERS = {
    "ptxas",
    "nvcc",
    "cicc",
    "nvlink",
    "fatbinary",
    "ninja",
    "c++",
    "g++",
    "gcc",
    "cc",
    "ld",
    "clang",
    "clang++",
    "ldconfig",
    "ldconfig.real",
    "nvdisasm",
    "cuobjdump",
    "which",
    "uname",
    "as",
    "ar",
    "collect2",
    "objdump",
    "file",
}
REFUSED_EVENTS = {
    "os.system",
    "os.exec",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "pty.spawn",
    "socket.__new__",
    "socket.connect",
    "socket.bind",
    "socket.getaddrinfo",
    "socket.sendto",
    "sys._current_frames",
    "sys.settrace",
    "sys.setprofile",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "sys.addaudithook",
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _protected_types() -> tuple[type, ...]:
    import torch

    return (torch.Tensor, torch._C.TensorBase, torch.nn.Module, torch.cuda.Event, torch.cuda.Stream)


def install(write_dirs: list[str], violations: list[str]) -> None:
    roots = tuple(os.path.realpath(d) + os.sep for d in write_dirs) + ("/dev/null", "/dev/shm/")
    protected = _protected_types()

    def refuse(what: str) -> None:
        violations.append(what)
        raise PermissionError(f"refused by the SOLBench sandbox: {what}")

    def hook(event: str, args: tuple) -> None:
        if event in REFUSED_EVENTS:
            refuse(event)
        elif event in ("subprocess.Popen", "os.posix_spawn"):
            argv = args[1] if isinstance(args[1], list | tuple) else [args[1]]
            exe = os.fsdecode(args[0] or (argv[0] if argv else ""))
            if os.path.basename(exe) not in COMPILERS:
                refuse(f"starting {' '.join(map(str, argv))[:200]}")
        elif event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            if writing and isinstance(path, str | bytes):
                real = os.path.realpath(os.fsdecode(path))
                if not (real + os.sep).startswith(roots) and not real.startswith(roots):
                    refuse(f"writing {real}")
        elif event == "object.__setattr__":
            obj = args[0]
            if obj in protected or (isinstance(obj, type) and obj.__module__.startswith("benchmark.")):
                refuse(f"setting {obj.__qualname__}.{args[1]}")

    sys.addaudithook(hook)
