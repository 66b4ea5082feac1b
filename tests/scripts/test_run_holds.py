"""scripts/run_holds.py: a run's exclusive holds summed and split by level from each verdict's
`timing_hold_s`, the retried samples' share, and the reference-against-itself noise by call time."""

from __future__ import annotations

import run_holds

from benchmark.verdict import Phases, Status, TimingStats, Verdict


def verdict(task: str, level: int, hold: str, alone_s: float, ms: float, speedup: float, tries: int = 1):
    env = {"timing_hold_s": hold, **({"timing_tries": str(tries)} if tries > 1 else {})}
    return Verdict(
        task_id=task,
        status=Status.PASS,
        level=level,
        model="reference",
        env=env,
        phases=Phases(alone_s=alone_s),
        speedup=speedup,
        speedup_spread=0.01,
        reference_alone_time=TimingStats(20, ms, ms, 0.0, ms, ms, 0.001),
    )


ONE = "waited 0.100, held 0.700: warm-up 0.200, rounds 0.300, alone 0.150, other 0.050"
RETRY = "waited 0.200, held 2.000: warm-up 1.000, rounds 0.900, alone 0.100, other 0.000"
AGAIN = "waited 0.300, held 1.500: warm-up 1.000, rounds 0.500, alone 0.000, other 0.000"


def test_holds_are_summed_by_level_and_the_retries_counted(tmp_path, capsys):
    rows = [
        verdict("level1/a", 1, ONE, 0.7, 0.2, 1.0),
        verdict("level1/b", 1, ONE, 0.7, 0.5, 1.05),  # beyond its spread: faster
        verdict("level3/c", 3, f"{RETRY}; {AGAIN}", 3.5, 4.0, 0.9, tries=2),  # slower
    ]
    (tmp_path / "results.jsonl").write_text("".join(v.to_json() + "\n" for v in rows))
    assert run_holds.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    by_scope = {line.split()[0]: line.split() for line in out}
    # scope samples alone waited held warm-up rounds alone other retried their-s
    assert by_scope["level1"][1:] == ["2", "1.4", "0.2", "1.4", "0.4", "0.6", "0.3", "0.1", "0", "0.0"]
    assert by_scope["level3"][1:] == ["1", "3.5", "0.5", "3.5", "2.0", "1.4", "0.1", "0.0", "1", "3.5"]
    assert by_scope["all"][1:3] == ["3", "4.9"]
    noise = {line.split(" ms")[0].strip(): line.split()[-2:] for line in out if " ms " in line}
    assert noise["0.3-1"] == ["1", "0"] and noise["1-5"] == ["0", "1"] and noise["0-0.3"] == ["0", "0"]
