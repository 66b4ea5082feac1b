"""Fault soak of the verifier (a script, not a test): honest kernels interleaved with illegal memory
accesses, kernels that corrupt the CUDA context (__trap), device out-of-memory, hung kernels and
host crashes. Every verdict must land and be the expected one, and no honest kernel after a fault
may be misjudged.

    python scripts/soak_verifier.py --out $OUT/soak [--n 200] [--lanes 6] [--timeout 60]

Correctness only (no timing), to fit a GPU lease; the faults are what is being soaked."""

from __future__ import annotations

import argparse
import collections
import json
import tempfile
import time
from pathlib import Path

from gpu_candidates import TASK, fault_set

from benchmark.evaluate.harness import EvalConfig
from benchmark.suite import BUILTIN_SUITE
from benchmark.task import load_task
from benchmark.verify.verifier import Request, Verifier, VerifierConfig


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("runs/soak"))
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--lanes", type=int, default=6)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per sample (hung kernels hit it)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    task = load_task(BUILTIN_SUITE / TASK, root=BUILTIN_SUITE)
    cands = fault_set(args.n)
    cfg = EvalConfig(
        device="cuda",
        measure=False,
        timeout_s=args.timeout,
        cache_dir=Path(tempfile.mkdtemp(prefix="solbench-soak-")),
    )
    t0 = time.monotonic()
    with Verifier(VerifierConfig(eval=cfg, lanes_per_device=args.lanes, build_workers=14)) as verifier:
        futures = [verifier.submit_request(Request(task, c.code, sample=i)) for i, c in enumerate(cands)]
        verdicts = []
        for f in futures:
            try:
                verdicts.append(f.result(timeout=args.timeout * 10))
            except Exception as e:  # noqa: BLE001 - a lost verdict is exactly what the soak looks for
                verdicts.append(e)
    wall = time.monotonic() - t0
    rows, tally = [], collections.Counter()
    for i, (c, v) in enumerate(zip(cands, verdicts, strict=True)):
        got = v.status.value if hasattr(v, "status") else f"lost: {v!r}"
        ok = got == c.expected
        tally[(c.name if c.name.startswith("fault") else "honest", ok)] += 1
        rows.append(
            {
                "i": i,
                "name": c.name,
                "expected": c.expected,
                "got": got,
                "ok": ok,
                "error": (getattr(v, "error", None) or "")[:200],
            }
        )
    wrong = [r for r in rows if not r["ok"]]
    after_fault = [
        r
        for r in rows
        if r["expected"] == "pass" and r["i"] > 0 and rows[r["i"] - 1]["name"].startswith("fault")
    ]
    report = {
        "n": len(rows),
        "wall_s": wall,
        "right": len(rows) - len(wrong),
        "wrong": wrong,
        "honest_after_fault": len(after_fault),
        "honest_after_fault_right": sum(r["ok"] for r in after_fault),
        "tally": {f"{k[0]}:{'right' if k[1] else 'WRONG'}": n for k, n in sorted(tally.items())},
    }
    (args.out / "soak.json").write_text(json.dumps(report, indent=2))
    print(
        f"{len(rows)} candidates in {wall:.0f} s: {report['right']} verdicts right, {len(wrong)} wrong; "
        f"honest right after a fault: {report['honest_after_fault_right']}/{report['honest_after_fault']}"
    )
    for k, n in report["tally"].items():
        print(f"  {k}: {n}")
    for r in wrong[:20]:
        print(f"  WRONG {r}")


if __name__ == "__main__":
    main()
