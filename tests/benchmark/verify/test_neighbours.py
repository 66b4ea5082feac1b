"""A neighbour's hang costs only its own sample: in one `benchmark.run` with two lanes on the CPU, a
candidate that never returns from forward holds the device lock until its run limit ends, while an
honest candidate beside it waits for the lock to time; the wait is charged to no limit, so the honest
one passes and the wrong one is judged incorrect, in either order."""

from __future__ import annotations

import dataclasses
import json

import pytest

from benchmark.evaluate.harness import build
from benchmark.models.base import SamplingParams
from benchmark.runner import RunConfig, run

RUN_LIMIT_S = 40.0  # the hang's limit: longer than the honest sample's own work, shorter than a test


def _replay(path, names: list[str], data_dir, cfg) -> None:
    """The replay file; each C++ candidate built first, so that every sample starts executing at
    once and the hang holds the lock while the others check and time."""
    lines = []
    for sample, name in enumerate(names):
        code = (data_dir / "candidates" / f"{name}.py").read_text()
        assert build(code, cfg).ok
        completion = f"```python\n{code}\n```"
        lines.append(json.dumps({"task": "scale_shift", "completion": completion, "sample": sample}))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    "order",
    [["hang", "cpp_correct", "cpp_wrong"], ["cpp_correct", "hang", "cpp_wrong"]],
    ids=["hang-first", "honest-first"],
)
def test_a_hang_costs_only_its_own_sample(order, tmp_path, data_dir, fast_eval):
    replay = tmp_path / "replay.jsonl"
    _replay(replay, order, data_dir, fast_eval)
    cfg = RunConfig(
        model=f"replay:{replay}",
        out=tmp_path / "run",
        suite=str(data_dir / "suite"),
        tasks=("scale_shift",),
        sampling=SamplingParams(samples=len(order)),
        eval=dataclasses.replace(fast_eval, timeout_s=RUN_LIMIT_S),
        lanes=2,
        progress=False,
    )
    run(cfg)
    verdicts = {}
    for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        verdicts[order[r["sample"]]] = r
    assert verdicts["hang"]["verdict"] == "timeout" and verdicts["hang"]["limit"] == "run"
    honest = verdicts["cpp_correct"]
    assert honest["verdict"] == "pass" and honest["flags"] == [], honest["error"]
    # Where it met the hang on the device lock it waited for it, uncharged (in either order it may
    # also have timed before the hang reached its checks)
    assert honest["phases"]["lock_wait_s"] < 0.5 or honest["phases"]["lock_wait_s"] > RUN_LIMIT_S / 2
    assert verdicts["cpp_wrong"]["verdict"] == "incorrect", verdicts["cpp_wrong"]["error"]
