"""Threads started after the candidate loads (anticheat.integrity.ThreadWatch): the candidate's are
counted, however they are started; a compiler library's own are listed by their starter instead."""

from __future__ import annotations

import _thread
import threading
import types

import pytest

from benchmark.evaluate.anticheat.integrity import ThreadWatch

STARTS = """
import concurrent.futures, threading

def plain():
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()

def pooled():
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: None).result()
"""


def module_named(name: str) -> types.ModuleType:
    """`STARTS` as the code of a module called `name`: the starter the watch reads."""
    module = types.ModuleType(name)
    exec(compile(STARTS, f"<{name}>", "exec"), module.__dict__)
    return module


@pytest.fixture
def watch(monkeypatch):
    """A ThreadWatch whose wrapping of the start functions is undone after the test."""
    for owner, name in (
        (_thread, "start_new_thread"),
        (threading, "_start_new_thread"),
        (threading, "_start_joinable_thread"),
        (_thread, "start_joinable_thread"),
    ):
        if hasattr(owner, name):
            monkeypatch.setattr(owner, name, getattr(owner, name))
    return ThreadWatch()


@pytest.mark.parametrize("start", ["plain", "pooled"])
@pytest.mark.parametrize(
    "name", ["candidate_7f3a", "triton_gelu_tanh", "helion_softmax", "torch_inductor_like"]
)
def test_the_candidates_threads_count_whatever_its_module_is_called(watch, name, start):
    getattr(module_named(name), start)()
    assert watch.started == 1 and watch.library == []


@pytest.mark.parametrize("start", ["plain", "pooled"])
@pytest.mark.parametrize(
    "name", ["torch._inductor.async_compile", "triton.runtime.build", "helion.runtime.kernel"]
)
def test_a_compiler_librarys_threads_are_listed_not_counted(watch, name, start):
    getattr(module_named(name), start)()
    assert watch.started == 0 and watch.library == [name]
