"""Verifier throughput on mixes of candidates (a script, not a test): the pools (build workers ahead of
execution, several lanes per GPU sharing it through the reader-writer lock) against the path
`python -m benchmark.check` takes (`harness.evaluate`: one candidate per call, each in fresh
children), on the same distinct candidates, so the speed is measured and every verdict is compared.

    python scripts/bench_verifier.py --mix a --mix b --mix c --budget-s 120 --out $OUT/throughput

Mixes (scripts/gpu_candidates.py; a fresh --variant, written into every kernel, makes each build cold):
  all  the 54 candidates of the throughput set, every style, honest, wrong and failing
  a    Triton and raw CUDA (pycuda) only: no extension build
  b    cold load_inline only: distinct sources and a fresh build cache, so every candidate compiles
  c    KernelBench-like: mostly load_inline CUDA C++ over three tasks, some Triton, honest, wrong, failing
Arms, in order: `pool` (a fresh build cache); `warm` (mix b: the same candidates again on the now warm
cache, the cached-build figure); `check` (benchmark.check's call, --check-concurrency at a time, on
the pool's cache: builds are keyed by content, so a warm cache changes a verdict's time, not the
verdict). Each arm reports verified candidates per GPU-hour (wall clock, one GPU), p50/p95 latency
from submission to verdict and of each verdict's own build and run time; each mix, whether every
verdict (status and flags) is the check path's and the expected one. Results are written to
OUT/mix-NAME.json after each arm.

--budget-s bounds each mix. The check arm stops taking candidates when its share runs out (a seeded
order, so the ones checked are a random subset). A pool arm that runs out is cut: what finished is
reported, its pending work is cancelled and every process under it killed (compilers too), and the arms
after it take only the candidates it finished (nothing else can be compared, and a warm arm would
otherwise build cold). --device cpu --tiny checks the script on a CPU machine
(plain-PyTorch candidates and, in mix b, C++ extensions on a tiny task: 20 s to 2 minutes a mix)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import queue
import random
import secrets
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

import gpu_candidates as gc

from benchmark.evaluate import sandbox
from benchmark.evaluate.boundary import MEMORY_ENV
from benchmark.evaluate.harness import EvalConfig, TaskError, evaluate, needs_build
from benchmark.evaluate.timing import TimingConfig
from benchmark.stats import quantile
from benchmark.suite import BUILTIN_SUITE
from benchmark.task import load_task
from benchmark.verdict import Verdict
from benchmark.verify.verifier import DeviceShare, Request, Verifier, VerifierConfig

DATA = Path(__file__).resolve().parent.parent / "tests" / "benchmark" / "data"
MIXES = {
    "all": "the throughput set: every style, honest, wrong and failing",
    "a": "Triton and raw CUDA",
    "b": "cold load_inline only (distinct sources, fresh build cache)",
    "c": "KernelBench-like: mostly load_inline CUDA C++, some Triton, honest, wrong and failing",
}
# The arms of each mix and their shares of its budget (of what is left when each starts): mix b's pool
# arm needs two rounds of cold builds (its rate is pessimistic when cut inside the second: 439/h for
# 15 of 28 in 123 s on the H200), its warm arm the cached-build figure; check is the cheapest there.
WEIGHTS = {"b": {"pool": 0.7, "warm": 0.18, "check": 0.12}}
DEFAULT_WEIGHTS = {"pool": 0.65, "check": 0.35}


@dataclass(frozen=True)
class Item:
    """One candidate of a mix, with the verdict it must get."""

    name: str
    style: str
    expected: str
    request: Request


@dataclass
class Arm:
    """What one way of verifying did with a mix: a row per finished candidate."""

    name: str
    candidates: int
    concurrency: str
    wall_s: float = 0.0
    cut: bool = False
    rows: dict[str, dict] = field(default_factory=dict)  # name -> status, flags, latency_s, own_s, error
    startup: dict[str, float] = field(default_factory=dict)  # one-time costs paid before wall_s began

    def summary(self) -> dict:
        lat = [r["latency_s"] for r in self.rows.values()]
        own = [r["own_s"] for r in self.rows.values()]
        measured = [r for r in self.rows.values() if "phases" in r]
        done = len(self.rows)
        return {
            "arm": self.name,
            "candidates": self.candidates,
            "done": done,
            "wall_s": round(self.wall_s, 2),
            "cut": self.cut,
            "concurrency": self.concurrency,
            "per_gpu_hour": done / self.wall_s * 3600 if self.wall_s > 0 and done else 0.0,
            "startup_s": {k: round(v, 2) for k, v in self.startup.items()},
            "per_gpu_hour_with_startup": (
                done / (self.wall_s + max(self.startup.values(), default=0.0)) * 3600
                if self.wall_s > 0 and done
                else 0.0
            ),
            "latency_p50_s": percentile(lat, 0.5),
            "latency_p95_s": percentile(lat, 0.95),
            "own_p50_s": percentile(own, 0.5),
            "own_p95_s": percentile(own, 0.95),
            "phases_p50_s": {  # where a verdict's own time went
                k: percentile([r["phases"][k] for r in measured], 0.5)
                for k in (measured[0]["phases"] if measured else ())
            },
            # The device held alone (timing) bounds lanes sharing it: at most this many per GPU-hour.
            "alone_bound_per_hour": alone_bound([r["phases"].get("alone_s", 0.0) for r in measured]),
            "longest_alone": longest_alone(self.rows),
            # Lanes busy on average (own time over the wall): below the lanes, admission or arrivals bound it.
            "busy_lanes": round(sum(own) / self.wall_s, 2) if self.wall_s > 0 else None,
            "device_pair_mib_p50": percentile(
                [float(r["env"][MEMORY_ENV]) for r in measured if MEMORY_ENV in r.get("env", {})],
                0.5,
            ),
        }


def alone_bound(alone_s: list[float]) -> float | None:
    """Samples per GPU-hour if the device did nothing but the samples' exclusive (timing) sections."""
    total = sum(alone_s)
    return len(alone_s) / total * 3600 if total > 0 else None


def longest_alone(rows: dict[str, dict], n: int = 5) -> list[str]:
    """The n samples that held the device alone longest, each with what its verdict says of why."""
    held = sorted(
        ((r["phases"].get("alone_s", 0.0), name, r) for name, r in rows.items() if "phases" in r),
        reverse=True,
    )
    out = []
    for alone_s, name, r in held[:n]:
        env = r.get("env", {})
        why = [f"{k} {env[k]}" for k in ("timing_tries", "timing_warmup", "profile_kernels_ms") if k in env]
        if r.get("contended"):
            why.append("contended")
        if "gpu_neighbours" in env:
            why.append(f"neighbours {env['gpu_neighbours']}")
        if "neighbour_wait" in env:
            why.append(f"waited {env['neighbour_wait']}")
        out.append(f"{name} {alone_s:.2f} s ({'; '.join(why) or 'no timing env'})")
    return out


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return quantile(values, q)


# The verdict's env entries that explain a sample's time holding the device (its timing tries and
# warm-up, the neighbours seen, the profiles taken), kept in each row.
EXPLAINING_ENV = (
    "timing_tries",
    "timing_warmup",
    "gpu_neighbours",
    "neighbour_wait",
    "contention_check",
    "profile_kernels_ms",
    "reference_deferred_sets",
    MEMORY_ENV,
    "device_judge_mib",
    "device_judge_peak_mib",
    "device_judge_live_peak_mib",
    "device_kept_mib",
    "device_arena_mib",
)


def row(verdict: Verdict | None, latency_s: float, error: BaseException | None = None) -> dict:
    if verdict is None:  # no verdict: the task itself failed (TaskError), or the harness raised
        status = "task_error" if isinstance(error, TaskError) else "harness_error"
        return {
            "status": status,
            "flags": [],
            "latency_s": latency_s,
            "own_s": latency_s,
            "error": repr(error)[:300],
        }
    first = (verdict.error or "").strip().splitlines()
    return {
        "status": verdict.status.value,
        "flags": list(verdict.flags),
        "latency_s": latency_s,
        "own_s": verdict.phases.total_s,
        "error": first[0][:300] if first else "",
        "phases": {k: round(v, 3) for k, v in dataclasses.asdict(verdict.phases).items()},
        "contended": verdict.contended,
        "env": {k: v for k, v in verdict.env.items() if k in EXPLAINING_ENV},
    }


def proportional(items: list[Item], n: int | None, seed: int) -> list[Item]:
    """A seeded subset of n with about the mix's share of each style and expected verdict (all of them
    when n is None)."""
    if n is None or n >= len(items):
        return items
    rng = random.Random(seed)
    groups: dict[tuple[str, str], list[Item]] = {}
    for it in items:
        groups.setdefault((it.style, it.expected), []).append(it)
    keyed = []
    for name, group in sorted(groups.items()):
        rng.shuffle(group)
        keyed += [((k + 0.5) / len(group), name, it) for k, it in enumerate(group)]
    return [it for _, _, it in sorted(keyed, key=lambda x: x[:2])[:n]]


def tiny_candidates(mix: str, variant: str) -> list[gc.Candidate]:
    """CPU stand-ins on a tiny task: plain-PyTorch candidates (strictness off) and, in mix b, two cold C++
    extensions (about a minute on two cores; the other mixes build none, to keep the self-check short)."""

    def cand(name: str, expected: str, style: str) -> gc.Candidate:
        code = (DATA / "candidates" / f"{name}.py").read_text()
        mark = f"{variant}-{mix}"  # no two mixes share a source
        marked = code.replace('r"""', 'r"""' + gc.mark(mark), 1) if style == "inline" else code
        return gc.Candidate(name, style, marked + f"\n# variant {mark}\n", expected)

    plain = [
        cand("torch_correct", "pass", "python"),
        cand("wrong_shape", "incorrect", "python"),
        cand("syntax_error", "compile_error", "python"),
        cand("raises", "runtime_error", "python"),
    ]
    if mix in ("all", "a"):
        return plain
    if mix == "b":
        return [cand("cpp_correct", "pass", "inline"), cand("cpp_wrong", "incorrect", "inline")]
    return [plain[0], plain[1], plain[3], cand("no_modelnew", "compile_error", "python")]  # builds: mix b's


def mix_items(mix: str, variant: str, tiny: bool) -> list[Item]:
    if tiny:
        task = load_task(DATA / "suite" / "level1" / "scale_shift.py")
        cands = tiny_candidates(mix, variant)
        return [
            Item(c.name, c.style, c.expected, Request(task, c.code, sample=i)) for i, c in enumerate(cands)
        ]
    cands = {
        "all": lambda: gc.throughput_set(variant),
        "a": lambda: gc.triton_raw_set(variant),
        "b": lambda: gc.cold_inline_set(variant),
        "c": lambda: gc.kernelbench_like_set(variant),
    }[mix]()
    tasks = {t: load_task(BUILTIN_SUITE / t, root=BUILTIN_SUITE) for t in {c.task for c in cands}}
    return [
        Item(c.name, c.style, c.expected, Request(tasks[c.task], c.code, sample=i))
        for i, c in enumerate(cands)
    ]


def pool_arm(name: str, items: list[Item], cfg: EvalConfig, lanes: int, workers: int, deadline: float) -> Arm:
    """Every candidate submitted at once, once the verifier has paid its one-time costs (the zygote's
    start, torch's extension header precompiled where a candidate builds one: a run of an hour pays
    them once, and they are reported beside the rate); returns at the last verdict, or at the
    deadline (cut: the verifier is abandoned, nothing of it left running)."""
    arm = Arm(name, len(items), f"{lanes} lanes, {workers} build workers")
    finished, lock = threading.Semaphore(0), threading.Lock()
    verifier = Verifier(VerifierConfig(eval=cfg, lanes_per_device=lanes, build_workers=workers))
    warming = ThreadPoolExecutor(1).submit(
        verifier.warm, any(needs_build(it.request.code or "") for it in items)
    )
    try:
        arm.startup = warming.result(
            timeout=None if math.isinf(deadline) else max(0.0, deadline - time.monotonic())
        )
    except FutureTimeout:
        arm.cut = True  # the budget ended before the one-time costs did: nothing was measured
        abandon(verifier)
        return arm
    t0 = time.monotonic()

    def record(it: Item, future) -> None:
        latency = time.monotonic() - t0
        with lock:
            if not future.cancelled() and not arm.cut:
                error = future.exception()
                arm.rows[it.name] = row(None if error else future.result(), latency, error)
        finished.release()

    for it in items:
        verifier.submit_request(it.request).add_done_callback(lambda f, it=it: record(it, f))
    for _ in items:
        left = deadline - time.monotonic()
        if not finished.acquire(timeout=None if math.isinf(left) else max(0.0, left)):
            with lock:
                arm.cut = True  # verdicts that land later are not counted
            break
    arm.wall_s = (deadline - t0) if arm.cut else max((r["latency_s"] for r in arm.rows.values()), default=0.0)
    if arm.cut:
        abandon(verifier)
    else:
        verifier.close()
    return arm


def abandon(verifier: Verifier) -> None:
    """Close a verifier in mid-flight: pending work is cancelled, and every child it starts until it has
    closed is killed, so nothing of it runs beside what is measured next."""
    closing = threading.Thread(target=verifier.close, kwargs={"cancel_pending": True}, daemon=True)
    closing.start()
    while closing.is_alive():
        stop_descendants()
        closing.join(0.2)
    # The zygote was among the killed, and so was any started meanwhile: without a retry every later
    # arm would spawn its workers (on the H200 mix b's warm arm paid 9 s of start-up per sample).
    sandbox.ZYGOTE.retry()
    sandbox.warm_up()


def check_arm(items: list[Item], cfg: EvalConfig, concurrency: int, deadline: float, seed: int) -> Arm:
    """benchmark.check's call (harness.evaluate, fresh children, no pools) on each candidate, in a seeded
    order, `concurrency` at a time; no candidate is started after the deadline. A candidate that runs
    out of device memory beside the others is run again alone, as the verifier does, so that both
    arms give the verdict of an idle GPU."""
    arm = Arm("check", len(items), f"{concurrency} at a time")
    share = DeviceShare()
    todo: queue.Queue[Item] = queue.Queue()
    for it in random.Random(seed).sample(items, len(items)):
        todo.put(it)
    t0 = time.monotonic()

    def stream() -> None:
        while time.monotonic() < deadline:
            try:
                it = todo.get_nowait()
            except queue.Empty:
                return
            t = time.monotonic()
            r = it.request
            try:
                verdict, _ = share.run(
                    lambda r=r: evaluate(r.task, r.code, cfg, sample=r.sample), concurrency > 1
                )
                arm.rows[it.name] = row(verdict, time.monotonic() - t)
            except Exception as e:  # noqa: BLE001 - recorded as a row, not lost with the thread
                arm.rows[it.name] = row(None, time.monotonic() - t, e)

    threads = [threading.Thread(target=stream, name=f"check-{i}") for i in range(concurrency)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    arm.wall_s = time.monotonic() - t0
    arm.cut = len(arm.rows) < len(items)
    return arm


def compare(items: list[Item], arms: dict[str, Arm]) -> dict:
    """Verdict identity (status and flags) of the pool with the check path, and pool verdicts as expected."""
    pool, check = arms.get("pool"), arms.get("check")
    both = [it.name for it in items if pool and check and it.name in pool.rows and it.name in check.rows]
    key = ("status", "flags")
    diffs = [
        {
            "name": n,
            "pool": [pool.rows[n][k] for k in key],
            "check": [check.rows[n][k] for k in key],
            "pool_error": pool.rows[n]["error"],
            "check_error": check.rows[n]["error"],
        }
        for n in both
        if [pool.rows[n][k] for k in key] != [check.rows[n][k] for k in key]
    ]
    judged = [it for it in items if pool and it.name in pool.rows]
    unexpected = [
        {
            "name": it.name,
            "expected": it.expected,
            "got": pool.rows[it.name]["status"],
            "error": pool.rows[it.name]["error"],
        }
        for it in judged
        if pool.rows[it.name]["status"] != it.expected
    ]
    return {
        "identical": {
            "candidates": len(items),
            "checked": len(both),
            "same": len(both) - len(diffs),
            "differences": diffs,
        },
        "expected": {"judged": len(judged), "right": len(judged) - len(unexpected), "unexpected": unexpected},
    }


def stop_descendants(root: int | None = None) -> None:
    """SIGKILL every process below `root` (default: this one), all found before any is killed (a killed
    parent's children go to init, out of reach). Not by process group: ninja starts each compiler in a
    group of its own."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(
                stat.read_text().rsplit(")", 1)[1].split()[1]
            )  # after the name
        except (OSError, ValueError, IndexError):
            continue
    below, frontier = set(), {root or os.getpid()}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - below
        below |= frontier
    for pid in below:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@dataclass(frozen=True)
class Settings:
    device: str = "cuda"
    lanes: int = 6
    build_workers: int = 14
    check_concurrency: int = 1
    budget_s: float | None = None
    limit: int | None = None
    seed: int = 0
    tiny: bool = False


def run_mix(mix: str, variant: str, s: Settings, out: Path) -> dict:
    """The mix through every arm; the report is rewritten after each arm."""
    items = proportional(mix_items(mix, variant, s.tiny), s.limit, s.seed)
    timing = TimingConfig(max_seconds=0.5) if s.tiny else TimingConfig()
    cfg = EvalConfig(
        device=s.device,
        strict=not s.tiny,
        timing=timing,  # benchmark.check's defaults on GPU
        cache_dir=Path(tempfile.mkdtemp(prefix=f"solbench-bench-{mix}-")),
    )
    weights = WEIGHTS.get(mix, DEFAULT_WEIGHTS)
    arm_names = list(weights)
    start, budget = time.monotonic(), s.budget_s or float("inf")
    report = {
        "mix": mix,
        "description": MIXES[mix],
        "variant": variant,
        "device": s.device,
        "tiny": s.tiny,
        "candidates": len(items),
        "names": {it.name: it.expected for it in items},
        "arms": {},
    }
    arms: dict[str, Arm] = {}
    todo = items
    for i, name in enumerate(arm_names):
        left = budget - (time.monotonic() - start)
        deadline = time.monotonic() + left * weights[name] / sum(weights[n] for n in arm_names[i:])
        if name == "check":
            arm = check_arm(todo, cfg, s.check_concurrency, deadline, s.seed)
        else:
            arm = pool_arm(name, todo, cfg, s.lanes, s.build_workers, deadline)
        arms[name] = arm
        report["arms"][name] = {**arm.summary(), "rows": arm.rows}
        report.update(compare(items, arms))
        (out / f"mix-{mix}.json").write_text(json.dumps(report, indent=1))
        print(line(arm), flush=True)
        if name == "pool" and arm.cut:
            todo = [it for it in items if it.name in arm.rows]
            print(
                f"  pool cut by the budget: the next arms take the {len(todo)} candidates it finished",
                flush=True,
            )
    return report


def line(arm: Arm) -> str:
    s = arm.summary()

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f}"

    return (
        f"  {arm.name:<5} {s['done']}/{s['candidates']} in {s['wall_s']:.1f} s{' (cut)' if arm.cut else ''} "
        f"= {s['per_gpu_hour']:.0f}/GPU-hour ({arm.concurrency}); latency p50 {f(s['latency_p50_s'])} s "
        f"p95 {f(s['latency_p95_s'])} s; own p50 {f(s['own_p50_s'])} s p95 {f(s['own_p95_s'])} s"
        + (
            "\n        one-time, before the clock: "
            + ", ".join(f"{k.removesuffix('_s')} {v:.1f} s" for k, v in s["startup_s"].items())
            + f" (with them: {s['per_gpu_hour_with_startup']:.0f}/GPU-hour)"
            if s["startup_s"]
            else ""
        )
        + "\n        phase p50 s: "
        + " ".join(f"{k.removesuffix('_s')} {v:.2f}" for k, v in s["phases_p50_s"].items() if v)
        + (
            f"; timing alone bounds it at {s['alone_bound_per_hour']:.0f}/GPU-hour"
            if s["alone_bound_per_hour"]
            else ""
        )
        + f"\n        lanes busy on average {f(s['busy_lanes'])}; a sample's two processes held {f(s['device_pair_mib_p50'])} MiB (p50)"
        + "".join(f"\n        held alone: {line}" for line in s.get("longest_alone", ())[:3])
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mix", action="append", choices=sorted(MIXES), help="repeatable (default: all)")
    p.add_argument("--out", type=Path, default=Path("runs/bench-verifier"))
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--lanes", type=int, default=6, help="execution lanes per GPU")
    p.add_argument("--build-workers", type=int, default=14)
    p.add_argument(
        "--check-concurrency",
        type=int,
        default=1,
        help="benchmark.check calls at a time in the check arm (1: one after another)",
    )
    p.add_argument("--budget-s", type=float, default=None, help="seconds per mix (default: no limit)")
    p.add_argument(
        "--limit", type=int, default=None, help="candidates per mix: a seeded subset with the mix's shares"
    )
    p.add_argument("--variant", default=None, help="written into every kernel (default: a fresh random one)")
    p.add_argument("--seed", type=int, default=0, help="seeds the subset and the check arm's order")
    p.add_argument(
        "--tiny", action="store_true", help="CPU self-check: C++ and plain-PyTorch candidates, tiny task"
    )
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    variant = args.variant or secrets.token_hex(4)
    s = Settings(
        args.device,
        args.lanes,
        args.build_workers,
        args.check_concurrency,
        args.budget_s,
        args.limit,
        args.seed,
        args.tiny,
    )
    for mix in args.mix or ["all"]:
        stand_in = "CPU stand-ins for " if args.tiny else ""
        print(
            f"mix {mix}: {stand_in}{MIXES[mix]} (variant {variant}: every kernel source is distinct)",
            flush=True,
        )
        report = run_mix(mix, variant, s, args.out)
        ident, exp = report["identical"], report["expected"]
        print(
            f"  verdicts identical to benchmark.check: {ident['same']}/{ident['checked']} checked of "
            f"{ident['candidates']}; as expected: {exp['right']}/{exp['judged']}",
            flush=True,
        )
        for d in ident["differences"] + exp["unexpected"]:
            print(f"    {d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
