"""The verifier's pools on CPU: builds ahead of execution, each code built once, verdicts identical
to the serial path, concurrent builds of one extension safe."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmark.evaluate.candidate import PCH_DIR
from benchmark.evaluate.harness import build
from benchmark.task import load_task
from benchmark.verdict import Status
from benchmark.verify.verifier import Request, Verifier, VerifierConfig, serial_verify


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


@pytest.fixture
def codes(data_dir):
    read = lambda name: (data_dir / "candidates" / f"{name}.py").read_text()  # noqa: E731
    return {
        "correct": read("cpp_correct"),
        "wrong": read("cpp_wrong"),
        "compile_error": read("cpp_compile_error"),
        "cheat": (data_dir.parent.parent / "cheats" / "functional_ops.py").read_text(),
        "empty": "",
    }


def test_pools_match_the_serial_path(task, codes, fast_eval):
    cfg = dataclasses.replace(fast_eval, measure=False)
    requests = [Request(task, code, sample=i) for i, code in enumerate(codes.values())]
    requests.append(Request(task, codes["correct"], sample=99))  # same code again: built once
    with Verifier(VerifierConfig(eval=cfg, build_workers=2)) as verifier:
        pooled = verifier.verify(requests)
        stats = dict(verifier.stats)
    expected = [
        Status.PASS,
        Status.INCORRECT,
        Status.COMPILE_ERROR,
        Status.CHEAT,
        Status.NO_CODE,
        Status.PASS,
    ]
    assert [v.status for v in pooled] == expected
    assert stats["build_cache_hits"] == 1
    assert stats["executed"] == 3  # the compile error, the cheat and the empty code never reach a device
    serial = serial_verify(requests, cfg)
    assert [v.status for v in serial] == [v.status for v in pooled]
    assert [v.flags for v in serial] == [v.flags for v in pooled]


def test_concurrent_builds_of_one_extension(codes, fast_eval, tmp_path):
    cfg = dataclasses.replace(fast_eval, cache_dir=tmp_path / "cache")
    with ThreadPoolExecutor(3) as pool:
        outcomes = list(pool.map(lambda _: build(codes["correct"], cfg), range(3)))
    assert all(o.ok for o in outcomes), outcomes
    builds = [d for d in (tmp_path / "cache" / "builds").iterdir() if d.name != PCH_DIR]
    assert len(builds) == 1  # one content-keyed folder, shared


def test_rewards_follow_the_verdicts(task, codes, fast_eval):
    cfg = dataclasses.replace(fast_eval, measure=False)
    with Verifier(VerifierConfig(eval=cfg)) as verifier:
        good = verifier.submit(task, codes["correct"]).result()
        bad = verifier.submit(task, codes["cheat"]).result()
        assert verifier.reward(good) == 1.0  # correct; speedup not measured
        assert verifier.reward(bad) == -1.0


def test_cuda_without_gpus_is_refused(fast_eval):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is visible")
    with pytest.raises(RuntimeError, match="no GPU"):
        Verifier(VerifierConfig(eval=dataclasses.replace(fast_eval, device="cuda")))
