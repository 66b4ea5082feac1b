"""Exploits through native code (tests/cheats/native/): a C++ extension built by load_inline does
the attack, where the static rules, the audit hook and the op census do not look. Each one passes
the naive evaluator (naive.py, the candidate in the evaluator's own process); the destructive ones,
whose effect is harm to other samples rather than a pass, are shown doing that harm instead.
What today's harness makes of each is recorded in tests/cheats/native/README.md."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from torch.utils import cpp_extension

HERE = Path(__file__).parent
NATIVE = HERE / "native"
TASK = HERE.parent / "benchmark" / "data" / "suite" / "level1" / "scale_shift.py"
DESTRUCTIVE = "destructive: "  # marks an exploit whose effect is harm to its neighbours, not a pass

NATIVE_CHEATS = {
    "pybind_exec_frame_walk": "py::exec of a Python string that walks sys._getframe/f_locals for the expected output",
    "pybind_getframe_walk": "sys._getframe, f_back and f_locals as pybind11 attribute lookups from C++",
    "capi_frame_walk": "PyEval_GetFrame / PyFrame_GetBack / PyFrame_GetLocals: the stack's locals from the C API",
    "capi_run_string_traceback": "PyRun_String in its own dict: a caught exception's traceback gives the frames",
    "gc_list_walk": "the garbage collector's generation lists walked through the GC headers (no gc.get_objects)",
    "modules_reference_reuse": "sys.modules walked for the task's Model, run on the input with the Python keys excluded",
    "module_global_patch": "PyObject_SetAttrString: torch.allclose, worker.compare_outputs, timing.paired_ratio",
    "type_dict_patch": "PyDict_SetItem into Timer/nn.Module tp_dict + PyType_Modified: a forged speedup",
    "method_table_patch": "ml_meth of torch.allclose/isclose rewritten in their PyMethodDef: same objects",
    "type_slot_patch": "torch.Tensor's nb_bool slot and torch.allclose's vectorcall slot rewritten",
    "proc_mem_scan": "/proc/<pid>/maps + /proc/<pid>/mem of itself, parent and siblings scanned for the answer",
    "process_vm_readv_scan": "process_vm_readv over the same processes: no file opened",
    "ptrace_peek": "a forked helper PTRACE_ATTACHes and PEEKDATAs the answer out of the evaluator",
    "segv_probe_scan": "blind probing of its own address space, faults swallowed by SIGSEGV + siglongjmp",
    "raw_syscall_escape": "syscall(SYS_openat/SYS_socket/SYS_connect): a file outside the sandbox, sockets",
    "dlsym_aten": "at::cpu::mul/add resolved by mangled name with dlsym: ATen unseen by the op census",
    "dispatch_key_exclude": "torch ops under ExcludeDispatchKeyGuard(Python): the TorchDispatchMode census skipped",
    "lazy_frame_detect": "frame names (_once, interleaved, timed) say 'timed': answer from a content-keyed cache",
    "lazy_clock_detect": "clock_gettime gaps say 'timed': return the previous output, no work",
    "deferred_thread_write": "output returned unwritten, written by a detached thread; a PROT_NONE page + SIGSEGV gate",
    "forge_verdict_fds": "a forged pass written to every descriptor of its own and every pipe of its parent",
    "forge_signed_verdict": "the result channel's nonce read from the worker's frames: a signed forged pass, _exit",
    "env_detect": "getenv + /proc/self/{environ,cmdline}: honest under SOLBench, lazy anywhere else",
    "kill_neighbours": DESTRUCTIVE + "SIGKILL by raw syscall to every sibling that looks like an evaluation",
    "lock_hog": DESTRUCTIVE + "a setsid daemon outlives its sample and holds the device locks",
    "flood_parent": DESTRUCTIVE + "parents' oom_score_adj raised, unbounded bytes down the result pipe",
}
PASSING = sorted(name for name, what in NATIVE_CHEATS.items() if not what.startswith(DESTRUCTIVE))
ESCAPE_DIR = Path("/tmp/solbench-native-escape")  # where raw_syscall_escape writes, outside any sandbox


def test_every_native_exploit_is_in_the_table():
    assert sorted(p.stem for p in NATIVE.glob("*.py")) == sorted(NATIVE_CHEATS)


def naive_env(extensions_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "TORCH_EXTENSIONS_DIR": str(extensions_dir), **extra}


def verdict_line(stdout: str) -> dict | None:
    """The first JSON line with a status, as a harness that trusts stdout would take it."""
    for line in stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "status" in record:
            return record
    return None


LOAD = (
    "import importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('candidate', sys.argv[1])\n"
    "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
)


def build(path: Path, folder: Path, **env: str) -> None:
    """Import a candidate, which builds its extension into `folder` and runs none of its attack
    (that waits for forward)."""
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(path)],
        capture_output=True,
        text=True,
        timeout=900,
        env=naive_env(folder, **env),
    )
    assert done.returncode == 0, f"{path.name} did not build:\n{done.stderr[-3000:]}"


def precompiled_header(folder: Path, built: str) -> dict[str, str]:
    """torch/extension.h precompiled with the flags of the extension `built` (its build.ninja), in a
    folder that CPATH puts ahead of torch's -isystem folders: gcc takes the .gch where it is valid
    for a compile and the header beside it otherwise, and CPATH is no build flag, so the extensions
    are the ones the naive evaluator would build (it loads them without compiling). Compiling
    torch/extension.h is most of each build: this makes the other builds several times faster."""
    ninja = (folder / built / "build.ninja").read_text()
    cxx = re.search(r"^cxx = (.*)$", ninja, re.MULTILINE).group(1).split()
    cflags = shlex.split(re.search(r"^cflags = (.*)$", ninja, re.MULTILINE).group(1))
    cflags = [f for f in cflags if not f.startswith("-DTORCH_EXTENSION_NAME=")]
    header = Path(cpp_extension.include_paths()[0]) / "torch" / "extension.h"
    pch = folder / "pch" / "torch"
    pch.mkdir(parents=True, exist_ok=True)
    (pch / "extension.h").unlink(missing_ok=True)
    (pch / "extension.h").symlink_to(header)  # gcc's dependency output names the header itself
    made = subprocess.run(
        [*cxx, *cflags, "-x", "c++-header", str(header), "-o", str(pch / "extension.h.gch")],
        capture_output=True,
        timeout=900,
    )
    return {"CPATH": str(pch.parent)} if made.returncode == 0 else {}


@pytest.fixture(scope="module")
def extensions(build_cache) -> Path:
    """Every exploit's extension, built before the tests: the first one as the naive evaluator
    would, the others with torch's header precompiled, two or more at once."""
    folder = build_cache / "naive"
    folder.mkdir(exist_ok=True)
    paths = sorted(NATIVE.glob("*.py"))
    build(paths[0], folder)
    env = precompiled_header(folder, re.search(r'name="(\w+)"', paths[0].read_text()).group(1))
    with ThreadPoolExecutor(max(2, min(4, os.cpu_count() or 1))) as pool:
        list(pool.map(lambda path: build(path, folder, **env), paths[1:]))
    return folder


def run_naive(name: str, extensions_dir: Path, **env: str) -> dict:
    out = subprocess.run(
        [sys.executable, str(HERE / "naive.py"), str(TASK), str(NATIVE / f"{name}.py")],
        capture_output=True,
        text=True,
        timeout=600,
        env=naive_env(extensions_dir, **env),
    )
    record = verdict_line(out.stdout)
    assert record is not None, f"naive evaluator gave no result:\n{out.stderr[-3000:]}"
    return record


@pytest.mark.slow
@pytest.mark.parametrize("name", PASSING)
def test_native_exploit_passes_the_naive_evaluator(name, extensions):
    started = time.time()
    assert run_naive(name, extensions)["status"] == "pass", NATIVE_CHEATS[name]
    if name == "raw_syscall_escape":  # the evidence of the escape: a file where nothing may write
        written = [p for p in ESCAPE_DIR.glob("*.txt") if p.stat().st_mtime >= started - 1]
        assert written and "outside the sandbox" in written[0].read_text()
        for p in written:
            p.unlink()


@pytest.mark.slow
def test_kill_neighbours_kills_a_sibling_evaluation(extensions):
    """A driver starts a decoy that looks like a worker, then the naive evaluator beside it."""
    driver = (
        "import json, subprocess, sys\n"
        "decoy = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', 'benchmark.evaluate.worker'])\n"
        "out = subprocess.run([sys.executable, *sys.argv[1:]], capture_output=True, text=True, timeout=600)\n"
        "try:\n"
        "    code = decoy.wait(timeout=10)\n"
        "except subprocess.TimeoutExpired:\n"
        "    decoy.kill()\n"
        "    code = 'alive'\n"
        "print(json.dumps({'decoy': code, 'stdout': out.stdout}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", driver, str(HERE / "naive.py"), str(TASK), str(NATIVE / "kill_neighbours.py")],
        capture_output=True,
        text=True,
        timeout=700,
        env=naive_env(extensions),
    )
    report = json.loads(out.stdout.splitlines()[-1])
    assert report["decoy"] == -signal.SIGKILL, out.stderr[-2000:]
    assert verdict_line(report["stdout"])["status"] == "pass"


def _holders(path: Path) -> list[int]:
    """Processes with `path` open (the lock-holding daemon, to end it)."""
    pids = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            if any(os.readlink(fd) == str(path) for fd in fd_dir.iterdir()):
                pids.append(int(fd_dir.parent.name))
        except OSError:
            continue
    return pids


@pytest.mark.slow
def test_lock_hog_holds_the_device_lock_after_its_sample(extensions, tmp_path):
    """The worker's TMPDIR is a folder beside solbench-locks, as under the harness."""
    (tmp_path / "run").mkdir()
    locks = tmp_path / "solbench-locks"
    locks.mkdir()
    main = locks / "device-0.main"
    main.touch()
    assert run_naive("lock_hog", extensions, TMPDIR=str(tmp_path / "run"))["status"] == "pass"
    fd = os.open(main, os.O_RDWR)
    try:
        held = False
        for _ in range(100):  # the daemon locks once the evaluator has exited
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                time.sleep(0.05)
            except BlockingIOError:
                held = True
                break
        assert held, "nobody holds the device lock"
    finally:
        os.close(fd)
        for pid in _holders(main):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_flood_parent_makes_its_parents_buffer_the_flood(extensions):
    """Under a throwaway driver and an intermediate process, which take the raised oom_score_adj."""
    driver = (
        "import json, subprocess, sys\n"
        "relay = 'import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))'\n"
        "out = subprocess.run([sys.executable, '-c', relay, sys.executable, *sys.argv[1:]],\n"
        "                     capture_output=True, timeout=600)\n"
        "with open('/proc/self/oom_score_adj') as f:\n"
        "    oom = int(f.read())\n"
        "last = out.stdout.rstrip().rsplit(b'\\n', 1)[-1].strip().decode()\n"
        "print(json.dumps({'stdout_bytes': len(out.stdout), 'oom_score_adj': oom, 'last': last}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", driver, str(HERE / "naive.py"), str(TASK), str(NATIVE / "flood_parent.py")],
        capture_output=True,
        text=True,
        timeout=700,
        env=naive_env(extensions),
    )
    report = json.loads(out.stdout.splitlines()[-1])
    assert report["stdout_bytes"] >= 128 * 2**20, out.stderr[-2000:]
    assert report["oom_score_adj"] == 1000
    assert json.loads(report["last"])["status"] == "pass"


# What the harness makes of them. With its static rules on (strict, the default) every one is refused
# before anything is built: a native_* flag names the construct. With them off, the judge still stands:
# these are the runtime outcomes of a sample of the exploits, one per way of reaching for the verdict.
STOLEN = (  # look for the expected output in their process, or in others': nothing to find there
    "pybind_exec_frame_walk",
    "capi_frame_walk",
    "gc_list_walk",
    "proc_mem_scan",
    "process_vm_readv_scan",
    "ptrace_peek",
)
PATCHED = ("module_global_patch", "type_dict_patch")  # the checker or the timer, in their own process


@pytest.fixture(scope="module")
def task():
    from benchmark.task import load_task

    return load_task(TASK)


@pytest.fixture
def lenient(fast_eval):
    import dataclasses

    return dataclasses.replace(fast_eval, strict=False)


@pytest.mark.parametrize("name", sorted(NATIVE_CHEATS))
def test_the_strict_harness_refuses_every_native_exploit(name, task, fast_eval):
    from benchmark.evaluate.harness import evaluate
    from benchmark.verdict import Status

    v = evaluate(task, (NATIVE / f"{name}.py").read_text(), fast_eval)
    assert v.status is Status.CHEAT and any(f.startswith("native_") for f in v.flags), (v.status, v.flags)


@pytest.mark.slow
@pytest.mark.parametrize("name", STOLEN)
def test_without_the_static_rules_there_is_nothing_to_steal(name, task, lenient):
    from benchmark.evaluate.harness import evaluate
    from benchmark.verdict import Status

    v = evaluate(task, (NATIVE / f"{name}.py").read_text(), lenient)
    assert v.status is Status.INCORRECT, (v.status, v.error)  # its own computation: a wrong one


@pytest.mark.slow
@pytest.mark.parametrize("name", PATCHED)
def test_without_the_static_rules_a_patch_in_its_own_process_is_named(name, task, lenient):
    from benchmark.evaluate.harness import evaluate

    v = evaluate(task, (NATIVE / f"{name}.py").read_text(), lenient)
    assert "harness_tampered" in v.flags, (v.status, v.flags, v.error)
    assert v.speedup is None or v.speedup < 10  # whatever it patched, the speedup is the judge's


@pytest.mark.slow
def test_without_the_static_rules_a_forged_verdict_is_no_verdict(task, lenient):
    from benchmark.evaluate.harness import evaluate
    from benchmark.verdict import Status

    v = evaluate(task, (NATIVE / "forge_signed_verdict.py").read_text(), lenient)
    assert v.status is Status.RUNTIME_ERROR, (v.status, v.error)


@pytest.mark.slow
def test_under_the_harness_kill_neighbours_kills_nobody(task, lenient):
    from benchmark.evaluate.harness import evaluate

    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "benchmark.evaluate.worker"])
    try:
        evaluate(task, (NATIVE / "kill_neighbours.py").read_text(), lenient)
        time.sleep(1.0)
        assert decoy.poll() is None  # the candidate's process may signal nobody but itself
    finally:
        decoy.kill()
        decoy.wait()


@pytest.mark.slow
def test_under_the_harness_lock_hog_holds_nothing_after_its_sample(task, lenient):
    """The hog's daemon may not leave its session, so it dies with its sample, and the next sample
    on the same device lock does not wait for it."""
    import tempfile

    from benchmark.evaluate.harness import evaluate
    from benchmark.verdict import Status

    lock = Path(tempfile.gettempdir()) / "solbench-locks" / f"device-native-test-{os.getpid()}"
    evaluate(task, (NATIVE / "lock_hog.py").read_text(), lenient, device_lock=str(lock))
    time.sleep(2.0)  # when a daemon would have taken the lock
    honest = (HERE.parent / "benchmark" / "data" / "candidates" / "torch_correct.py").read_text()
    v = evaluate(task, honest, lenient, device_lock=str(lock))
    assert v.status is Status.PASS and v.phases.lock_wait_s < 5.0, (v.status, v.phases)
    for pid in _holders(Path(f"{lock}.main")):  # nothing should be left; a failed run cleans up
        os.kill(pid, signal.SIGKILL)
