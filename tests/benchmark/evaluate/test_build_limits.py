"""Build and run are limited apart: a timeout names the limit it hit, waiting for another
process's build is not charged, a builder killed mid-build blocks nobody, and extensions that share
a name each get their own build and their own verdict."""

from __future__ import annotations

import dataclasses
import fcntl
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from benchmark.evaluate import harness
from benchmark.evaluate.candidate import BUILT_MARK, LOCK_FILE, PCH_DIR, TORCH_BATON
from benchmark.evaluate.harness import BuildOutcome, build, evaluate
from benchmark.evaluate.sandbox import (
    CAP_FACTOR,
    PROJECT_ROOT,
    ChildOutcome,
    Clocks,
    PairOutcome,
    scrubbed_env,
)
from benchmark.task import load_task
from benchmark.verdict import Status
from benchmark.verify.verifier import Request, Verifier, VerifierConfig

SLOW_IMPORT = """import time

import torch
from torch.utils.cpp_extension import load_inline  # noqa: F401 - what makes the harness build it

time.sleep(600)  # a build that never finishes


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x
"""


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


@pytest.fixture
def cfg(fast_eval):
    return dataclasses.replace(fast_eval, measure=False, trials=1)


def test_run_timeout_names_the_run_limit(task, data_dir, cfg):
    hang = (data_dir / "candidates" / "hang.py").read_text()
    v = evaluate(task, hang, dataclasses.replace(cfg, timeout_s=5.0, strict=False))
    assert v.status is Status.TIMEOUT and v.limit == "run"
    assert v.error.startswith("run timed out after 5.") and "(run limit 5 s)" in v.error


def test_build_timeout_names_the_build_limit(task, cfg):
    v = evaluate(task, SLOW_IMPORT, dataclasses.replace(cfg, build_timeout_s=6.0, strict=False))
    assert v.status is Status.TIMEOUT and v.limit == "build"
    assert v.error.startswith("build timed out after 6.") and "(build limit 6 s)" in v.error
    assert 6.0 <= v.phases.total_s < 20.0  # nothing was run after the build ran out


def test_build_timeout_through_the_verifier_never_executes(task, cfg):
    config = VerifierConfig(eval=dataclasses.replace(cfg, build_timeout_s=6.0, strict=False), build_workers=1)
    with Verifier(config) as verifier:
        v = verifier.submit(task, SLOW_IMPORT).result()
        stats = dict(verifier.stats)
    assert v.status is Status.TIMEOUT and v.limit == "build" and "(build limit 6 s)" in v.error
    assert stats["executed"] == 0


def test_waiting_for_another_build_of_the_folder_is_not_charged(cfg, cpp_candidate):
    code = cpp_candidate("solbench_wait_probe")
    assert build(code, cfg).ok  # built (or found built) once
    [folder] = [d for d in (cfg.cache_dir / "builds").iterdir() if (d / "solbench_wait_probe.so").exists()]
    held = threading.Event()

    def hold_the_folder():  # another process building the same extension, as far as the lock shows
        fd = os.open(folder / LOCK_FILE, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.set()
        time.sleep(25)
        os.close(fd)

    holder = threading.Thread(target=hold_the_folder)
    holder.start()
    held.wait()
    outcome = build(code, dataclasses.replace(cfg, build_timeout_s=15.0))  # 25 s of waiting, uncharged
    holder.join()
    assert outcome.ok, outcome.error
    # It waited out the holder's 25 s (less the moment between the holder's start and the build's),
    # well past its own 15-s limit, and the wait was not charged.
    assert 24.0 <= outcome.wall_s < CAP_FACTOR * 15.0


def test_builder_killed_mid_build_blocks_nobody(cfg, tmp_path, cpp_candidate):
    cfg = dataclasses.replace(cfg, cache_dir=tmp_path / "cache")
    code = cpp_candidate("solbench_killed_probe")
    path = tmp_path / "candidate.py"
    path.write_text(code)
    builds = cfg.cache_dir / "builds"
    script = f"from benchmark.evaluate.candidate import load_candidate\nload_candidate({str(path)!r}, {str(builds)!r})\n"
    builder = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=PROJECT_ROOT,
        env=scrubbed_env(),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(240):  # torch's own lock appears when its build starts
            batons = list(builds.glob(f"*/{TORCH_BATON}")) if builds.exists() else []
            if batons or builder.poll() is not None:
                break
            time.sleep(0.25)
        time.sleep(2.0)  # well into the compiler
    finally:
        os.killpg(builder.pid, signal.SIGKILL)
        builder.wait()
    [folder] = [baton.parent for baton in batons]
    assert (folder / TORCH_BATON).exists() and not (folder / BUILT_MARK).exists()  # what it left

    outcome = build(code, dataclasses.replace(cfg, build_timeout_s=300.0))
    assert outcome.ok, outcome.error
    assert (folder / BUILT_MARK).exists() and not (folder / TORCH_BATON).exists()

    (folder / TORCH_BATON).touch()  # a loader killed after the build, before torch removed its lock
    again = build(code, dataclasses.replace(cfg, build_timeout_s=60.0))
    assert again.ok and again.seconds < 30.0, again.error


@pytest.mark.slow
def test_extensions_sharing_a_name_each_get_their_own_verdict(task, cfg, tmp_path, cpp_candidate):
    cfg = dataclasses.replace(cfg, cache_dir=tmp_path / "cache")
    codes = [
        cpp_candidate("custom_relu"),
        cpp_candidate("custom_relu", "out[i] = in[i] * 2.0f + 2.0f;"),
        cpp_candidate("elementwise_add", "out[i] = in[i] + in[i] + 1.0f;"),
        cpp_candidate("elementwise_add", "out[i] = in[i] + 1.0f;"),
        cpp_candidate("custom_relu", comment="the first one's extension, in other code"),
    ]
    config = VerifierConfig(eval=cfg, build_workers=3, lanes_per_device=2)
    with Verifier(config) as verifier:
        verdicts = verifier.verify([Request(task, code, sample=i) for i, code in enumerate(codes)])
    statuses = [v.status for v in verdicts]
    assert statuses == [Status.PASS, Status.INCORRECT, Status.PASS, Status.INCORRECT, Status.PASS], [
        v.error for v in verdicts
    ]
    folders = [d for d in (cfg.cache_dir / "builds").iterdir() if d.name != PCH_DIR]
    assert len(folders) == 4 and all((f / BUILT_MARK).exists() for f in folders)  # equal sources share one


@pytest.mark.slow
def test_build_inside_the_execution_child_counts_against_the_build_limit(task, cfg, tmp_path, cpp_candidate):
    # Built in ModelNew.__init__, so the build child never reaches it: the execution child compiles
    # it (a cold C++ build, tens of seconds here) under a run limit far shorter than that.
    cfg = dataclasses.replace(cfg, cache_dir=tmp_path / "cache", timeout_s=8.0)
    v = evaluate(task, cpp_candidate("solbench_lazy_probe", lazy=True), cfg)
    assert v.status is Status.PASS, v.error
    assert v.phases.correctness_s > cfg.timeout_s  # ModelNew() compiled it, for longer than the run limit


def test_a_child_lost_mid_run_keeps_what_it_compiled(task, cfg, monkeypatch):
    # No result comes back, so the child's own phases are lost; its build clock is not.
    lost = ChildOutcome(
        None, -9, True, 330.0, "", limit="run", limits=cfg.limits, charged_s={"build": 21.0, "run": 300.0}
    )
    monkeypatch.setattr(harness, "run_pair", lambda *args, **kwargs: PairOutcome(lost, lost))
    code = "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    v = evaluate(task, code, cfg, built=BuildOutcome(True, seconds=1.5, wall_s=3.0))
    assert v.status is Status.TIMEOUT and v.limit == "run"
    assert v.phases.compile_s == 22.5 and v.phases.total_s == 333.0


def test_a_waiting_clock_pauses_the_deadline():
    clocks = Clocks({"run": 10.0}, "run", t0=0.0)
    assert clocks.deadline() == 10.0 and clocks.overrun(9.9) is None
    clocks.switch("wait", 4.0)
    assert clocks.overrun(15.0) is None  # 11 s waiting, 4 s charged
    clocks.switch("run", 15.0)
    assert clocks.deadline() == 21.0 and clocks.overrun(21.0) == ("run", False)
    assert clocks.spent("wait", 21.0) == 11.0 and clocks.spent("run", 21.0) == 10.0


def test_a_build_inside_a_run_is_charged_to_the_build_limit():
    clocks = Clocks({"run": 10.0, "build": 100.0}, "run", t0=0.0)
    clocks.switch("build", 2.0)
    assert clocks.overrun(90.0) is None
    clocks.switch("run", 60.0)
    assert clocks.deadline() == 68.0
    clocks.switch("build", 61.0)
    assert clocks.overrun(103.0) == ("build", False)  # 58 + 42 s of building


def test_waiting_forever_meets_the_cap():
    clocks = Clocks({"run": 10.0}, "run", t0=0.0)
    clocks.switch("wait", 1.0)
    assert clocks.overrun(29.9) is None
    assert clocks.overrun(CAP_FACTOR * 10.0) == ("run", True)


def test_unknown_clocks_are_ignored():
    clocks = Clocks({"run": 10.0}, "run", t0=0.0)
    clocks.switch("holiday", 1.0)
    assert clocks.current == "run" and clocks.overrun(10.0) == ("run", False)
    with pytest.raises(ValueError, match="first clock"):
        Clocks({"run": 10.0}, "build", t0=0.0)


def test_timeout_text_says_which_limit_and_what_was_not_counted():
    out = ChildOutcome(
        None,
        -9,
        True,
        947.5,
        "",
        limit="build",
        limits={"build": 900.0},
        charged_s={"build": 912.3, "wait": 35.2},
    )
    assert out.crash_reason == (
        "build timed out after 912.3 s (build limit 900 s); "
        "35.2 s waiting for another build of the same extension not counted"
    )
    capped = dataclasses.replace(out, capped=True, limit="run", limits={"run": 300.0}, wall_s=901.0)
    assert capped.crash_reason.startswith(
        "run timed out after 901.0 s of wall time, the cap of 3x its limits (900 s)"
    )
