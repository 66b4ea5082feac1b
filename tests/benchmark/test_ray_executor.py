"""The Ray executor on a local Ray runtime (CPU): the same verdicts as the local verifier."""

from __future__ import annotations

import dataclasses

import pytest

from benchmark.task import load_task
from benchmark.verifier import Request, Verifier, VerifierConfig

ray = pytest.importorskip("ray")


def test_ray_and_local_executors_agree(data_dir, fast_eval):
    from benchmark.ray_executor import RayVerifier

    task = load_task(data_dir / "suite" / "level1" / "scale_shift.py")
    read = lambda n: (data_dir / "candidates" / f"{n}.py").read_text()  # noqa: E731
    requests = [Request(task, code, sample=i) for i, code in
                enumerate(["", read("torch_correct"), read("wrong_shape"), read("syntax_error")])]
    cfg = VerifierConfig(eval=dataclasses.replace(fast_eval, measure=False, strict=False), build_workers=1)
    with Verifier(cfg) as local:
        expected = [v.status for v in local.verify(requests)]
    with RayVerifier(cfg, num_cpus=2) as remote:
        got = [v.status for v in remote.verify(requests)]
    assert got == expected
    assert [s.value for s in got] == ["no_code", "pass", "incorrect", "compile_error"]
