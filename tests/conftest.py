"""Shared fixtures: fast evaluation settings and a build cache that lives for the test session,
so each C++ candidate is compiled once per run of the suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DATA = Path(__file__).parent / "benchmark" / "data"


FAILURE_LOG = os.environ.get("SOLBENCH_FAILURE_LOG")  # each failure's report, written as it happens
_controller = True  # False in a pytest-xdist worker, whose reports the controller writes


def pytest_configure(config):
    global _controller
    _controller = not hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    """Write a failed test's report to SOLBENCH_FAILURE_LOG at once (the GPU stage sets it): a run cut
    by its time limit never prints its summary, and its reasons were lost with it."""
    if FAILURE_LOG and report.failed and _controller:
        with open(FAILURE_LOG, "a") as f:
            f.write(
                f"=== {report.nodeid} ({report.when}, {report.duration:.1f} s)\n{report.longreprtext}\n\n"
            )


def pytest_collection_modifyitems(config, items):
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory) -> Path:
    """SOLBENCH_TEST_CACHE shares one cache between parallel test workers (the GPU stage sets it)."""
    shared = os.environ.get("SOLBENCH_TEST_CACHE")
    return Path(shared) if shared else tmp_path_factory.mktemp("solbench-cache")


@pytest.fixture
def fast_eval(build_cache):
    """An EvalConfig for tiny CPU tasks: few trials, short timing, short timeout."""
    from benchmark.evaluate.harness import EvalConfig
    from benchmark.evaluate.timing import TimingConfig

    return EvalConfig(
        device="cpu",
        trials=3,
        timeout_s=600.0,  # a cold C++ build on a busy 2-core machine can take minutes
        timing=TimingConfig(
            warmup_calls=1, warmup_seconds=0.0, min_runs=3, min_seconds=0.0, max_runs=20, max_seconds=0.2
        ),
        cache_dir=build_cache,
    )


@pytest.fixture(scope="session")
def gpu_has_profile() -> bool:
    """Whether the first GPU has a device profile (benchmark/devices): floors exist only then."""
    import torch

    from benchmark.evaluate.device_profile import load_profile

    return torch.cuda.is_available() and load_profile(torch.cuda.get_device_properties(0).name) is not None


@pytest.fixture
def fresh_zygote(monkeypatch):
    """A zygote of the test's own in place of the process's (benchmark.evaluate.sandbox.ZYGOTE), killed after."""
    import signal

    from benchmark.evaluate import sandbox
    from benchmark.evaluate.zygote import Zygote

    monkeypatch.setenv(sandbox.ZYGOTE_SWITCH, "1")
    zygote = Zygote(sandbox.scrubbed_env)
    monkeypatch.setattr(sandbox, "ZYGOTE", zygote)
    yield zygote
    if zygote.pid is not None:
        os.kill(zygote.pid, signal.SIGKILL)


@pytest.fixture
def changed_eval_settings(tmp_path) -> dict:
    """A value other than the default for every EvalConfig setting (`timing`: every TimingConfig
    field changed), as plain values: for the tests that every setting reaches the verifier from a
    config that holds one (RL, dataset builds)."""
    import dataclasses

    from benchmark.evaluate.harness import EvalConfig
    from benchmark.evaluate.timing import TimingConfig

    def changed(f: dataclasses.Field, default):
        if f.name == "device":
            return "cuda"
        if f.name == "baseline":
            return "compile"
        if f.name == "cache_dir":
            return str(tmp_path / "cache")
        if f.name == "timing":
            return {
                t.name: changed(t, getattr(TimingConfig(), t.name)) for t in dataclasses.fields(TimingConfig)
            }
        if isinstance(default, bool):
            return not default
        if isinstance(default, int | float):
            return default * 2 + 1
        raise AssertionError(f"no changed value for EvalConfig.{f.name} ({default!r}): add one here")

    defaults = EvalConfig()
    return {f.name: changed(f, getattr(defaults, f.name)) for f in dataclasses.fields(EvalConfig)}


@pytest.fixture(autouse=True)
def _torch_threads_kept():
    """A test that runs a timing side in this process (benchmark.evaluate.timing.share_cores) leaves
    torch's thread count as it found it: the zygote tests compare children's with this process's."""
    import torch

    before = torch.get_num_threads()
    yield
    if torch.get_num_threads() != before:
        torch.set_num_threads(before)
