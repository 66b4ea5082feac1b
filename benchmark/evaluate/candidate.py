"""Loading a candidate: its source is a real file, imported as a module, and any extension it builds
with `torch.utils.cpp_extension.load_inline` lands in a build folder keyed by a hash of that
extension's sources and flags, so identical code is never compiled twice (even inside otherwise
different candidates) and different code never shares a folder, whatever names the extensions
have.

Builds of one folder are serialised by a flock(2) lock held by the building process: the kernel
drops it when that process dies, so a builder killed at its limit never blocks the next one (torch's
own lock file, which a killed builder leaves behind, is removed under it, and a folder without a
completed build is cleared before building again). The parent is told, over `report_clocks`, when
this process waits for that lock and when it compiles, so waiting is charged to no limit and a
compile to the build limit (benchmark.evaluate.sandbox).

The cheap legal route for main.cpp (HeaderRoute): load_inline puts `#include <torch/extension.h>`
first in it, and compiling that header is most of a C++ build. So its build also gets `-I` of a
folder holding that header precompiled by gcc with the extension's own flags (builds_root/pch/<hash
of them>), made the second time those flags are seen; gcc takes the .gch only where it is valid for
the compile, and otherwise the header itself, so the object is the same either way (byte for byte
where tested) and only the time differs. The added flag is part of the folder's key."""

from __future__ import annotations

import contextlib
import enum
import fcntl
import functools
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import torch.utils.cpp_extension as cpp_extension

from benchmark.task import import_file

MAX_ERROR_LINES = 40
_ERROR_LINE = re.compile(r"error|Error|undefined|expected|FAILED|no matching|cannot|not declared", re.ASCII)
BUILD_CLOCK = "build"  # time compiling counts against the build limit
WAIT_CLOCK = "wait"  # time waiting for another process's build of the same folder counts against none
LOCK_FILE = "solbench.lock"  # flock(2)ed by the process building or loading the folder
BUILT_MARK = "solbench.built"  # written once a build in the folder completed and imported
TORCH_BATON = "lock"  # torch's FileBaton, which a builder killed mid-build leaves behind
PCH_ENV = "SOLBENCH_PCH"  # "0": no precompiled header, every build compiles torch/extension.h itself
PCH_DIR = "pch"  # under builds_root: one folder per set of main.cpp flags
PCH_FILE = "torch/extension.h.gch"  # where gcc looks for it first, given -I of its folder
PCH_PARTIAL = "extension.h.gch.partial"  # until it is complete (a reader never sees half a .gch)
SEEN_MARK = "solbench.seen"  # these flags were used once: the next build with them makes the .gch
FAILED_MARK = "solbench.failed"  # no .gch for these flags (not gcc, or the header did not compile)
PCH_NAME = "solbench_pch"  # the extension name in the probe whose flags the .gch is built with
LIGHT_CU_ENV = "SOLBENCH_LIGHT_CU"  # "0": a .cu is compiled with the headers it names, never lighter ones
LIGHT_FAILED_MARK = "solbench.light-failed"  # in a lighter build's folder: it failed, build as written
# A .cu's own `#include <torch/extension.h>` (nvcc parses it three times: most of a cold CUDA build),
# and what in a .cu needs more than torch/types.h, which load_inline already puts first in it.
_FULL_HEADER = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]torch/extension\.h[>"]', re.MULTILINE)
_NEEDS_FULL_HEADER = re.compile(
    r"pybind11|PYBIND11|\bpy::|Python\.h|torch::(nn|autograd|optim|jit|data|serialize|python)\b"
)
TORCH_INCLUDE = Path(cpp_extension.torch.__file__).parent / "include"
TORCH_HEADER = TORCH_INCLUDE / "torch" / "extension.h"
# The lightest tier: the tensor class, the dispatch macros and one ATen op header per function name
# the .cu calls, instead of torch/types.h (every op of ATen: most of what nvcc parses; the tensor
# operators alone cost 18 s of nvcc on the CPU). Each is part of torch/types.h, so the lightest .cu
# sees a subset of its declarations.
LITE_HEADERS = ("ATen/core/Tensor.h", "ATen/Dispatch.h", "optional")
_TORCH_OWN_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"]torch/(extension|types)\.h[>"]', re.MULTILINE
)
_WHOLE_TORCH = re.compile(r'[<"](ATen/ATen|torch/torch|torch/all)\.h[>"]')  # nothing lighter to gain
_CALLED = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(")
# What nvcc says when a name is missing: a lightest build that fails so may need torch/types.h; one
# that fails otherwise (an error in the candidate's own code) fails as written too, and is built so.
_MISSING_NAME = re.compile(
    r"has no member|is undefined|not declared|incomplete type|no instance of|no operator|no suitable"
)

# The names in a compiler's "not found" messages (nvcc's front end, then gcc's).
_UNDECLARED = re.compile(
    r'identifier "(\w+)" is undefined|has no member "(\w+)"|[\'‘](\w+)[\'’] was not declared'
    r"|has no member named [\'‘](\w+)[\'’]"
)


def undeclared_in_torch(log: str) -> bool:
    """Whether a failed build's log says only that names are missing which torch's headers never
    spell (`no_such_function`): then no torch header can declare them, and a build from torch/types.h
    would fail as the lightest one did. A message naming none of them answers False."""
    names = {n for groups in _UNDECLARED.findall(log) for n in groups if n}
    if not names or not TORCH_INCLUDE.is_dir():
        return False
    patterns = [arg for n in sorted(names) for arg in ("-e", n)]
    found = subprocess.run(["grep", "-rqwF", *patterns, str(TORCH_INCLUDE)], capture_output=True)
    return found.returncode == 1  # 0: one is there; 2: grep failed, which proves nothing


class LoadErrorKind(enum.StrEnum):
    """Why a candidate produced no usable ModelNew."""

    SYNTAX = "syntax"
    BUILD = "build"  # an extension did not compile
    IMPORT = "import"  # importing it raised (perhaps only for want of the GPU a build child lacks)
    NO_MODEL = "no_model"  # no ModelNew, or one that is not a class

    @property
    def final(self) -> bool:
        """Whether a build child's failure decides the verdict: the same code fails the same way
        anywhere, where an import may fail only without the GPU the build child does not have."""
        return self is not LoadErrorKind.IMPORT


class CandidateLoadError(Exception):
    """The candidate did not produce a usable ModelNew; `kind` says why, the text says how."""

    def __init__(self, kind: LoadErrorKind, text: str):
        super().__init__(text)
        self.kind = kind


def build_key(name: str, kwargs: dict) -> str:
    """Everything that changes the binary: sources, flags, functions and the torch version."""
    relevant = {
        k: v for k, v in kwargs.items() if k not in ("verbose", "build_directory", "keep_intermediates")
    }
    blob = json.dumps(
        {"name": name, "torch": cpp_extension.torch.__version__, **relevant}, sort_keys=True, default=str
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


class _Clock:
    """Which limit this process's time counts against, and where to say so (nowhere by default)."""

    report: Callable[[str], None] | None = None
    current: str = "run"


def report_clocks(report: Callable[[str], None], initial: str) -> None:
    """Send every change of clock to `report` (the worker's channel to its parent); the process's
    time counts against `initial` until the first change."""
    _Clock.report, _Clock.current = report, initial


@contextlib.contextmanager
def _counting_as(name: str) -> Iterator[None]:
    previous = _Clock.current
    report = _Clock.report
    if report is None or name == previous:
        yield
        return
    report(name)
    _Clock.current = name
    try:
        yield
    finally:
        report(previous)
        _Clock.current = previous


@contextlib.contextmanager
def _folder_lock(folder: Path, wait: bool = True) -> Iterator[bool]:
    """Exclusive use of one build folder; a wait for another process is reported as such. Without
    `wait`, yields False at once if another process holds it."""
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                yield False
                return
            with _counting_as(WAIT_CLOCK):
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield True
    finally:
        os.close(fd)  # releases the lock


def _clear(folder: Path) -> None:
    """Remove what an unfinished or failed build left, so the next one starts clean."""
    for entry in folder.iterdir():
        if entry.name == LOCK_FILE:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink(missing_ok=True)


def _ninja_path(path: Path) -> str:
    return str(path).replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


@dataclass(frozen=True)
class HeaderRoute:
    """torch/extension.h precompiled for one set of main.cpp flags, in `folder`; a build that adds
    `-I folder` compiles its main.cpp from it once it exists (gcc checks it fits the compile)."""

    folder: Path
    variables: str  # torch's ninja variables for main.cpp: cxx, cflags, post_cflags

    def routed(self, call: dict) -> dict:
        """The call with `-I folder` among the C++ flags (nvcc never sees it); torch's own use_pch
        goes (it writes the .gch into torch's install and every other build deletes it there)."""
        routed = {**call, "extra_cflags": [*(call.get("extra_cflags") or []), f"-I{self.folder}"]}
        routed.pop("use_pch", None)
        return routed

    def prepare(self, now: bool = False) -> None:
        """Make the .gch if these flags were seen before (or `now`) and no one else is making it:
        flags used once are not worth 0.8 GB of disk and a build half again as long; `now` waits
        for another process making it. Never fails the build."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if any((self.folder / f).exists() for f in (PCH_FILE, FAILED_MARK)):
                return
            seen = self.folder / SEEN_MARK
            if not seen.exists() and not now:
                seen.touch()
                return
            with _folder_lock(self.folder, wait=now) as held:
                if held and not (self.folder / PCH_FILE).exists():
                    self._compile()
        except Exception as e:  # noqa: BLE001 - without the .gch the build is only slower
            with contextlib.suppress(OSError):
                (self.folder / FAILED_MARK).write_text(repr(e))

    def _compile(self) -> None:
        """Compile the header through ninja with torch's variables (so they mean what they mean in
        the extension's own build), then publish: the header's name first (the candidate's own
        `#include <torch/extension.h>` must find a file there), the .gch last, by rename."""
        compiler = cpp_extension.get_cxx_compiler()
        if not cpp_extension.check_compiler_is_gcc(compiler):
            (self.folder / FAILED_MARK).write_text(f"{compiler} is not gcc, which alone reads .gch files")
            return
        (self.folder / "build.ninja").write_text(
            f"{self.variables}\n\nrule pch\n  command = $cxx $cflags -x c++-header -c $in -o $out $post_cflags\n\n"
            f"build {PCH_PARTIAL}: pch {_ninja_path(TORCH_HEADER)}\n"
        )
        done = subprocess.run(["ninja", "-f", "build.ninja"], cwd=self.folder, capture_output=True, text=True)
        if done.returncode != 0:
            (self.folder / FAILED_MARK).write_text((done.stdout + done.stderr)[-4000:])
            return
        header = self.folder / "torch" / "extension.h"
        header.parent.mkdir(exist_ok=True)
        if not header.exists():
            header.with_suffix(".partial").unlink(missing_ok=True)
            header.with_suffix(".partial").symlink_to(TORCH_HEADER)
            os.replace(header.with_suffix(".partial"), header)
        os.replace(self.folder / PCH_PARTIAL, self.folder / PCH_FILE)


DEFAULT_CALLS = {  # load_inline's main.cpp flags for a call that adds none of its own, C++ and CUDA
    "cpp": {"cpp_sources": "int x;"},
    "cuda": {"cpp_sources": "int x;", "cuda_sources": "int y;"},
}


def prepare_torch_headers(builds_root: Path) -> dict[str, bool]:
    """Precompile torch/extension.h for load_inline's default flags now (about 35 s of one core each,
    once per installation and build cache), so that the first cold builds of a long run compile
    their main.cpp from it too; by default the second build with a set of flags makes it, and the
    builds that start before it is there parse the whole header. Whether each .gch is there
    afterwards."""
    routes = {name: header_route(builds_root, call) for name, call in DEFAULT_CALLS.items()}
    with ThreadPoolExecutor(len(routes)) as pool:  # each a compiler process of its own
        list(pool.map(lambda r: r and r.prepare(now=True), routes.values()))
    return {name: r is not None and (r.folder / PCH_FILE).exists() for name, r in routes.items()}


def _main_cpp_variables(builds_root: Path, call: dict) -> str:
    """What torch's ninja file would say about compiling this call's main.cpp (compiler, cflags,
    post_cflags), the extension's name left out: the flags its precompiled header needs. The writer
    is torch's private one, whose parameters have changed between releases: it gets those it takes."""
    with_cuda = call.get("with_cuda")
    scratch = builds_root / PCH_DIR
    scratch.mkdir(parents=True, exist_ok=True)
    writer = cpp_extension._write_ninja_file_to_build_library
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        path = Path(tmp) / "build.ninja"
        offered = dict(
            path=str(path),
            name=PCH_NAME,
            sources=[str(Path(tmp) / "main.cpp")],
            extra_cflags=list(call.get("extra_cflags") or []),
            extra_cuda_cflags=[],
            extra_sycl_cflags=[],
            extra_ldflags=[],
            extra_include_paths=list(call.get("extra_include_paths") or []),
            with_cuda=bool(call.get("cuda_sources")) if with_cuda is None else bool(with_cuda),
            with_sycl=False,
            is_python_module=True,
            is_standalone=False,
        )
        accepted = inspect.signature(writer).parameters
        writer(**{k: v for k, v in offered.items() if k in accepted})
        lines = path.read_text().splitlines()
    kept = [line for line in lines if line.split(" = ", 1)[0] in ("cxx", "cflags", "post_cflags")]
    return "\n".join(kept).replace(f"-DTORCH_EXTENSION_NAME={PCH_NAME} ", "")


def header_route(builds_root: Path, call: dict) -> HeaderRoute | None:
    """The precompiled-header route for this load_inline call, or None: turned off, not Linux, SYCL,
    or flags torch itself could not turn into a build (that build then fails the same way)."""
    if (
        os.environ.get(PCH_ENV, "1") == "0"
        or not sys.platform.startswith("linux")
        or call.get("sycl_sources")
    ):
        return None
    try:
        variables = _main_cpp_variables(builds_root, call)
        identity = f"{cpp_extension.torch.__version__}\n{_compiler_identity()}\n{variables}"
    except Exception:  # noqa: BLE001 - e.g. a string for a list of flags: torch's build will say
        return None
    return HeaderRoute(builds_root / PCH_DIR / hashlib.sha256(identity.encode()).hexdigest()[:24], variables)


def _compiler_identity() -> str:
    """The C++ compiler's file, size and time, so an upgraded gcc (which would ignore, not misuse, an
    old .gch) gets a new one, without starting a process on every load."""
    found = shutil.which(cpp_extension.get_cxx_compiler())
    if found is None:
        return "missing"
    real = os.path.realpath(found)
    stat = os.stat(real)
    return f"{real} {stat.st_size} {stat.st_mtime_ns}"


def lighter_cuda_sources(cuda_sources):
    """The call's CUDA sources with their own `#include <torch/extension.h>` made
    `#include <torch/types.h>` (the tensor API a kernel's launcher uses; pybind11 and the C++
    frontend are left out), or None: no source includes it, one looks as if it needs the rest, or
    they are not strings (torch's build will say so). On the CPU a .cu built from torch/types.h alone
    compiled in 37 s against 82 s (CUDA 13, sm_90)."""
    sources = [cuda_sources] if isinstance(cuda_sources, str) else cuda_sources
    if not isinstance(sources, list) or not sources or not all(isinstance(x, str) for x in sources):
        return None
    if not any(_FULL_HEADER.search(x) for x in sources) or any(_NEEDS_FULL_HEADER.search(x) for x in sources):
        return None
    lighter = [_FULL_HEADER.sub("#include <torch/types.h>", x) for x in sources]
    return lighter[0] if isinstance(cuda_sources, str) else lighter


@functools.cache
def _torch_namespace() -> str | None:
    """torch/types.h's own `namespace torch { using namespace at; ... }` block (torch::Tensor, the
    dtype names), read from the installed torch, or None where it is not found."""
    found = re.search(
        r"^namespace torch \{.*?^\} // namespace torch",
        (TORCH_INCLUDE / "torch" / "csrc" / "api" / "include" / "torch" / "types.h").read_text(),
        re.DOTALL | re.MULTILINE,
    )
    return found.group(0) if found else None


def lightest_cuda_call(call: dict) -> dict | None:
    """The load_inline call with its .cu built from `LITE_HEADERS` and the ATen op header of every
    function name it calls (so each overload set it can reach is whole), in place of torch/types.h
    and its own torch/extension.h, or None: not CUDA, no `no_implicit_headers` in this torch, headers
    the candidate chose itself, or a source that needs the whole API. main.cpp is what torch writes
    (torch/extension.h first). One nvcc -c of mix b's launcher on the CPU: 17.5 s against 32.9 s."""
    cuda, cpp = call.get("cuda_sources"), call.get("cpp_sources")
    sources = [cuda] if isinstance(cuda, str) else cuda
    cpp = [cpp] if isinstance(cpp, str) else cpp
    if (
        not isinstance(sources, list)
        or not sources
        or not all(isinstance(x, str) for x in [*sources, *(cpp or [])])
        or call.get("no_implicit_headers")
        or "no_implicit_headers" not in _load_inline_parameters()
        or any(_NEEDS_FULL_HEADER.search(x) or _WHOLE_TORCH.search(x) for x in sources)
        or _torch_namespace() is None
    ):
        return None
    ops = TORCH_INCLUDE / "ATen" / "ops"
    called = sorted({n for x in sources for n in _CALLED.findall(x) if (ops / f"{n}.h").is_file()})
    preamble = [
        *(f"#include <{h}>" for h in LITE_HEADERS),
        *(f"#include <ATen/ops/{n}.h>" for n in called),
        _torch_namespace(),
        "#include <cuda.h>",
        "#include <cuda_runtime.h>",
    ]
    return {
        **call,
        "cpp_sources": ["#include <torch/extension.h>", *(cpp or [])],
        "cuda_sources": ["\n".join(preamble), *(_TORCH_OWN_INCLUDE.sub("", x) for x in sources)],
        "no_implicit_headers": True,
    }


def _torchs_load_inline() -> Callable:
    """torch's own load_inline, also once `route_builds` has put its wrapper in its place."""
    return getattr(cpp_extension.load_inline, "__wrapped__", cpp_extension.load_inline)


def _load_inline_parameters() -> set[str]:
    return set(inspect.signature(_torchs_load_inline()).parameters)


def _versions_before(name: str) -> Callable[[], None]:
    """A way back to torch's record of extension `name` as it is now. torch renames an extension
    built again in one process with other inputs (`name_v1`), so after a failed lighter build the
    build as written would get another name here than in a process that skipped the lighter one
    (the execution child would then build it again)."""
    entries = getattr(getattr(cpp_extension, "JIT_EXTENSION_VERSIONER", None), "entries", None)
    if not isinstance(entries, dict):
        return lambda: None
    before = entries.get(name)

    def restore() -> None:
        if before is None:
            entries.pop(name, None)
        else:
            entries[name] = before

    return restore


class _LighterBuildFailed(Exception):
    """A lighter .cu did not build or load (the text says why): the next route is tried."""


def route_builds(builds_root: Path) -> None:
    """Make load_inline build into builds_root/<hash of its inputs>, whatever the candidate asks for,
    one process per folder at a time, a completed build loaded and an unfinished one redone. A .cu is
    first built from the lightest headers (`lightest_cuda_call`), then, where that failed for a
    missing name and the .cu includes torch/extension.h, with torch/types.h in its place
    (`lighter_cuda_sources`); if those fail in any way, once per source, the call is built as
    written, so every verdict is the written source's."""
    original = _torchs_load_inline()
    signature = inspect.signature(original)

    def build(name: str, call: dict, route: HeaderRoute | None, lighter: bool = False):
        folder = builds_root / build_key(name, call)  # the route's flag and the sources included
        folder.mkdir(parents=True, exist_ok=True)
        call = {**call, "build_directory": str(folder)}
        with _folder_lock(folder):
            (folder / TORCH_BATON).unlink(missing_ok=True)  # under our lock nobody else builds here
            if (folder / BUILT_MARK).exists():
                return original(name, **call)
            if lighter and (folder / LIGHT_FAILED_MARK).exists():
                raise _LighterBuildFailed((folder / LIGHT_FAILED_MARK).read_text())
            _clear(folder)
            with _counting_as(BUILD_CLOCK):
                if route is not None:
                    route.prepare()
                versions = _versions_before(name) if lighter else None
                try:
                    module = original(name, **call)
                except Exception as e:
                    if not lighter:
                        raise
                    why = f"{type(e).__name__}: {e}"[-4000:]
                    (folder / LIGHT_FAILED_MARK).write_text(why)
                    versions()
                    raise _LighterBuildFailed(why) from e
            (folder / BUILT_MARK).touch()
            return module

    @functools.wraps(original)
    def load_inline(name, *args, **kwargs):
        call = dict(signature.bind(name, *args, **kwargs).arguments)  # positional ones as torch names them
        del call["name"]
        route = header_route(builds_root, call)
        if route is not None:
            call = route.routed(call)
        if os.environ.get(LIGHT_CU_ENV, "1") == "0":
            return build(name, call, route)
        lightest = lightest_cuda_call(call)
        if lightest is not None:
            try:
                return build(name, lightest, route, lighter=True)
            except _LighterBuildFailed as e:
                if not _MISSING_NAME.search(str(e)) or undeclared_in_torch(str(e)):
                    return build(name, call, route)  # the candidate's own error: torch/types.h won't mend it
        light = lighter_cuda_sources(call.get("cuda_sources"))
        if light is not None:
            with contextlib.suppress(_LighterBuildFailed):
                return build(name, {**call, "cuda_sources": light}, route, lighter=True)
        return build(name, call, route)

    cpp_extension.load_inline = load_inline


def trim_build_log(text: str) -> str:
    """Keep the lines a person needs: compiler errors with one line of context, at most 40."""
    lines = text.splitlines()
    keep: list[int] = []
    for i, line in enumerate(lines):
        if _ERROR_LINE.search(line):
            keep.extend(j for j in (i - 1, i, i + 1) if 0 <= j < len(lines))
    if not keep:
        return "\n".join(lines[-MAX_ERROR_LINES:])
    seen: list[int] = sorted(set(keep))
    return "\n".join(lines[j] for j in seen[:MAX_ERROR_LINES])


def load_candidate(path: str | Path, builds_root: str | Path):
    """Import the candidate file and return its ModelNew class."""
    builds_root = Path(builds_root)
    builds_root.mkdir(parents=True, exist_ok=True)
    os.environ["TORCH_EXTENSIONS_DIR"] = str(builds_root)
    route_builds(builds_root)
    try:
        module = import_file(Path(path), "solbench_candidate")
    except SyntaxError as e:
        raise CandidateLoadError(
            LoadErrorKind.SYNTAX, f"SyntaxError: {e.msg} (candidate line {e.lineno})"
        ) from e
    except BaseException as e:  # noqa: BLE001 - a build failure may surface as any exception
        text = str(e)
        if "Error building extension" in text or type(e).__name__ in (
            "CalledProcessError",
            "RawCudaError",
            "CompileError",
        ):
            raise CandidateLoadError(LoadErrorKind.BUILD, "build failed:\n" + trim_build_log(text)) from e
        tb = traceback.extract_tb(e.__traceback__)
        where = [f.lineno for f in tb if f.filename == str(path)]
        suffix = f" (candidate line {where[-1]})" if where else ""
        raise CandidateLoadError(
            LoadErrorKind.IMPORT, f"import failed: {type(e).__name__}: {text[:2000]}{suffix}"
        ) from e
    model_cls = getattr(module, "ModelNew", None)
    if model_cls is None:
        raise CandidateLoadError(LoadErrorKind.NO_MODEL, "the candidate defines no ModelNew")
    if not isinstance(model_cls, type):
        raise CandidateLoadError(
            LoadErrorKind.NO_MODEL, f"ModelNew is a {type(model_cls).__name__}, not a class"
        )
    return model_cls
