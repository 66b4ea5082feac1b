"""scripts/bench_compare_memory.py: both arms measured in fresh processes, the ratio printed."""

from __future__ import annotations

import bench_compare_memory as bcm


def test_both_arms_are_measured_and_compared(capsys):
    bcm.main(["--elements", str(2**21), "--repeats", "1"])
    out = capsys.readouterr().out
    assert "compare_outputs on 2097152 fp32 elements" in out
    rows = {
        line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("chunked ", "whole "))
    }
    assert set(rows) == {"chunked", "whole"} and int(rows["whole"][1]) > 2**21
    assert all(float(r[-1]) > 0 for r in rows.values())  # seconds per call
    assert "chunked/whole: peak extra memory" in out
