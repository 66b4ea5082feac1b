"""scripts/bench_harness.py's drift section without a GPU: one long interleaved timing of the CPU
case in the script's own process, its blocks and raw samples in harness.json. The case's candidate is
the pure-torch one, so no C++ build (about a minute cold) slows the test."""

from __future__ import annotations

import json
import sys
import tempfile

import bench_harness as bh
import pytest
from torch.utils import cpp_extension


def test_drift_reports_blocks_and_every_round(tmp_path, monkeypatch, capsys):
    spec = str(bh.DATA / "suite" / "level1" / "scale_shift.py")
    torch_candidate = bh.DATA / "candidates" / "torch_correct.py"
    # The second case is filtered out by --cases; were it run, its missing task would fail the test.
    monkeypatch.setitem(
        bh.REPEAT_CASES, "cpu", [(spec, torch_candidate), ("level1/absent.py", torch_candidate)]
    )
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the script's build cache
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))  # load_candidate sets it
    monkeypatch.setattr(cpp_extension, "load_inline", cpp_extension.load_inline)  # and routes it
    out = tmp_path / "out"
    bh.main(
        ["--device", "cpu", "--sections", "drift", "--cases", "scale_shift"]
        + ["--drift-rounds", "60", "--drift-block", "20", "--out", str(out)]
    )
    (entry,) = json.loads((out / "harness.json").read_text())["drift"]
    assert entry["task"] == "scale_shift" and entry["rounds"] == 60
    assert len(entry["reference_ms"]) == len(entry["candidate_ms"]) == len(entry["block_speedup"]) == 3
    assert all(r > 0 for r in entry["block_speedup"])
    assert entry["first_speedup"] == entry["block_speedup"][0]
    assert entry["last_speedup"] == entry["block_speedup"][-1]
    assert entry["block_spread"] >= 0 and entry["seconds"] > 0 and entry["speedup"] > 0
    samples = entry["samples"]
    assert [len(samples[k]) for k in ("reference_ms", "candidate_ms", "round_s")] == [60, 60, 60]
    assert samples["round_s"][0] == 0 and samples["round_s"] == sorted(samples["round_s"])
    assert entry["telemetry"] == [] and entry["telemetry_unavailable"] == "not a CUDA device"
    assert "scale_shift torch_correct.py drift: 60 rounds" in capsys.readouterr().out


def test_drift_blocks_are_whole_blocks_of_rounds():
    ref = [2.0] * 20 + [4.0] * 20 + [9.0] * 5  # the last 5 rounds make no whole block
    got = bh.drift_blocks([ref, [1.0] * 45], 20)
    assert got["reference_ms"] == [2.0, 4.0] and got["candidate_ms"] == [1.0, 1.0]
    assert (got["first_speedup"], got["last_speedup"]) == (2.0, 4.0)
    assert got["block_spread"] == (4.0 - 2.0) / 3.0
    assert bh.drift_blocks([[1.0] * 5, [1.0] * 5], 20)["first_speedup"] is None


def test_block_telemetry_averages_the_readings_inside_each_block():
    starts = [10.0 + 0.1 * i for i in range(5)]  # 5 rounds: two whole blocks of 2
    readings = [
        {"t": 10.05, "sm_mhz": 1980, "power_w": 400.0, "temp_c": 40, "reasons": 0},
        {"t": 10.15, "sm_mhz": 1780, "power_w": 600.0, "temp_c": 42, "reasons": 0x4},
        {"t": 10.25, "sm_mhz": 1600, "power_w": None, "temp_c": 44, "reasons": 0x4 | 0x40},
        {"t": 10.45, "sm_mhz": 1, "power_w": 1.0, "temp_c": 1, "reasons": 0x80},  # after the last whole block
    ]
    first, second = bh.block_telemetry(readings, starts, 2, end=10.5)
    assert first["t_s"] == 0 and first["readings"] == 2
    assert first["sm_mhz"] == 1880 and first["power_w"] == 500.0 and first["reasons"] == ["sw_power_cap"]
    assert second["readings"] == 1 and second["power_w"] is None
    assert second["reasons"] == ["sw_power_cap", "hw_thermal"]


def test_clock_sampler_reads_nvml_until_stopped(monkeypatch):
    """A stand-in for pynvml: the sampler reads every value it asks for, and a reading the driver
    refuses stays None instead of stopping the sampler."""
    import time
    import types

    from benchmark.evaluate import contention

    class Refused(Exception):
        pass

    def refuse(handle):
        raise Refused("not supported")

    fake = types.SimpleNamespace(
        NVML_CLOCK_SM=0,
        NVML_CLOCK_MEM=1,
        NVML_TEMPERATURE_GPU=0,
        NVML_SUCCESS=0,
        nvmlDeviceGetClockInfo=lambda h, kind: (1755, 3201)[kind],
        nvmlDeviceGetPowerUsage=lambda h: 612_000,
        nvmlDeviceGetTemperature=lambda h, kind: 51,
        nvmlDeviceGetCurrentClocksEventReasons=refuse,
    )
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    monkeypatch.setattr(contention, "nvml_handle", lambda device: "handle")
    with bh.ClockSampler("cuda:0", period_s=0.001) as clocks:
        time.sleep(0.05)
    n = len(clocks.samples)
    assert n > 0 and clocks.why == ""
    assert clocks.samples[0] | {"t": 0} == {
        "t": 0,
        "sm_mhz": 1755,
        "mem_mhz": 3201,
        "power_w": 612.0,
        "temp_c": 51,
        "reasons": None,
    }
    time.sleep(0.01)
    assert len(clocks.samples) == n  # stopped on leaving the block


def test_clock_sampler_without_nvml_reads_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails
    with bh.ClockSampler("cuda:0") as clocks:
        pass
    assert clocks.samples == [] and clocks.why.startswith("NVML unavailable")


def test_repeat_cases_follow_the_order_of_the_keys():
    names = [spec for spec, _ in bh.repeat_cases("cuda", ["gemm", "gelu", "gemm"])]
    assert names == ["level1/gemm_square_bf16.py", "level1/gelu_tanh_fp32.py"]
    assert len(bh.repeat_cases("cuda", None)) == len(bh.REPEAT_CASES["cuda"])


def test_trace_estimates_read_even_odd_rounds_and_the_fast_calls(tmp_path):
    # the candidate's calls split between two speeds 8% apart, the slow one on every odd round
    ref = [1.10] * 40
    cand = [1.00 if i % 2 == 0 else 1.08 for i in range(40)]
    (tmp_path / "1-a.json").write_text(json.dumps({"samples_ms": [ref, cand]}))
    (tmp_path / "2-b.json").write_text(json.dumps({"samples_ms": [ref, [1.0] * 40]}))
    got = bh.trace_estimates(tmp_path)
    first, second = got["runs"]
    assert first["even"] == pytest.approx(1.10) and first["odd"] == pytest.approx(1.10 / 1.08)
    for name in ("20th percentiles", "fast-speed medians"):  # the fast calls alone, in both runs
        assert first[name] == pytest.approx(1.10) and second[name] == pytest.approx(1.10)
        assert got["spreads"][name] == pytest.approx(0.0)
    assert "paired median" not in got["spreads"]  # that one is the verdict's speedup
    assert bh.trace_estimates(tmp_path / "absent")["runs"] == []


def test_spin_times_the_reference_against_itself_under_each_spin(tmp_path, monkeypatch, capsys):
    spec = str(bh.DATA / "suite" / "level1" / "scale_shift.py")
    monkeypatch.setattr(bh, "SPIN_TASKS", (spec,))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the script's build cache
    out = tmp_path / "out"
    bh.main(
        ["--device", "cpu", "--sections", "spin", "--repeats", "1", "--spins", "0.2", "5", "--out", str(out)]
    )
    report = json.loads((out / "harness.json").read_text())["spin"]
    assert report["tasks"] == [spec]
    for arm in ("0.2", "5.0"):
        (row,) = report["arms"][arm]
        assert row["task"] == "scale_shift" and row["verdict"] == "pass" and row["speedup"] > 0
        assert row["tries"] >= 1 and row["rounds"] >= 10
    printed = capsys.readouterr().out
    assert "spin 0.2 ms, repeat 0:" in printed and "spin 5.0 ms, repeat 0:" in printed
    assert "time alone, spin 5.0 over 0.2 ms" in printed
    assert f"  scale_shift: {report['arms']['0.2'][0]['speedup']:.3f}, " in printed  # every run, per task
