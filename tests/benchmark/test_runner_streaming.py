"""`benchmark.run` streams verdicts: each one reaches results.jsonl as soon as its evaluation ends,
while the backend is still generating, in completion order; an interrupted generation keeps every
finished verdict and a rerun resumes. Candidates are pure Python (strict mode off, no timing), so
nothing is compiled."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from benchmark.models import Backend, Completion
from benchmark.models import base as models_base
from benchmark.run import main as run_main
from benchmark.runner import RunConfig, SamplingParams, default_lanes, run

WAIT_S = 120.0  # how long a scripted backend or candidate waits for a verdict before giving up


def fenced(code: str) -> str:
    return f"Here is my kernel:\n```python\n{code}```\n"


def quick_candidate(data_dir: Path) -> str:
    return (data_dir / "candidates" / "torch_correct.py").read_text()


def waiting_candidate(results: Path, sample: int) -> str:
    """A correct candidate whose forward returns only once results.jsonl holds `sample`'s verdict."""
    return f"""import json
import time
from pathlib import Path

import torch

RESULTS = Path({str(results)!r})


def recorded():
    if not RESULTS.exists():
        return False
    return any(json.loads(line).get("sample") == {sample} for line in RESULTS.read_text().splitlines() if line.strip())


class ModelNew(torch.nn.Module):
    def forward(self, x):
        deadline = time.monotonic() + {WAIT_S}
        while not recorded() and time.monotonic() < deadline:
            time.sleep(0.05)
        return x * 2.0 + 1.0
"""


def samples_in(results: Path) -> list[int]:
    if not results.exists():
        return []
    return [json.loads(line)["sample"] for line in results.read_text().splitlines() if line.strip()]


def wait_for(predicate, timeout: float = WAIT_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


class ScriptedBackend(Backend):
    """Yields the completions `answers` gives per sample; `after(sample)` runs right after that
    sample's completion is yielded (to wait for verdicts, or to raise)."""

    name = "streaming"
    uses_prompts = False

    def __init__(self, answers: dict[int, str], after=None):
        self.answers = answers
        self.after = after or (lambda sample: None)
        self.requests = []

    def generate(self, requests):
        for req in requests:
            self.requests.append(req)
            yield Completion(req, fenced(self.answers[req.sample]))
            self.after(req.sample)


@pytest.fixture
def register(monkeypatch):
    def put(backend: Backend) -> str:
        monkeypatch.setitem(models_base.BACKENDS, "streaming", lambda arg, **kw: backend)
        return "streaming"

    return put


def config(tmp_path, data_dir, fast_eval, model: str, samples: int, **kw) -> RunConfig:
    return RunConfig(
        model=model,
        out=tmp_path / "run",
        suite=str(data_dir / "suite"),
        tasks=("scale_shift",),
        eval=dataclasses.replace(fast_eval, strict=False, measure=False),
        sampling=SamplingParams(samples=samples),
        progress=False,
        **kw,
    )


def test_a_quick_verdict_is_written_while_generation_and_a_slow_sample_continue(
    tmp_path, data_dir, fast_eval, register, capsys
):
    results = tmp_path / "run" / "results.jsonl"
    seen = {}

    def after(sample):
        if sample == 1:  # generation goes on until sample 1's verdict is on disk
            seen["during_generation"] = wait_for(lambda: 1 in samples_in(results))
            # the recorder moves the bar right after it writes the verdict: wait for it, not a snapshot
            err: list[str] = []
            wait_for(lambda: err.append(capsys.readouterr().err) or "pass=1" in "".join(err))
            seen["bar"] = "".join(err)

    backend = ScriptedBackend({0: waiting_candidate(results, sample=1), 1: quick_candidate(data_dir)}, after)
    cfg = dataclasses.replace(
        config(tmp_path, data_dir, fast_eval, register(backend), 2, lanes=2), progress=True
    )
    summary = run(cfg)

    assert seen["during_generation"], "sample 1's verdict was not written while the backend was generating"
    assert samples_in(results) == [1, 0]  # completion order: the slow sample 0 was submitted first
    assert summary["metrics"]["overall"]["avg_at_k"] == 1.0  # sample 0 ended once it saw sample 1's verdict
    assert "1/2" in seen["bar"] and "pass=1" in seen["bar"]  # the bar moved during generation
    assert "2/2" in capsys.readouterr().err
    assert json.loads((tmp_path / "run" / "run.json").read_text())["lanes"] == 2


def test_an_interrupted_generation_keeps_finished_verdicts_and_a_rerun_resumes(
    tmp_path, data_dir, fast_eval, register
):
    results = tmp_path / "run" / "results.jsonl"
    interrupt = {"on": True}

    def after(sample):
        if sample == 1 and interrupt["on"]:
            assert wait_for(lambda: len(samples_in(results)) == 2), (
                "samples 0 and 1 were not recorded in time"
            )
            raise KeyboardInterrupt

    answers = {s: quick_candidate(data_dir) for s in range(3)}
    backend = ScriptedBackend(answers, after)
    cfg = config(tmp_path, data_dir, fast_eval, register(backend), 3)
    with pytest.raises(KeyboardInterrupt):
        run(cfg)
    assert sorted(samples_in(results)) == [0, 1]
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["metrics"]["overall"]["samples"] == 2

    interrupt["on"] = False
    backend.requests.clear()
    summary = run(cfg)
    assert [r.sample for r in backend.requests] == [2]  # only the sample the interrupted run never generated
    assert sorted(samples_in(results)) == [0, 1, 2]
    overall = summary["metrics"]["overall"]
    assert overall["samples"] == 3 and overall["avg_at_k"] == 1.0


def test_an_error_in_generation_keeps_finished_verdicts(tmp_path, data_dir, fast_eval, register):
    results = tmp_path / "run" / "results.jsonl"

    def after(sample):
        assert wait_for(lambda: samples_in(results) == [0]), "sample 0 was not recorded in time"
        raise ConnectionError("the server went away")

    backend = ScriptedBackend({0: quick_candidate(data_dir), 1: quick_candidate(data_dir)}, after)
    with pytest.raises(ConnectionError, match="went away"):
        run(config(tmp_path, data_dir, fast_eval, register(backend), 2))
    assert samples_in(results) == [0]


@pytest.mark.parametrize(
    ("device", "gpus", "cores", "lanes"),
    [
        ("cpu", 1, 64, 1),
        ("cuda", 1, 16, 8),
        ("cuda", 1, 2, 1),
        ("cuda", 1, 3, 1),
        ("cuda", 8, 128, 8),
        ("cuda", 4, 32, 4),
        ("cuda", 1, 256, 8),
    ],
)
def test_default_lanes(device, gpus, cores, lanes):
    assert default_lanes(device, gpus, cores) == lanes


def test_cli_lanes(tmp_path, capsys):
    assert (
        run_main(["--model", "reference", "--device", "cpu", "--lanes", "0", "--out", str(tmp_path / "o")])
        == 2
    )
    assert "lanes must be at least 1" in capsys.readouterr().err
