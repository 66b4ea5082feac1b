"""Runtime integrity checks in the candidate's process: the state its serving code reaches unchanged
(`StateDigest`), inputs unchanged, outputs not aliasing inputs, no threads left behind."""

from __future__ import annotations

import _thread
import concurrent.futures
import functools
import importlib.util
import inspect
import os
import sys
import threading
import types
import warnings

import torch

OWN_PREFIX = "benchmark."  # our modules: every member fingerprinted, constants included
SKIP_MODULES = ("benchmark.evaluate.candidate",)  # load_candidate's clock state changes as it builds


def _unwrapped(obj: object) -> object:
    """The innermost function: torch wraps some functions lazily (importing torch._dynamo wraps
    torch.manual_seed), which must not read as tampering."""
    try:
        return inspect.unwrap(obj) if callable(obj) else obj
    except ValueError:  # a wrapper chain that loops
        return obj


def _fingerprint(obj: object, constants: bool) -> tuple | None:
    """What identifies `obj` for the digest: a function by itself and its code, defaults, closure and
    globals (replacing `__code__` keeps the function's identity); a class, module, descriptor or other
    callable by identity; a plain constant by value where `constants` (in our own modules); other data
    not at all (torch's own state legitimately changes as CUDA initialises)."""
    obj = _unwrapped(obj)
    if isinstance(obj, types.FunctionType):
        cells = tuple(id(c.cell_contents) if _filled(c) else None for c in obj.__closure__ or ())
        return (
            id(obj),
            id(obj.__code__),
            id(obj.__defaults__),
            id(obj.__kwdefaults__),
            cells,
            id(obj.__globals__),
        )
    if isinstance(obj, type | types.ModuleType | staticmethod | classmethod | property) or callable(obj):
        return (id(obj),)
    if constants and isinstance(obj, int | float | str | bytes | bool | tuple | frozenset | type(None)):
        return ("value", repr(obj))
    return None


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - raises for an empty cell
    except ValueError:
        return False
    return True


def _names_in(code: types.CodeType) -> set[str]:
    """Every global and attribute name a code object, and the code nested in it, refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_in(const)
    return names


def _code_of(obj: object) -> types.CodeType | None:
    obj = _unwrapped(obj.__func__ if isinstance(obj, staticmethod | classmethod) else obj)
    if isinstance(obj, property):
        obj = obj.fget
    return obj.__code__ if isinstance(obj, types.FunctionType) else None


def reachable_state() -> dict[str, tuple]:
    """The fingerprint of what the harness's code in this process can reach: every member of every
    module of ours loaded here and of every class they define (constants by value); then, to a fixed
    point, every member of an outside module or class they hold (torch, time, torch.cuda.Event,
    torch.Tensor, ...) whose name our code uses, so `torch.cuda.synchronize` is covered because our
    code names `cuda` and `synchronize`. Not a list of what to guard: what the code reaches."""
    state: dict[str, tuple] = {}
    names: set[str] = set()
    outside: dict[int, tuple[str, object]] = {}  # outside modules and classes our code holds
    for mod_name, module in list(sys.modules.items()):
        if not mod_name.startswith(OWN_PREFIX) or mod_name in SKIP_MODULES or module is None:
            continue
        for name, member in list(vars(module).items()):
            _take(state, f"{mod_name}.{name}", member, constants=True)
            owned = isinstance(member, type) and member.__module__ == mod_name
            members = vars(member).items() if owned else [(name, member)]
            for attr, value in list(members):
                if owned:
                    _take(state, f"{mod_name}.{name}.{attr}", value, constants=False)
                code = _code_of(value)
                if code is not None:
                    names |= _names_in(code)
            if not owned and isinstance(member, types.ModuleType | type) and not _own(member):
                outside.setdefault(id(member), (f"{mod_name}.{name}", member))
    done: set[tuple[int, str]] = set()
    while True:
        found = False
        for key, holder in list(outside.values()):
            for name, owner, member in _members_named(holder, names):
                if (id(holder), name) in done:
                    continue
                done.add((id(holder), name))
                found = True
                _take(state, f"{key}.{name}", member, constants=False, owner=owner)
                if isinstance(member, types.ModuleType | type) and not _own(member):
                    outside.setdefault(id(member), (f"{key}.{name}", member))
        if not found:
            return state


def _members_named(holder: object, names: set[str]):
    """(name, the class or module whose dict holds it, the member) for each of `names` `holder` has; a
    class's members resolved along its MRO, as attribute lookup does, so a method written into a
    subclass's dict over an inherited one changes the answer."""
    if isinstance(holder, type):
        for name in sorted(names):
            for owner in holder.__mro__:
                if name in vars(owner):
                    yield name, owner, vars(owner)[name]
                    break
    else:
        for name in sorted(names & set(vars(holder))):
            yield name, holder, vars(holder)[name]


def _own(obj: object) -> bool:
    name = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", "") or ""
    return name.startswith(OWN_PREFIX)


def _take(state: dict[str, tuple], key: str, value: object, constants: bool, owner: object = None) -> None:
    with warnings.catch_warnings():  # reading torch's deprecated aliases warns
        warnings.simplefilter("ignore")
        fp = _fingerprint(value, constants)
    if fp is not None:
        state[key] = fp if owner is None else (id(owner), *fp)


class StateDigest:
    """`reachable_state` taken before the candidate loads, compared after its calls: any function,
    class, module member or constant of ours that changed identity or value is named (a replaced
    timer, a patched module global, a swapped `__code__`, a method written into a class's dict from C)."""

    def __init__(self):
        self.before = reachable_state()

    def changed(self) -> list[str]:
        now = reachable_state()
        return sorted(k for k, v in self.before.items() if now.get(k) != v)


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool(torch.equal(a, b))


class InputGuard:
    """Pristine copies of the tensor inputs, to detect in-place changes made by a call."""

    def __init__(self, inputs: list):
        self.inputs = inputs
        self.copies = [x.clone() if isinstance(x, torch.Tensor) else None for x in inputs]

    def mutated(self) -> list[int]:
        return [
            i
            for i, (x, c) in enumerate(zip(self.inputs, self.copies, strict=True))
            if c is not None and not _same(x, c)
        ]


def _storage_ptr(t: torch.Tensor) -> int | None:
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return None


def aliases(outputs: list, inputs: list) -> bool:
    ins = {_storage_ptr(x) for x in inputs if isinstance(x, torch.Tensor)} - {None, 0}
    return any(isinstance(o, torch.Tensor) and _storage_ptr(o) in ins for o in outputs)


def os_thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


# Compiler infrastructure whose own threads are not the candidate's: an honest Helion kernel's first
# call started one (an H100, 2026-12-07). The static rules keep the candidate from naming torch's
# compilers (`torch_compile`) or Helion's internals, so the work such a thread runs is the library's.
LIBRARY_THREAD_OWNERS = ("torch._inductor", "torch._dynamo", "triton", "helion")
# the code a thread's start goes through on its way from whoever started it, by file (`threading`,
# `concurrent.futures`, this watch)
_THREAD_PLUMBING = (
    os.path.realpath(threading.__file__),
    os.path.dirname(os.path.realpath(concurrent.futures.__file__)) + os.sep,
    os.path.realpath(__file__),
)


@functools.cache
def library_dirs() -> tuple[str, ...]:
    """Where the installed LIBRARY_THREAD_OWNERS' files lie: a library's frame is told by its code's
    file, which a candidate cannot move there, not by its module's `__name__`, which it can assign."""
    dirs = []
    for name in LIBRARY_THREAD_OWNERS:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin:
            dirs.append(os.path.dirname(os.path.realpath(spec.origin)) + os.sep)
    return tuple(dirs)


def thread_starter() -> tuple[str, str]:
    """(module, real path of its file) of the code that started the thread being started: the first
    frame outside the thread plumbing (`_THREAD_PLUMBING`), so an executor the candidate makes is
    the candidate's, whoever's pool class it is."""
    frame = sys._getframe(1)
    while frame is not None:
        file = os.path.realpath(frame.f_code.co_filename)
        if not file.startswith(_THREAD_PLUMBING):
            return frame.f_globals.get("__name__", "?"), file
        frame = frame.f_back
    return "?", "?"


class ThreadWatch:
    """Counts Python threads started from now on (even ones that finish before anyone looks),
    by wrapping the low-level start function every Python thread goes through. Threads the
    compiler libraries start (`LIBRARY_THREAD_OWNERS`) are listed by their starter instead."""

    def __init__(self):
        self.started = 0
        self.library: list[str] = []  # the starter module of each library thread
        library_dirs()  # found now, before the candidate loads
        for owner, name in (
            (_thread, "start_new_thread"),
            (threading, "_start_new_thread"),
            (threading, "_start_joinable_thread"),
            (_thread, "start_joinable_thread"),
        ):
            original = getattr(owner, name, None)
            if original is not None:
                setattr(owner, name, self._counting(original))

    def _counting(self, original):
        def start(*args, **kwargs):
            module, file = thread_starter()
            if file.startswith(library_dirs()):
                self.library.append(module)
            else:
                self.started += 1
            return original(*args, **kwargs)

        return start
