"""scripts/bench_verifier.py without a GPU: the seeded subset keeps the mix's shares, the comparison
finds a verdict that differs, and a pool arm cut by the budget reports what finished, leaves no
process behind and hands the later arms only what it finished. The whole CPU mode runs in
tests/scripts/test_bench_speed.py."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import bench_verifier as bv

SCRIPT = Path(bv.__file__)


def items(expected: list[str]) -> list[bv.Item]:
    return [bv.Item(f"c{i}", "python", e, None) for i, e in enumerate(expected)]


def test_subset_keeps_the_shares_and_is_seeded():
    mix = items(["pass"] * 30 + ["incorrect"] * 6 + ["compile_error"] * 3 + ["runtime_error"] * 3)
    sub = bv.proportional(mix, 14, seed=0)
    assert collections.Counter(it.expected for it in sub) == {
        "pass": 10,
        "incorrect": 2,
        "compile_error": 1,
        "runtime_error": 1,
    }
    assert [it.name for it in sub] == [it.name for it in bv.proportional(mix, 14, seed=0)]
    assert bv.proportional(mix, None, seed=0) == mix


def test_compare_counts_identity_on_status_and_flags():
    mix = items(["pass", "pass", "incorrect"])
    arms = {"pool": bv.Arm("pool", 3, "x"), "check": bv.Arm("check", 3, "y")}
    for name, status, flags in (
        ("c0", "pass", []),
        ("c1", "cheat", ["side_stream"]),
        ("c2", "incorrect", []),
    ):
        arms["pool"].rows[name] = {
            "status": status,
            "flags": flags,
            "latency_s": 1.0,
            "own_s": 1.0,
            "error": "",
        }
    arms["check"].rows["c0"] = dict(arms["pool"].rows["c0"])
    arms["check"].rows["c1"] = {**arms["pool"].rows["c1"], "flags": []}
    got = bv.compare(mix, arms)
    assert (got["identical"]["checked"], got["identical"]["same"]) == (2, 1)
    assert [d["name"] for d in got["identical"]["differences"]] == ["c1"]
    assert [u["name"] for u in got["expected"]["unexpected"]] == ["c1"]
    assert bv.percentile([3.0, 1.0, 2.0], 0.5) == 2.0 and bv.percentile([], 0.5) is None


def test_a_cut_pool_arm_leaves_no_process_and_later_arms_take_what_it_finished(tmp_path):
    """Two cold C++ builds (tens of seconds on a CPU) under a budget too short for them; every file and
    folder of the run (build cache, children's folders) lies under tmp_path, which is how its processes
    are found afterwards."""
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--device",
            "cpu",
            "--tiny",
            "--mix",
            "b",
            "--lanes",
            "1",
            "--build-workers",
            "2",
            "--budget-s",
            "12",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "out" / "mix-b.json").read_text())
    arms = report["arms"]
    assert arms["pool"]["cut"] and arms["pool"]["done"] == 0
    assert [(arms[a]["candidates"], arms[a]["done"]) for a in ("warm", "check")] == [(0, 0), (0, 0)]
    assert report["identical"] == {"candidates": 2, "checked": 0, "same": 0, "differences": []}
    time.sleep(1)  # SIGKILL is delivered, the processes reaped by init
    leftovers = []
    for pid in Path("/proc").glob("[0-9]*"):
        try:
            if (
                str(tmp_path) in os.readlink(pid / "cwd")
                or str(tmp_path).encode() in (pid / "cmdline").read_bytes()
            ):
                leftovers.append((pid.name, (pid / "cmdline").read_bytes()[:80]))
        except OSError:
            continue
    assert not leftovers, f"processes of the cut arm still running: {leftovers}"


def test_the_longest_holds_of_the_device_are_named_with_their_reasons():
    rows = {
        "short": {"phases": {"alone_s": 0.4}, "env": {}},
        "retried": {"phases": {"alone_s": 3.9}, "env": {"timing_tries": "3"}, "contended": False},
        "crowded": {"phases": {"alone_s": 1.5}, "env": {"gpu_neighbours": "7 python3"}, "contended": True},
        "lost": {"status": "harness_error"},  # no phases: never held the device
    }
    assert bv.longest_alone(rows, 2) == [
        "retried 3.90 s (timing_tries 3)",
        "crowded 1.50 s (contended; neighbours 7 python3)",
    ]


def test_an_arm_says_how_many_lanes_were_busy_and_what_a_sample_held():
    """Own time over the wall: 4 of 8 lanes busy on average says admission or arrivals bound the arm."""
    arm = bv.Arm("pool", 3, "8 lanes")
    arm.wall_s = 10.0
    for name, own, pair in (("a", 20.0, "14000"), ("b", 12.0, "15000"), ("c", 8.0, None)):
        env = {"device_pair_mib": pair} if pair else {}
        arm.rows[name] = {"latency_s": own, "own_s": own, "phases": {"alone_s": 0.5}, "env": env}
    s = arm.summary()
    assert s["busy_lanes"] == 4.0 and s["device_pair_mib_p50"] == 14500.0
    assert "lanes busy on average 4.0; a sample's two processes held 14500.0 MiB (p50)" in bv.line(arm)
