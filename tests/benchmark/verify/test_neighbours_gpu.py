"""A kernel that never ends, beside honest candidates on the same GPU in 8 lanes, twice over: it
costs only its own sample (a timeout at its run limit), and every honest one passes unflagged, its
wait for the device charged to no limit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from benchmark.suite import BUILTIN_SUITE
from benchmark.task import load_task
from benchmark.verdict import Status
from benchmark.verify.verifier import Request, Verifier, VerifierConfig

pytestmark = pytest.mark.gpu
TESTS = Path(__file__).parents[2]
RUN_LIMIT_S = 60.0
HONEST = ["honest/triton_gelu_tanh.py", "honest/cuda_gelu_tanh.py", "honest/raw_cuda_gelu_tanh.py"]


def test_an_endless_kernel_costs_only_its_own_sample(fast_eval):
    task = load_task(BUILTIN_SUITE / "level1" / "gelu_tanh_fp32.py")
    config = dataclasses.replace(fast_eval, device="cuda", timeout_s=RUN_LIMIT_S)
    endless = (TESTS / "benchmark/data/candidates/cuda_endless.py").read_text()
    requests, expected = [], []
    for round_ in range(2):
        requests.append(Request(task, endless, sample=100 * round_))
        expected.append("endless")
        for k in range(7):
            path = HONEST[k % len(HONEST)]
            requests.append(Request(task, (TESTS / path).read_text(), sample=100 * round_ + k + 1))
            expected.append(path)
    with Verifier(VerifierConfig(eval=config, lanes_per_device=8)) as verifier:
        verdicts = verifier.verify(requests)
    for verdict, what in zip(verdicts, expected, strict=True):
        if what == "endless":
            assert verdict.status is Status.TIMEOUT and verdict.limit == "run", (
                verdict.status,
                verdict.error,
            )
        else:
            assert verdict.status is Status.PASS and not verdict.flags, (
                what,
                verdict.status,
                verdict.flags,
                verdict.error,
            )
