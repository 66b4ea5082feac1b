"""Threads started after the candidate loads (anticheat.integrity.ThreadWatch): the candidate's are
counted, however they are started and whatever its module calls itself; a compiler library's own,
told by the file of the code that started them, are listed instead."""

from __future__ import annotations

import _thread
import threading
import types
from pathlib import Path

import pytest

from benchmark.evaluate.anticheat import integrity
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


def module_at(name: str, file: Path) -> types.ModuleType:
    """`STARTS` as the code of a module called `name` whose code comes from `file`."""
    module = types.ModuleType(name)
    exec(compile(STARTS, str(file), "exec"), module.__dict__)
    return module


@pytest.fixture
def library(tmp_path, monkeypatch) -> Path:
    """A stand-in for an installed compiler library's folder; the watch's start wrappers are undone
    after the test."""
    folder = tmp_path / "site-packages" / "triton"
    folder.mkdir(parents=True)
    monkeypatch.setattr(integrity, "library_dirs", lambda: (str(folder) + "/",))
    for owner, name in (
        (_thread, "start_new_thread"),
        (threading, "_start_new_thread"),
        (threading, "_start_joinable_thread"),
        (_thread, "start_joinable_thread"),
    ):
        if hasattr(owner, name):
            monkeypatch.setattr(owner, name, getattr(owner, name))
    return folder


@pytest.mark.parametrize("start", ["plain", "pooled"])
@pytest.mark.parametrize("name", ["candidate_7f3a", "triton_gelu_tanh", "triton.runtime.build", "threading"])
def test_the_candidates_threads_count_whatever_its_module_calls_itself(library, tmp_path, name, start):
    watch = ThreadWatch()
    getattr(module_at(name, tmp_path / "candidate.py"), start)()
    assert watch.started == 1 and watch.library == []


@pytest.mark.parametrize("start", ["plain", "pooled"])
def test_a_compiler_librarys_threads_are_listed_not_counted(library, start):
    watch = ThreadWatch()
    getattr(module_at("triton.runtime.build", library / "runtime" / "build.py"), start)()
    assert watch.started == 0 and watch.library == ["triton.runtime.build"]


def test_the_libraries_are_found_where_they_are_installed():
    import torch

    found = integrity.library_dirs()
    assert str(Path(torch.__file__).resolve().parent / "_inductor") + "/" in found
