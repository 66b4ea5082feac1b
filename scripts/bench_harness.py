"""Harness benchmark (a script, not a test): per-sample wall time split into compile, correctness
and timing, cold and warm build cache; the spread of one candidate's speedup over repeated runs;
and the cost of the strict anti-cheat checks (strict vs --no-strict on the same candidates).

    python scripts/bench_harness.py --device cuda --repeats 5 --out $OUT/harness

Writes harness.json and prints a table. On a GPU machine it also checks that a kernel with an
illegal memory access costs only its own sample (the next sample still passes)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
import time
from pathlib import Path

from benchmark.harness import EvalConfig, default_device, evaluate
from benchmark.suite import BUILTIN_SUITE
from benchmark.task import load_task

ROOT = Path(__file__).resolve().parent.parent
HONEST = ROOT / "tests" / "honest"
DATA = ROOT / "tests" / "benchmark" / "data"

CASES = {
    "cuda": [
        ("level1/gelu_tanh_fp32.py", HONEST / "cuda_gelu_tanh.py"),
        ("level1/gelu_tanh_fp32.py", HONEST / "triton_gelu_tanh.py"),
        ("level1/gelu_tanh_fp32.py", HONEST / "raw_cuda_gelu_tanh.py"),
        ("level1/softmax_rows_bf16.py", HONEST / "triton_softmax_rows.py"),
    ],
    "cpu": [(str(DATA / "suite" / "level1" / "scale_shift.py"), HONEST / "cpu_cpp_scale_shift.py")],
}


def task_for(spec: str):
    path = Path(spec) if Path(spec).is_absolute() else BUILTIN_SUITE / spec
    return load_task(path, root=BUILTIN_SUITE if path.is_relative_to(BUILTIN_SUITE) else None)


def row(v) -> dict:
    return {
        "task": v.task_id, "verdict": v.status.value, "flags": list(v.flags), "speedup": v.speedup,
        "compile_s": v.phases.compile_s, "correctness_s": v.phases.correctness_s, "timing_s": v.phases.timing_s,
        "total_s": v.phases.total_s, "candidate_ms": v.candidate_time.median_ms if v.candidate_time else None,
        "reference_ms": v.reference_time.median_ms if v.reference_time else None, "error": (v.error or "")[:300],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None)
    p.add_argument("--repeats", type=int, default=5, help="runs of the same candidate for the speedup spread")
    p.add_argument("--out", type=Path, default=Path("runs/bench-harness"))
    args = p.parse_args()
    device = args.device or default_device()
    args.out.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="solbench-bench-"))
    base = EvalConfig(device=device, cache_dir=cache)
    report: dict = {"device": device, "cold": [], "warm": [], "repeats": {}, "strict_overhead": []}

    for n, (spec, cand) in enumerate(CASES[device]):
        task, code = task_for(spec), cand.read_text()
        cold = evaluate(task, code, base)
        report["cold"].append({"candidate": cand.name, **row(cold)})
        print(f"cold  {cand.name}: {cold.summary()} compile {cold.phases.compile_s:.1f} s", flush=True)
        t0 = time.monotonic()
        strict = evaluate(task, code, base)
        t_strict = time.monotonic() - t0
        report["warm"].append({"candidate": cand.name, **row(strict)})
        print(f"warm  {cand.name}: {strict.summary()} total {t_strict:.1f} s", flush=True)
        if n < 2:  # the cost of the strict checks, on one CUDA C++ and one Triton candidate
            t0 = time.monotonic()
            lenient = evaluate(task, code, dataclasses.replace(base, strict=False))
            report["strict_overhead"].append(
                {"candidate": cand.name, "strict_s": t_strict, "no_strict_s": time.monotonic() - t0,
                 "strict_verdict": strict.status.value, "no_strict_verdict": lenient.status.value}
            )

    spec, cand = CASES[device][0]
    speedups = []
    for _ in range(args.repeats):
        speedups.append(evaluate(task_for(spec), cand.read_text(), base).speedup)
        print(f"repeat {cand.name}: speedup {speedups[-1]}", flush=True)
    med = statistics.median(speedups)
    report["repeats"] = {"candidate": cand.name, "speedups": speedups, "median": med,
                         "spread": (max(speedups) - min(speedups)) / med}

    if device == "cuda":
        task = task_for("level1/gelu_tanh_fp32.py")
        print("fault isolation: an illegal memory access, then an honest kernel", flush=True)
        bad = evaluate(task, (DATA / "candidates" / "cuda_illegal_access.py").read_text(), base)
        after = evaluate(task, (HONEST / "cuda_gelu_tanh.py").read_text(), base)
        report["fault_isolation"] = {"faulty": row(bad), "next_sample": row(after)}

    (args.out / "harness.json").write_text(json.dumps(report, indent=2))
    print(f"{'phase':<6} {'candidate':<28} {'verdict':<8} {'compile_s':>9} {'correct_s':>9} {'timing_s':>8} {'total_s':>8} {'speedup':>8}")
    for phase in ("cold", "warm"):
        for r in report[phase]:
            sp = f"{r['speedup']:.3f}" if r["speedup"] else "-"
            print(f"{phase:<6} {r['candidate']:<28} {r['verdict']:<8} {r['compile_s']:>9.2f} {r['correctness_s']:>9.2f} "
                  f"{r['timing_s']:>8.2f} {r['total_s']:>8.2f} {sp:>8}")
    rep = report["repeats"]
    print(f"speedup over {args.repeats} runs of {rep['candidate']}: " + ", ".join(f"{s:.4f}" for s in rep["speedups"])
          + f"  spread {rep['spread']:.2%}")
    for r in report["strict_overhead"]:
        print(f"strict {r['strict_s']:.2f} s vs no-strict {r['no_strict_s']:.2f} s per sample ({r['candidate']}, "
              f"{r['strict_verdict']}/{r['no_strict_verdict']})")
    if "fault_isolation" in report:
        f = report["fault_isolation"]
        print(f"illegal access: {f['faulty']['verdict']} ({f['faulty']['error'][:80]!r}); next sample: {f['next_sample']['verdict']}")


if __name__ == "__main__":
    main()
