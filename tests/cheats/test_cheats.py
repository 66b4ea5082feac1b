"""One real exploit per class: each passes the naive evaluator (naive.py), and each is stopped
by the harness with the flag named for it. The CPU ones run in CI; the CUDA ones on the GPU."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.evaluate.harness import evaluate
from benchmark.task import load_task
from benchmark.evaluate.timing import TimingConfig
from benchmark.verdict import Status

HERE = Path(__file__).parent
TASK = HERE.parent / "benchmark" / "data" / "suite" / "level1" / "scale_shift.py"

TIMED_OR_STALE = ("timed_output_mismatch", "stale_output")

# cheat file -> (flag the strict harness gives, flag the runtime checks give with strict off, naive
# options); a tuple of flags: any one of them
CPU_CHEATS = {
    "torch_fallback": ("aten_compute_op", "aten_compute_op", ()),
    "functional_ops": ("torch_compute_op", "aten_compute_op", ()),
    "helper_functional": ("torch_compute_op", "aten_compute_op", ()),
    "decorator_registry": ("torch_compute_op", "aten_compute_op", ()),
    "main_guard_rebound": ("torch_compute_op", "aten_compute_op", ()),
    "cpp_calls_aten": ("aten_compute_op", "aten_compute_op", ()),
    "subclass_reference": ("subclasses_reference", "aten_compute_op", ()),
    "try_fallback": ("try_fallback", "aten_compute_op", ()),
    "torch_compile": ("torch_compile", None, ()),
    "numpy_compute": ("forbidden_import", None, ()),
    "patch_timer": ("monkeypatch", "harness_tampered", ()),
    "patch_checker": ("monkeypatch", "harness_tampered", ()),
    "mutate_inputs": ("input_mutation", "input_mutation", ("--candidate-first",)),
    "output_aliases_input": ("output_aliases_input", "output_aliases_input", ()),
    "cache_by_shape": (TIMED_OR_STALE, TIMED_OR_STALE, ()),
    # the rechecks sample timed calls at random; where every one lands on a computed call, the
    # stateful check after timing catches the reused output
    "skip_calls": (TIMED_OR_STALE, TIMED_OR_STALE, ()),
    "background_thread": ("forbidden_import", "spawned_threads", ()),
    "lazy_subclass": ("output_not_plain_tensor", "output_not_plain_tensor", ()),
    "forge_result": ("forbidden_call", None, ()),
    "precision_flag": ("precision_change", None, ()),
    "frame_walk": ("introspection", None, ()),
    "gc_walk": ("forbidden_import", "sandbox_violation", ()),
    "escape_sandbox": ("forbidden_import", "sandbox_violation", ()),
    "network_call": ("forbidden_import", "sandbox_violation", ()),
}


@pytest.fixture(scope="module")
def task():
    return load_task(TASK)


@pytest.fixture
def cheat_eval(fast_eval):
    # Enough timed calls that per-call caching and skipping show up in the recheck.
    return dataclasses.replace(fast_eval, timing=TimingConfig(warmup_calls=1, warmup_seconds=0.0, min_runs=24, max_runs=24))


def naive(candidate: Path, *options: str, extensions_dir: Path) -> dict:
    """Run naive.py; like a harness that trusts stdout, take the first JSON line with a status."""
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(extensions_dir)}
    out = subprocess.run(
        [sys.executable, str(HERE / "naive.py"), str(TASK), str(candidate), *options],
        capture_output=True, text=True, timeout=600, env=env,
    )
    for line in out.stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "status" in record:
            return record
    raise AssertionError(f"naive evaluator gave no result:\n{out.stderr[-2000:]}")


@pytest.mark.parametrize("name", sorted(CPU_CHEATS))
def test_cheat_passes_naive_but_not_the_harness(name, task, cheat_eval, build_cache):
    strict_flag, runtime_flag, naive_options = CPU_CHEATS[name]
    path = HERE / f"{name}.py"
    assert naive(path, *naive_options, extensions_dir=build_cache / "naive")["status"] == "pass"

    verdict = evaluate(task, path.read_text(), cheat_eval)
    assert verdict.status is not Status.PASS, verdict
    assert set(_alternatives(strict_flag)) & set(verdict.flags), verdict.error

    if runtime_flag:
        lenient = evaluate(task, path.read_text(), dataclasses.replace(cheat_eval, strict=False))
        assert set(_alternatives(runtime_flag)) & set(lenient.flags), lenient.error


def _alternatives(flag: str | tuple[str, ...]) -> tuple[str, ...]:
    return flag if isinstance(flag, tuple) else (flag,)


def test_physics_flags_a_time_below_the_floor(task, data_dir, fast_eval):
    code = (data_dir / "candidates" / "cpp_correct.py").read_text()
    honest = evaluate(task, code, fast_eval, sol_ms=1e-9)
    assert honest.status is Status.PASS and not honest.flags
    impossible = evaluate(task, code, fast_eval, sol_ms=1e3)  # a floor of a second: nothing is that slow
    assert impossible.status is Status.CHEAT and impossible.flags == ("faster_than_light",)


def test_precision_downgrade_fails_the_large_magnitude_trial(task, tmp_path, fast_eval):
    """Rounding to bf16 inside the kernel passes a loose check on unit-scale data only."""
    code = (HERE / "torch_fallback.py").read_text().replace(
        "        return x * 2 + 1\n", "        return ext.scale_shift(x.to(torch.bfloat16).float())\n"
    )
    assert "bfloat16" in code
    verdict = evaluate(task, code, dataclasses.replace(fast_eval, strict=False))
    assert verdict.status is Status.INCORRECT
