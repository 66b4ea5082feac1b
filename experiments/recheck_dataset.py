"""Re-check a seeded sample of a built dataset's kept solutions with `python -m benchmark.check`, each
in its own process, as a reader of the published data would: the builder's verdicts are not trusted.

    python -m experiments.recheck_dataset --dataset data/solbench-kernels --n 16 --out $OUT/recheck
    python -m experiments.recheck_dataset --dataset DIR --device cpu --no-timing --n 2   # CPU self-check

One row per task (the `sft` configuration), tasks drawn with --seed. Checks run --jobs at a time:
on a GPU each takes the host's device lock for its timing, so concurrent checks never time at once.
Prints one line per row and the count that pass; writes OUT/recheck.jsonl (one verdict per row,
appended as each finishes) and OUT/recheck.json (the summary). Exit status 1 when any row fails."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

import datasets

from benchmark.verdict import Status, Verdict
from datasets_builder.schema import DEFAULT_CONFIG, SPLIT

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Recheck:
    task_id: str
    level: int
    status: str  # the verdict's status, or "error" when benchmark.check gave none
    passed: bool
    speedup: float | None
    flags: list[str]
    error: str | None
    seconds: float


def sample_rows(dataset: Path, n: int, seed: int) -> list[dict]:
    """One kept row per task, for `n` tasks drawn with `seed` (every task when n covers them)."""
    rows = datasets.load_dataset(str(dataset), DEFAULT_CONFIG, split=SPLIT)
    first: dict[str, dict] = {}
    for r in rows:
        if r["solution"] and r["task_id"] not in first:
            first[r["task_id"]] = r
    ids = sorted(first)
    return [first[i] for i in random.Random(seed).sample(ids, min(n, len(ids)))]


def check_row(row: dict, device: str, timing: bool, timeout_s: float) -> Recheck:
    """benchmark.check on the row's task program and solution, in a fresh Python process."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="recheck-") as tmp:
        task, candidate = Path(tmp) / "task.py", Path(tmp) / "candidate.py"
        task.write_text(row["task_code"])
        candidate.write_text(row["solution"])
        cmd = [sys.executable, "-m", "benchmark.check", "--task", str(task), "--candidate", str(candidate)]
        cmd += ["--device", device, "--json"] + ([] if timing else ["--no-timing"])
        try:
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s)
            last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            record = json.loads(last) if last.startswith("{") else {}
            verdict = Verdict.from_dict(record) if record.get("verdict") else None  # null: check's error line
        except subprocess.TimeoutExpired:
            p, verdict = None, None
    seconds = time.monotonic() - t0
    if verdict is None:
        why = "timed out" if p is None else f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-300:]}"
        return Recheck(row["task_id"], row["level"], "error", False, None, [], why, seconds)
    return Recheck(
        task_id=row["task_id"],
        level=row["level"],
        status=verdict.status.value,
        passed=verdict.status is Status.PASS,
        speedup=verdict.speedup,
        flags=sorted(verdict.flags),
        error=(verdict.error or "")[-300:] or None,
        seconds=seconds,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--dataset", type=Path, default=ROOT / "data" / "solbench-kernels", help="built dataset folder"
    )
    p.add_argument("--n", type=int, default=16, help="tasks to re-check (one kept row each)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    p.add_argument("--no-timing", action="store_true", help="correctness only")
    p.add_argument("--jobs", type=int, default=4, help="benchmark.check processes at a time")
    p.add_argument("--timeout-s", type=float, default=300.0, help="limit per benchmark.check process")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = sample_rows(args.dataset, args.n, args.seed)
    print(
        f"re-checking {len(rows)} tasks of {args.dataset} with benchmark.check on {args.device}", flush=True
    )
    results: list[Recheck] = []
    t0 = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool, (args.out / "recheck.jsonl").open("w") as journal:
        futures = [pool.submit(check_row, r, args.device, not args.no_timing, args.timeout_s) for r in rows]
        for f in as_completed(futures):
            r = f.result()
            results.append(r)
            journal.write(json.dumps(asdict(r)) + "\n")
            journal.flush()
            speed = f"{r.speedup:.2f}x" if r.speedup else "-"
            print(
                f"  L{r.level} {r.task_id:40s} {r.status:18s} {speed:>7s} {','.join(r.flags)} ({r.seconds:.0f} s)"
            )
    passed = sum(r.passed for r in results)
    summary = {
        "dataset": str(args.dataset),
        "device": args.device,
        "seed": args.seed,
        "checked": len(results),
        "passed": passed,
        "wall_s": round(time.monotonic() - t0, 1),
        "failures": [asdict(r) for r in results if not r.passed],
    }
    (args.out / "recheck.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"recheck: {passed}/{len(results)} kept solutions pass benchmark.check ({summary['wall_s']} s)")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
