"""Verifier throughput (a script, not a test): the same distinct candidates through (a) the serial
one-sample-at-a-time path with the same checks and a cold build cache, and (b) the pools (build
workers ahead of execution, several lanes per GPU sharing it through the reader-writer lock).

    python scripts/bench_verifier.py --out $OUT/throughput [--serial-subset 20] [--lanes 6]

The serial baseline runs on a random subset (seeded) to fit a GPU lease; its rate is measured on
that subset and its verdicts compared with the pools' on the same candidates. Reports candidates
per GPU-hour, p50/p95 latency per verdict, verdict agreement, and whether each verdict is the
expected one. --device cpu --tiny checks the script itself on a CPU machine."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gpu_candidates import TASK, throughput_set  # noqa: E402

from benchmark.harness import EvalConfig  # noqa: E402
from benchmark.suite import BUILTIN_SUITE  # noqa: E402
from benchmark.task import load_task  # noqa: E402
from benchmark.timing import TimingConfig  # noqa: E402
from benchmark.verifier import Request, Verifier, VerifierConfig, serial_verify  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def run_pool(requests, eval_cfg, lanes: int, workers: int):
    latencies: dict[int, float] = {}
    t0 = time.monotonic()
    with Verifier(VerifierConfig(eval=eval_cfg, lanes_per_device=lanes, build_workers=workers)) as verifier:
        futures = []
        for i, r in enumerate(requests):
            f = verifier.submit_request(r)
            f.add_done_callback(lambda _f, i=i: latencies.__setitem__(i, time.monotonic() - t0))
            futures.append(f)
        verdicts = [f.result() for f in futures]
        stats = dict(verifier.stats)
    return verdicts, time.monotonic() - t0, [latencies[i] for i in range(len(requests))], stats


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("runs/bench-verifier"))
    p.add_argument("--device", default="cuda")
    p.add_argument("--lanes", type=int, default=6, help="execution lanes per GPU")
    p.add_argument("--build-workers", type=int, default=14)
    p.add_argument("--serial-subset", type=int, default=20, help="candidates the serial baseline runs")
    p.add_argument("--tiny", action="store_true", help="CPU self-check: plain-PyTorch candidates on a tiny task")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    timing = TimingConfig(max_seconds=0.5)
    if args.tiny:
        root = Path(__file__).resolve().parent.parent / "tests" / "benchmark" / "data"
        task = load_task(root / "suite" / "level1" / "scale_shift.py")
        codes = [((root / "candidates" / f"{n}.py").read_text(), e) for n, e in
                 [("torch_correct", "pass"), ("wrong_shape", "incorrect"), ("syntax_error", "compile_error"),
                  ("raises", "runtime_error")]]
        cands = [(f"tiny{i}", code + f"\n# variant {i}\n", e) for i, (code, e) in enumerate(codes * 2)]
        strict = False
    else:
        task = load_task(BUILTIN_SUITE / TASK, root=BUILTIN_SUITE)
        cands = [(c.name, c.code, c.expected) for c in throughput_set()]
        strict = True
    requests = [Request(task, code, sample=i) for i, (_, code, _) in enumerate(cands)]
    pool_cfg = EvalConfig(device=args.device, strict=strict, timing=timing,
                          cache_dir=Path(tempfile.mkdtemp(prefix="solbench-pool-")))
    pooled, pool_wall, pool_lat, stats = run_pool(requests, pool_cfg, args.lanes, args.build_workers)

    subset = sorted(random.Random(0).sample(range(len(requests)), min(args.serial_subset, len(requests))))
    serial_cfg = EvalConfig(device=args.device, strict=strict, timing=timing,
                            cache_dir=Path(tempfile.mkdtemp(prefix="solbench-serial-")))
    serial_lat, serial = [], []
    t0 = time.monotonic()
    for i in subset:
        t = time.monotonic()
        serial += serial_verify([requests[i]], serial_cfg)
        serial_lat.append(time.monotonic() - t)
    serial_wall = time.monotonic() - t0

    agree = [pooled[i].status == s.status for i, s in zip(subset, serial, strict=True)]
    expected_ok = [v.status.value == cands[i][2] for i, v in enumerate(pooled)]
    pool_rate = len(requests) / pool_wall * 3600
    serial_rate = len(subset) / serial_wall * 3600
    report = {
        "device": args.device, "candidates": len(requests), "lanes_per_gpu": args.lanes,
        "build_workers": args.build_workers, "pool": {"wall_s": pool_wall, "per_gpu_hour": pool_rate,
        "p50_s": statistics.median(pool_lat), "p95_s": percentile(pool_lat, 0.95), "stats": stats},
        "serial": {"candidates": len(subset), "wall_s": serial_wall, "per_gpu_hour": serial_rate,
                   "p50_s": statistics.median(serial_lat), "p95_s": percentile(serial_lat, 0.95)},
        "speedup": pool_rate / serial_rate, "agreement": f"{sum(agree)}/{len(agree)}",
        "expected_verdicts": f"{sum(expected_ok)}/{len(expected_ok)}",
        "mismatches": [{"name": cands[i][0], "expected": cands[i][2], "got": v.status.value, "error": (v.error or "")[:300]}
                       for i, v in enumerate(pooled) if not expected_ok[i]],
        "disagreements": [{"name": cands[i][0], "pool": pooled[i].status.value, "serial": s.status.value}
                          for i, s in zip(subset, serial, strict=True) if pooled[i].status != s.status],
    }
    (args.out / "throughput.json").write_text(json.dumps(report, indent=2))
    print(f"pool:   {len(requests)} candidates in {pool_wall:.1f} s = {pool_rate:.0f}/GPU-hour, "
          f"latency p50 {report['pool']['p50_s']:.1f} s p95 {report['pool']['p95_s']:.1f} s")
    print(f"serial: {len(subset)} candidates in {serial_wall:.1f} s = {serial_rate:.0f}/GPU-hour, "
          f"latency p50 {report['serial']['p50_s']:.1f} s p95 {report['serial']['p95_s']:.1f} s")
    print(f"throughput ratio {report['speedup']:.1f}x; verdict agreement {report['agreement']}; "
          f"expected verdicts {report['expected_verdicts']}")
    for m in report["mismatches"]:
        print(f"  unexpected: {m}")


if __name__ == "__main__":
    main()
