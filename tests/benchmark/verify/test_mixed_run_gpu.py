"""One `benchmark.run` on the GPU mixing what a real run meets: honest reductions in three styles
whose CUDA extensions share one `load_inline` name with different sources, honest elementwise
kernels, a precision downgrade, a kernel that faults the CUDA context, and an output memoized by
address. Every sample gets its own right verdict, and the fault costs only its own sample."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from benchmark.models.base import SamplingParams
from benchmark.runner import RunConfig, run

pytestmark = pytest.mark.gpu
TESTS = Path(__file__).parents[2]

MEMO = (
    "\n\n_memo = {}\n_Plain = ModelNew\n\n\nclass ModelNew(_Plain):\n"
    "    def forward(self, x):\n"
    "        key = (x.data_ptr(), tuple(x.shape))\n"
    "        if key not in _memo:\n"
    "            _memo[key] = super().forward(x)\n"
    "        return _memo[key]\n"
)

SAMPLES = [  # (task, candidate file, the verdict it must get)
    ("sum_rows_fp32", "honest/cuda_rowsum_double.py", "pass"),
    ("sum_rows_fp32", "honest/cuda_rowsum_tree.py", "pass"),
    ("sum_rows_fp32", "honest/triton_rowsum.py", "pass"),
    ("sum_rows_fp32", "benchmark/data/candidates/cuda_rowsum_half_acc.py", "incorrect"),
    ("gelu_tanh_fp32", "honest/cuda_gelu_tanh.py", "pass"),
    ("gelu_tanh_fp32", "benchmark/data/candidates/cuda_illegal_access.py", "runtime_error"),
    ("gelu_tanh_fp32", "honest/raw_cuda_gelu_tanh.py", "pass"),
    (
        "gelu_tanh_fp32",
        "honest/triton_gelu_tanh.py+memo",
        "cheat|incorrect",
    ),  # stale_output, or a stale trial
]


def _completion(path: str) -> str:
    name, _, extra = path.partition("+")
    code = (TESTS / name).read_text() + (MEMO if extra == "memo" else "")
    return f"```python\n{code}\n```"


def test_mixed_run_gives_every_sample_its_verdict(tmp_path, fast_eval, gpu_has_profile):
    replay = tmp_path / "replay.jsonl"
    counts: dict[str, int] = {}
    lines = []
    for task, path, _ in SAMPLES:
        lines.append(
            json.dumps({"task": task, "completion": _completion(path), "sample": counts.get(task, 0)})
        )
        counts[task] = counts.get(task, 0) + 1
    replay.write_text("\n".join(lines) + "\n")
    cfg = RunConfig(
        model=f"replay:{replay}",
        out=tmp_path / "run",
        levels=(1,),
        tasks=("sum_rows_fp32", "gelu_tanh_fp32"),
        sampling=SamplingParams(samples=4),
        eval=dataclasses.replace(fast_eval, device="cuda"),
        progress=False,
    )
    run(cfg)
    got = {}
    for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        got[(r["task_id"].split("/")[-1], r["sample"])] = r
    counts = {}
    for task, path, expected in SAMPLES:
        k = counts.get(task, 0)
        counts[task] = k + 1
        r = got[(task, k)]
        assert r["verdict"] in expected.split("|"), (path, r["verdict"], r["error"])
        if expected == "pass":
            assert r["flags"] == [], (path, r["flags"])
            assert bool(r["sol_ms"]) is gpu_has_profile, (path, r["sol_ms"])  # floors need a device profile
