"""scripts/bench_harness.py's drift section without a GPU: one long interleaved timing of the CPU
case in the script's own process, its blocks and raw samples in harness.json. The case's candidate is
the pure-torch one, so no C++ build (about a minute cold) slows the test."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from torch.utils import cpp_extension

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import bench_harness as bh  # noqa: E402


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
    assert [len(s) for s in entry["samples"].values()] == [60, 60]
    assert "scale_shift torch_correct.py drift: 60 rounds" in capsys.readouterr().out


def test_drift_blocks_are_whole_blocks_of_rounds():
    ref = [2.0] * 20 + [4.0] * 20 + [9.0] * 5  # the last 5 rounds make no whole block
    got = bh.drift_blocks([ref, [1.0] * 45], 20)
    assert got["reference_ms"] == [2.0, 4.0] and got["candidate_ms"] == [1.0, 1.0]
    assert (got["first_speedup"], got["last_speedup"]) == (2.0, 4.0)
    assert got["block_spread"] == (4.0 - 2.0) / 3.0
    assert bh.drift_blocks([[1.0] * 5, [1.0] * 5], 20)["first_speedup"] is None
