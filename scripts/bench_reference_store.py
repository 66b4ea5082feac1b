"""Reference store benchmark (a script, not a test): the per-sample wall time of samples of one
task through a Verifier lane, with the reference store off and on, side by side. Each sample is
run to its verdict before the next starts, alternating between the two verifiers, so drift of the
host falls on both; the candidate is built before the first sample, so no sample pays for it.

    python scripts/bench_reference_store.py --device cpu --samples 8 [--out $OUT/reference-store]

Prints, per sample, the total and reference-phase seconds of each and what the store gave."""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
from pathlib import Path

from benchmark.evaluate.harness import EvalConfig, build
from benchmark.host import default_device
from benchmark.suite import BUILTIN_SUITE
from benchmark.task import load_task
from benchmark.verify.verifier import Verifier, VerifierConfig

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "benchmark" / "data"
HONEST = ROOT / "tests" / "honest"
CASES = {  # (task, honest candidate) per device
    "cpu": [
        (DATA / "suite" / "level1" / "scale_shift.py", HONEST / "cpu_cpp_scale_shift.py"),
        (DATA / "wide" / "row_sum_wide.py", DATA / "candidates" / "rowsum_double.py"),
    ],
    "cuda": [
        (BUILTIN_SUITE / "level1" / "gelu_tanh_fp32.py", HONEST / "triton_gelu_tanh.py"),
        (BUILTIN_SUITE / "level1" / "sum_rows_fp32.py", HONEST / "triton_rowsum.py"),
    ],
}


def measure(task_path: Path, candidate: Path, config: EvalConfig, samples: int) -> dict:
    task, code = load_task(task_path), candidate.read_text()
    built = build(code, config)
    assert built.ok, built.error
    rows = []
    with (
        Verifier(VerifierConfig(eval=config, build_workers=1, reference_store_bytes=0)) as off,
        Verifier(VerifierConfig(eval=config, build_workers=1)) as on,
    ):
        for k in range(samples):
            row = {"sample": k}
            for name, verifier in (("off", off), ("on", on)):
                v = verifier.submit(task, code, sample=k).result()
                row[name] = {
                    "verdict": v.status.value,
                    "total_s": v.phases.total_s,
                    "reference_s": v.phases.reference_s,
                    "store": v.env.get("reference_store", "-"),
                    "speedup": v.speedup,
                }
            rows.append(row)
            print(
                f"{task.task_id:<14} #{k}  off {row['off']['total_s']:6.2f} s (reference {row['off']['reference_s']:5.2f} s) "
                f"{row['off']['verdict']:<9} on {row['on']['total_s']:6.2f} s (reference {row['on']['reference_s']:5.2f} s) "
                f"{row['on']['verdict']:<9} {row['on']['store']}",
                flush=True,
            )
        stats = dataclasses.asdict(on.reference_store.stats)
    summary = {}
    for name in ("off", "on"):
        later = [r[name] for r in rows[1:]]  # the first sample of "on" computes what the rest reuse
        summary[name] = {
            "median_total_s": statistics.median(r["total_s"] for r in later),
            "median_reference_s": statistics.median(r["reference_s"] for r in later),
        }
    print(
        f"{task.task_id}: samples 1-{samples - 1}, median total {summary['off']['median_total_s']:.2f} s off, "
        f"{summary['on']['median_total_s']:.2f} s on; reference phase {summary['off']['median_reference_s']:.3f} s off, "
        f"{summary['on']['median_reference_s']:.3f} s on; store {stats}",
        flush=True,
    )
    return {
        "task": task.task_id,
        "candidate": candidate.name,
        "rows": rows,
        "summary": summary,
        "store": stats,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None)
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--out", type=Path, default=None, help="folder for reference_store.json")
    args = p.parse_args()
    device = args.device or default_device()
    config = EvalConfig(device=device, cache_dir=Path(tempfile.mkdtemp(prefix="solbench-bench-")))
    report = {"device": device, "cases": [measure(t, c, config, args.samples) for t, c in CASES[device]]}
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "reference_store.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
