"""The limits a worker sets on itself (benchmark.evaluate.confine), one test per property, read from inside a
real execution child; and the parent starts children without preexec_fn."""

from __future__ import annotations

import json
import os
import platform
import re
import signal
import subprocess
import sys
import time

import pytest

from benchmark.evaluate import sandbox
from benchmark.evaluate.boundary import BuildJob
from benchmark.evaluate.confine import Limits
from benchmark.evaluate.harness import evaluate
from benchmark.evaluate.sandbox import PROJECT_ROOT, child_limits, network_isolated, run_job, scrubbed_env
from benchmark.task import load_task
from benchmark.verdict import Status

REPORTER = """import ctypes
import json
import os
import resource

import torch

_libc = ctypes.CDLL(None)
_sig = ctypes.c_int(-1)
_libc.prctl(2, ctypes.byref(_sig))  # PR_GET_PDEATHSIG
SEEN = {
    "cpu": resource.getrlimit(resource.RLIMIT_CPU),
    "core": resource.getrlimit(resource.RLIMIT_CORE),
    "fsize": resource.getrlimit(resource.RLIMIT_FSIZE),
    "nproc": resource.getrlimit(resource.RLIMIT_NPROC),
    "pdeathsig": _sig.value,
    "netns": os.readlink("/proc/thread-self/ns/net"),
}


class ModelNew(torch.nn.Module):
    def forward(self, x):
        raise RuntimeError("SEEN" + json.dumps(SEEN) + "END")
"""


@pytest.fixture(scope="module")
def seen(data_dir, build_cache) -> dict:
    """What the candidate saw of its own process, from one evaluation."""
    from benchmark.evaluate.harness import EvalConfig

    config = EvalConfig(
        device="cpu", trials=1, measure=False, strict=False, timeout_s=120, cache_dir=build_cache
    )
    verdict = evaluate(load_task(data_dir / "suite" / "level1" / "scale_shift.py"), REPORTER, config)
    assert verdict.status is Status.RUNTIME_ERROR, verdict.error
    found = re.search(r"SEEN(.*)END", verdict.error)
    assert found, verdict.error
    return {**json.loads(found.group(1)), "limits": child_limits(config.limits)}


def test_cpu_time_is_limited_in_the_child(seen):
    cpu_s = seen["limits"].cpu_s
    assert seen["cpu"] == [cpu_s, cpu_s + 5]
    assert cpu_s == int(4 * (120 + 900)) + 60  # scaled from the run and build limits together


def test_no_core_dumps_in_the_child(seen):
    assert seen["core"] == [0, 0]


def test_file_size_is_limited_in_the_child(seen):
    assert seen["fsize"] == [seen["limits"].file_bytes] * 2


def test_process_count_is_limited_in_the_child(seen):
    assert seen["nproc"] == [seen["limits"].processes] * 2


def test_child_dies_with_its_parent(seen):
    assert seen["pdeathsig"] == signal.SIGKILL


def test_child_has_a_network_namespace_of_its_own(seen):
    if not network_isolated():
        pytest.skip("this OS refuses the child a network namespace")
    assert seen["netns"] != os.readlink("/proc/thread-self/ns/net")


def test_child_whose_parent_is_already_gone_kills_itself():
    # parent_pid names a process that is not the child's parent: as if the parent had died first.
    code = "from benchmark.evaluate import confine\nimport sys\nconfine.apply(confine.Limits.from_arg(sys.argv[1]))\nprint('alive')"
    limits = Limits(cpu_s=30, parent_pid=os.getpid() + 10**6, isolate_network=False)
    proc = subprocess.run(
        [sys.executable, "-c", code, limits.to_arg()],
        capture_output=True,
        text=True,
        env=scrubbed_env(),
        cwd=PROJECT_ROOT,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL
    assert "alive" not in proc.stdout


def test_limits_never_exceed_an_inherited_hard_limit():
    # An unprivileged child cannot raise a hard limit: confine lowers to what it inherited instead.
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (50, 50))\n"
        "from benchmark.evaluate import confine\n"
        "confine.apply(confine.Limits.from_arg(sys.argv[1]))\n"
        "print(resource.getrlimit(resource.RLIMIT_CPU))"
    )
    limits = Limits(cpu_s=1000, isolate_network=False)
    proc = subprocess.run(
        [sys.executable, "-c", code, limits.to_arg()],
        capture_output=True,
        text=True,
        env=scrubbed_env(),
        cwd=PROJECT_ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(50, 50)"


@pytest.mark.parametrize("way", ["spawn", "zygote"])
def test_children_start_without_preexec_fn(way, monkeypatch, tmp_path, request):
    # Spawned, the worker is the one process started; forked, the zygote is (by this test's own).
    if way == "zygote":
        request.getfixturevalue("fresh_zygote")
    else:
        monkeypatch.setenv(sandbox.ZYGOTE_SWITCH, "0")
    seen_kwargs: list[dict] = []
    real = subprocess.Popen

    def recording(*args, **kwargs):
        seen_kwargs.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(sandbox.subprocess, "Popen", recording)
    candidate = tmp_path / "candidate.py"
    candidate.write_text("import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n")
    job = BuildJob(str(tmp_path / "builds"), str(candidate))
    outcome = run_job("build", job, 120, clock="build")
    assert outcome.result is not None and outcome.result["status"] == "built", outcome.log_tail
    assert outcome.started_by == way
    assert len(seen_kwargs) == 1 and seen_kwargs[0].get("preexec_fn") is None


HARDENED_PROBE = r"""
import ctypes, json, os, sys
from benchmark.evaluate import confine

target = int(sys.argv[1])
hardening = confine.harden()
seen = {"hardening": hardening.describe()}
libc = ctypes.CDLL(None, use_errno=True)
for name, attempt in [
    ("maps", lambda: open(f"/proc/{target}/maps").read()),
    ("mem", lambda: open(f"/proc/{target}/mem", "rb")),
    ("kill other", lambda: os.kill(target, 0)),
    ("kill self", lambda: os.kill(os.getpid(), 0)),
    ("unix socket", lambda: __import__("socket").socket(__import__("socket").AF_UNIX)),
    ("setsid", lambda: os.setsid()),
    ("ptrace", lambda: libc.ptrace(16, target, 0, 0) == 0 or (_ for _ in ()).throw(OSError(ctypes.get_errno(), "ptrace"))),
]:
    try:
        attempt()
        seen[name] = "allowed"
    except OSError as e:
        seen[name] = os.strerror(e.errno) if e.errno else str(e)
with open("/proc/self/status") as f:
    seen["CapEff"] = next(line.split()[1] for line in f if line.startswith("CapEff:"))
print(json.dumps(seen))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process controls")
def test_the_candidates_process_cannot_reach_a_protected_one():
    """The judge (non-dumpable, `protect`) beside a hardened process (`harden`, as the candidate's
    process is): no maps, no memory, no signal, no ptrace; the hardened one may still signal itself."""
    target = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; from benchmark.evaluate import confine; confine.protect(); time.sleep(60)",
        ],
        env=scrubbed_env(),
    )
    try:
        time.sleep(1.0)  # its protect() has run
        out = subprocess.run(
            [sys.executable, "-c", HARDENED_PROBE, str(target.pid)],
            capture_output=True,
            text=True,
            timeout=60,
            env=scrubbed_env(),
        )
        seen = json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        target.kill()
        target.wait()
    assert seen["kill self"] == "allowed"
    assert all(seen[k] != "allowed" for k in ("maps", "mem", "kill other", "ptrace")), seen
    if platform.machine() == "x86_64":
        assert seen["unix socket"] != "allowed" and seen["setsid"] != "allowed", seen
    if os.geteuid() == 0:  # root gave every capability up
        assert seen["CapEff"] == "0000000000000000", seen
    if platform.machine() == "x86_64":
        assert "seccomp yes" in seen["hardening"], seen


def test_the_seccomp_program_is_whole_instructions():
    from benchmark.evaluate.confine import REFUSED_SYSCALLS, seccomp_program

    program = seccomp_program(1234)
    assert len(program) % 8 == 0 and len(program) // 8 > 2 * len(REFUSED_SYSCALLS)
