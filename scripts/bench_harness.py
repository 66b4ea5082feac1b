"""Harness benchmark (a script, not a test): per-sample wall time split into compile, correctness
and timing, cold and warm build cache; the spread of the speedup over repeated runs of an
elementwise, a reduction and a matmul candidate, fresh (as `benchmark.check`) and through the
Verifier's pool, beside the spread each verdict measured within its own timing (each run's rounds
in timing-trace/, `SOLBENCH_TIMING_TRACE`); the same with another process running profile passes
beside it, against a quiet device (`neighbour`); the cost of the strict anti-cheat checks (strict vs --no-strict on the same candidates); per-sample child start-up,
spawned against forked from the warm zygote (`startup`); and how each arm's per-call time moves over
one long interleaved timing of the repeats' cases, in this process, its raw samples kept (`drift`);
the GELU's time against where its output lies beside its input (`placement`); and the same GELU
timed in several fresh processes in turn, on an input shared from this one through CUDA IPC (as the
arena's) and on its own copy, each with a few outputs of its own (`processes`); and the reference
against itself on host-bound tasks and on tasks whose self-speedup read beyond the noise, through the
Verifier's pool, under two spins of the timing's channel (`spin`, TimingConfig.spin_ms): the
device time held alone, the timed rounds and the distance of each speedup from 1.

    python scripts/bench_harness.py --device cuda --repeats 5 --out $OUT/harness [--sections ...]

Writes harness.json after each section and prints what it measured. On a GPU machine the `fault`
section checks that a kernel with an illegal memory access costs only its own sample (the next
sample still passes). Sections run in the order given, so the most wanted come first under a
time limit."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from trace_split import ESTIMATORS, SLOW

from benchmark.evaluate.harness import EvalConfig, evaluate
from benchmark.evaluate.timing import TRACE_ENV, paired_ratio
from benchmark.host import default_device
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
        "task": v.task_id,
        "verdict": v.status.value,
        "flags": list(v.flags),
        "speedup": v.speedup,
        **dataclasses.asdict(v.phases),
        "candidate_ms": v.candidate_time.median_ms if v.candidate_time else None,
        "rounds": v.candidate_time.runs if v.candidate_time else None,
        "reference_ms": v.reference_time.median_ms if v.reference_time else None,
        "reference_alone_ms": v.reference_alone_time.median_ms if v.reference_alone_time else None,
        "speedup_spread": v.speedup_spread,
        "launch_cover_ms": v.env.get("launch_cover_ms"),
        "timing_warmup": v.env.get("timing_warmup"),
        "error": (v.error or "")[:300],
    }


SECTIONS = (
    "fault",
    "repeats",
    "neighbour",
    "strict",
    "phases",
    "startup",
    "drift",
    "placement",
    "processes",
    "spin",
)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None)
    p.add_argument("--repeats", type=int, default=5, help="runs of the same candidate for the speedup spread")
    p.add_argument(
        "--protocols",
        nargs="+",
        choices=("behind-flush", "idle-launch"),
        default=["behind-flush"],
        help="timing protocols the repeats section measures: launched behind the flush and a device-side "
        "wait (the default), or on an idle device (TimingConfig.launch_behind_flush=False)",
    )
    p.add_argument(
        "--sections",
        nargs="+",
        choices=SECTIONS,
        default=list(SECTIONS),
        help="what to measure, in this order (harness.json is rewritten after each)",
    )
    p.add_argument(
        "--cases",
        nargs="+",
        default=None,
        help="the repeats and drift sections measure only the cases whose task contains one of these "
        "(e.g. gemm), in this order",
    )
    p.add_argument(
        "--drift-rounds", type=int, default=3000, help="rounds of the drift section's one interleaved timing"
    )
    p.add_argument(
        "--drift-block",
        type=int,
        default=50,
        help="rounds per block whose medians the drift section reports",
    )
    p.add_argument(
        "--spins",
        nargs="+",
        type=float,
        default=[0.2, 20.0],
        help="the spin section's arms: TimingConfig.spin_ms values, the first the baseline",
    )
    p.add_argument("--out", type=Path, default=Path("runs/bench-harness"))
    args = p.parse_args(argv)
    device = args.device or default_device()
    args.out.mkdir(parents=True, exist_ok=True)
    base = EvalConfig(device=device, cache_dir=Path(tempfile.mkdtemp(prefix="solbench-bench-")))
    report: dict = {"device": device}
    save = lambda: (args.out / "harness.json").write_text(json.dumps(report, indent=2))  # noqa: E731
    saving = {  # sections that save as they go
        "repeats": repeats,
        "neighbour": neighbour,
        "drift": drift,
        "placement": placement,
        "processes": processes,
        "spin": spin,
    }
    once = {"fault": fault_isolation, "strict": strict_overhead, "phases": phases, "startup": startup}
    for section in [s for s in args.sections if s != "fault" or device == "cuda"]:
        if section in saving:
            saving[section](base, args, report, save)
        else:
            once[section](base, args, report)
        save()


def fault_isolation(base: EvalConfig, args, report: dict) -> None:
    """An illegal memory access, then an honest kernel: the fault must cost only its own sample."""
    task = task_for("level1/gelu_tanh_fp32.py")
    bad = evaluate(task, (DATA / "candidates" / "cuda_illegal_access.py").read_text(), base)
    after = evaluate(task, (HONEST / "raw_cuda_gelu_tanh.py").read_text(), base)
    report["fault_isolation"] = {"faulty": row(bad), "next_sample": row(after)}
    print(
        f"illegal access: {bad.status.value} ({(bad.error or '')[:100]!r}); next sample: {after.summary()}",
        flush=True,
    )


REPEAT_CASES = {  # an elementwise, a reduction and a matmul task, each with an honest Triton kernel
    "cuda": [
        ("level1/gelu_tanh_fp32.py", HONEST / "triton_gelu_tanh.py"),
        ("level1/sum_rows_fp32.py", HONEST / "triton_rowsum.py"),
        ("level1/gemm_square_bf16.py", HONEST / "triton_matmul_bf16.py"),
    ],
    "cpu": CASES["cpu"],
}


def repeat_cases(device: str, keys: list[str] | None) -> list[tuple[str, Path]]:
    """REPEAT_CASES of the device whose task contains one of `keys`, in the order of the keys (the
    most wanted first under a time limit); all of them without keys."""
    cases = REPEAT_CASES[device]
    return list(dict.fromkeys(c for k in keys for c in cases if k in c[0])) if keys else list(cases)


def _spread(speedups: list) -> tuple[float | None, float | None]:
    ok = [s for s in speedups if s]
    med = statistics.median(ok) if ok else None
    return med, ((max(ok) - min(ok)) / med if med else None)


def speedup_list(verdicts) -> str:
    return ", ".join(f"{v.speedup:.4f}" if v.speedup else "-" for v in verdicts)


def failures(verdicts) -> str:
    """What each run without a speedup ended with, for the printed line."""
    return "".join(
        f"  [{v.status.value}: {(v.error or ', '.join(v.flags))[:120]}]"
        for v in verdicts
        if v.speedup is None
    )


OTHER_ESTIMATORS = [name for name in ESTIMATORS if name != "paired median"]  # the verdict's is the speedup


def trace_estimates(folder: Path) -> dict:
    """Other readings of the same timings, from their traces (`TRACE_ENV`, in arrival order): the paired
    ratio over even and over odd rounds apart (a difference means the two orders of a round differ),
    and trace_split's other estimators (the arms' low percentiles, their fast-speed medians: immune to
    how one arm's calls split between two speeds, where the paired median is not), each with its
    spread over the runs, so one call compares them on the same timings."""
    rows = []
    for path in sorted(folder.glob("*.json")):
        ref, cand = json.loads(path.read_text())["samples_ms"]
        row = {"even": paired_ratio(ref[0::2], cand[0::2]), "odd": None}
        if len(ref) > 1:
            row["odd"] = paired_ratio(ref[1::2], cand[1::2])
            row |= {name: ESTIMATORS[name](ref, cand, SLOW) for name in OTHER_ESTIMATORS}
        rows.append(row)
    return {
        "runs": rows,
        "spreads": {name: _spread([r.get(name) for r in rows])[1] for name in OTHER_ESTIMATORS},
    }


def repeats(base: EvalConfig, args, report: dict, save=lambda: None) -> None:
    """Each case evaluated `--repeats` times in a freshly spawned interpreter each (the path before
    warm workers), then as many times through the Verifier's pool (children forked from the zygote,
    the reference store on): how far the reported speedup moves between runs, next to the spread
    each verdict measured within its own interleaved timing, and whether forking moves it."""
    from benchmark.evaluate import sandbox
    from benchmark.verify.verifier import Verifier, VerifierConfig

    report["repeats"] = []
    for (spec, cand), protocol in itertools.product(repeat_cases(base.device, args.cases), args.protocols):
        config = dataclasses.replace(
            base, timing=dataclasses.replace(base.timing, launch_behind_flush=protocol == "behind-flush")
        )
        task, code = task_for(spec), cand.read_text()
        traces = args.out.resolve() / "timing-trace" / f"{Path(spec).stem}-{protocol}"
        os.environ[sandbox.ZYGOTE_SWITCH] = "0"
        os.environ[TRACE_ENV] = str(traces / "spawned")
        try:
            fresh = [evaluate(task, code, config) for _ in range(args.repeats)]
            os.environ[TRACE_ENV] = str(traces / "pool")  # before the Verifier's zygote starts
            os.environ.pop(sandbox.ZYGOTE_SWITCH)
            with Verifier(VerifierConfig(eval=config)) as verifier:
                futures = [verifier.submit(task, code, sample=k) for k in range(args.repeats)]
                pooled = [f.result() for f in futures]
        finally:
            os.environ.pop(sandbox.ZYGOTE_SWITCH, None)
            os.environ.pop(TRACE_ENV)
        entry = {"task": task.task_id, "candidate": cand.name, "protocol": protocol}
        for name, verdicts in (("spawned", fresh), ("pool", pooled)):
            speedups = [v.speedup for v in verdicts]
            med, spread = _spread(speedups)
            within = [v.speedup_spread for v in verdicts if v.speedup_spread is not None]
            of_medians = [  # the speedup as it was before the paired ratio, from the same timings
                v.reference_time.median_ms / v.candidate_time.median_ms if v.speedup else None
                for v in verdicts
            ]
            entry[name] = {
                "speedups": speedups,
                "median": med,
                "spread": spread,
                "ratio_of_medians": of_medians,
                "ratio_of_medians_spread": _spread(of_medians)[1],
                "within_run_spread": within,
                "runs": [row(v) for v in verdicts],
            }
            print(
                f"{task.task_id} {cand.name} ({protocol}) via {name}: "
                + speedup_list(verdicts)
                + (f"  spread {spread:.2%}" if spread is not None else "")
                + (
                    f" (ratio of the arms' medians: {entry[name]['ratio_of_medians_spread']:.2%})"
                    if entry[name]["ratio_of_medians_spread"] is not None
                    else ""
                )
                + (f"  within-run median {statistics.median(within):.2%}" if within else "")
                + f"  rounds {', '.join(str(v.candidate_time.runs) for v in verdicts if v.candidate_time)}"
                + f"  warm-up {'; '.join(v.env.get('timing_warmup', '-') for v in verdicts)}"
                + failures(verdicts),
                flush=True,
            )
            entry[name]["traces"] = estimates = trace_estimates(traces / name)
            print(
                "  traces: paired even / odd rounds "
                + ", ".join(f"{r['even']:.4f}/{r['odd']:.4f}" for r in estimates["runs"] if r["odd"]),
                flush=True,
            )
            for other in OTHER_ESTIMATORS:
                spread = estimates["spreads"][other]
                print(
                    f"  traces: {other} ratio "
                    + ", ".join(f"{r[other]:.4f}" for r in estimates["runs"] if r.get(other))
                    + (f"  spread {spread:.2%}" if spread is not None else ""),
                    flush=True,
                )
        if entry["spawned"]["median"] and entry["pool"]["median"]:
            entry["pool_over_spawned"] = entry["pool"]["median"] / entry["spawned"]["median"]
            print(
                f"{task.task_id} ({protocol}): pool / spawned median speedup {entry['pool_over_spawned']:.4f}",
                flush=True,
            )
        report["repeats"].append(entry)
        save()  # after each case: a stage cut by its limit keeps the cases that finished


# Another lane's profile pass, back to back: the profiler's start and stop outside the device lock and
# the profiled call inside it, held shared, as the worker does (benchmark.evaluate.anticheat.kernels)
PROFILING_NEIGHBOUR = """
import sys, torch
from benchmark.evaluate.anticheat.kernels import profile_forward
from benchmark.evaluate.gpu_lock import DeviceLock
lock, x = DeviceLock(sys.argv[1]), torch.ones(1 << 22, device="cuda")
profile_forward(torch.mul, x, 2.0, device_lock=lock.shared)
print("ready", flush=True)
while True:
    profile_forward(torch.mul, x, 2.0, device_lock=lock.shared)
"""


def neighbour(base: EvalConfig, args, report: dict, save=lambda: None) -> None:
    """The first repeats case `--repeats` times each, fresh as `benchmark.check`, alternating a quiet
    device with one where another process runs profile passes back to back (start and stop outside
    the device lock, the call under it shared): whether another lane's profiler moves a timing."""
    from benchmark.evaluate import sandbox
    from benchmark.host import host_device_lock

    if base.device != "cuda":
        print("neighbour: needs a GPU, skipped", flush=True)
        return
    spec, cand = repeat_cases(base.device, args.cases)[0]
    task, code = task_for(spec), cand.read_text()
    arms: dict[str, list] = {"quiet": [], "profiling": []}
    os.environ[sandbox.ZYGOTE_SWITCH] = "0"
    try:
        for _ in range(args.repeats):
            arms["quiet"].append(evaluate(task, code, base))
            with subprocess.Popen(
                [sys.executable, "-c", PROFILING_NEIGHBOUR, host_device_lock()],
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env={
                    **os.environ,
                    "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                },
            ) as other:
                try:
                    if other.stdout.readline().strip() != "ready":
                        raise RuntimeError(f"the profiling neighbour did not start (rc {other.poll()})")
                    arms["profiling"].append(evaluate(task, code, base))
                finally:
                    other.kill()
    finally:
        os.environ.pop(sandbox.ZYGOTE_SWITCH, None)
    entry: dict = {"task": task.task_id, "candidate": cand.name}
    for name, verdicts in arms.items():
        med, spread = _spread([v.speedup for v in verdicts])
        ref = [v.reference_time.median_ms for v in verdicts if v.reference_time]
        entry[name] = {"median": med, "spread": spread, "runs": [row(v) for v in verdicts]}
        print(
            f"neighbour {task.task_id} {cand.name}, {name}: "
            + speedup_list(verdicts)
            + (f"  spread {spread:.2%}" if spread is not None else "")
            + (f"  reference median {statistics.median(ref):.4f} ms" if ref else "")
            + failures(verdicts),
            flush=True,
        )
    if entry["quiet"]["median"] and entry["profiling"]["median"]:
        entry["profiling_over_quiet"] = entry["profiling"]["median"] / entry["quiet"]["median"]
        print(f"neighbour: profiling / quiet median speedup {entry['profiling_over_quiet']:.4f}", flush=True)
    report["neighbour"] = entry
    save()


DRIFT_MAX_SECONDS = 30.0  # the drift timing's cap per arm: far above 3000 rounds of a 1.5 ms matmul

# NVML's clock event reasons (bits of nvmlDeviceGetCurrentClocksEventReasons), named in the drift table
CLOCK_REASONS = {
    0x1: "idle",
    0x2: "app_clocks",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
    0x100: "display_clocks",
}


class ClockSampler:
    """The GPU's SM clock, power, temperature and clock event reasons, read through NVML every
    `period_s` on a thread while the drift timing runs: whether an arm's time moves with the clocks.
    Reads nothing (an empty list) where NVML is missing."""

    def __init__(self, device, period_s: float = 0.005):
        self.period_s = period_s
        self.samples: list[dict] = []
        self.why = ""
        self._stop = threading.Event()
        try:
            import pynvml

            from benchmark.evaluate.contention import nvml_handle

            self._nvml, self._handle = pynvml, nvml_handle(device)
        except Exception as e:  # noqa: BLE001 - telemetry is optional: the timing runs without it
            self._handle, self.why = None, f"NVML unavailable: {e!r}"[:200]
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ClockSampler:
        if self._handle is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _read(self, fn, *args):
        try:
            return fn(self._handle, *args)
        except Exception:  # noqa: BLE001 - a reading this driver does not offer stays None
            return None

    def _run(self) -> None:
        n = self._nvml
        reasons = getattr(n, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            n, "nvmlDeviceGetCurrentClocksThrottleReasons", None
        )
        instant = getattr(n, "NVML_FI_DEV_POWER_INSTANT", None)
        while not self._stop.wait(self.period_s):
            power_mw = None
            if instant is not None:
                fields = self._read(n.nvmlDeviceGetFieldValues, [instant])
                if fields and fields[0].nvmlReturn == n.NVML_SUCCESS:
                    power_mw = fields[0].value.uiVal
            if power_mw is None:
                power_mw = self._read(n.nvmlDeviceGetPowerUsage)
            self.samples.append(
                {
                    "t": time.monotonic(),
                    "sm_mhz": self._read(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_SM),
                    "mem_mhz": self._read(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_MEM),
                    "power_w": power_mw / 1e3 if power_mw is not None else None,
                    "temp_c": self._read(n.nvmlDeviceGetTemperature, n.NVML_TEMPERATURE_GPU),
                    "reasons": self._read(reasons) if reasons else None,
                }
            )


def block_telemetry(samples: list[dict], starts: list[float], size: int, end: float) -> list[dict]:
    """Per whole block of `size` rounds (its window from its first round's start to the next
    block's): the mean SM clock, power and temperature of the NVML samples in it, and every clock
    event reason seen."""
    out = []
    for j in range(len(starts) // size):
        t0 = starts[j * size]
        t1 = starts[(j + 1) * size] if (j + 1) * size < len(starts) else end
        inside = [x for x in samples if t0 <= x["t"] < t1]

        def mean(key: str, inside=inside) -> float | None:
            vals = [x[key] for x in inside if x[key] is not None]
            return statistics.fmean(vals) if vals else None

        bits = 0
        for x in inside:
            bits |= x["reasons"] or 0
        out.append(
            {
                "t_s": t0 - starts[0],
                "sm_mhz": mean("sm_mhz"),
                "power_w": mean("power_w"),
                "temp_c": mean("temp_c"),
                "reasons": [name for bit, name in CLOCK_REASONS.items() if bits & bit],
                "readings": len(inside),
            }
        )
    return out


def drift(base: EvalConfig, args, report: dict, save=lambda: None) -> None:
    """Each repeats case timed once, interleaved, for `--drift-rounds` rounds with no early stop, in
    this process (the verdict keeps no per-round samples): the reference and ModelNew built, seeded
    and fed as the evaluation child does (TaskProgram, timing_seeds, paired_arms), under the host's
    device lock held exclusively, as the child times. One warm-up call, no steady check, so the
    blocks show what the GPU does from the first calls on. Per block of `--drift-block` rounds, each
    arm's median, their ratio and, through NVML, the SM clock, power, temperature and clock event
    reasons: whether an arm's time moves under a run of back-to-back calls, and with what (the row
    sum's candidate ran 8% slower after about a second of them, the matmul's reference moved
    1.50-1.60 ms between processes)."""
    import torch

    from benchmark.evaluate.candidate import load_candidate
    from benchmark.evaluate.gpu_lock import DeviceLock
    from benchmark.evaluate.harness import stage_source
    from benchmark.evaluate.program import TaskProgram, clone_args, paired_arms, pin_precision, timing_seeds
    from benchmark.evaluate.timing import Timer
    from benchmark.host import host_device_lock

    pin_precision()
    device = torch.device(base.device)
    lock = DeviceLock(host_device_lock() if device.type == "cuda" else None)
    config = dataclasses.replace(
        base.timing,
        warmup_calls=1,
        warmup_seconds=0.0,
        steady_max_seconds=0.0,
        max_runs=args.drift_rounds,
        max_seconds=DRIFT_MAX_SECONDS,
        target_rel_err=0.0,
    )
    report["drift"] = []
    for spec, cand in repeat_cases(base.device, args.cases):
        task = task_for(spec)
        program = TaskProgram(task.load_module(), device)
        reference = program.build(program.module.Model, base.seed)
        model_cls = load_candidate(stage_source(cand.read_text(), base.cache_dir), base.cache_dir / "builds")
        candidate = program.build(model_cls, base.seed)
        sets = [program.inputs(s) for s in timing_seeds(base.seed)]
        with torch.no_grad():
            for model in (reference, candidate):  # JIT and autotuning, which the child's checks pay first
                model(*clone_args(sets[0]))
            with lock.exclusive():
                timer = Timer(base.device, config)
                with ClockSampler(device) if device.type == "cuda" else contextlib.nullcontext() as clocks:
                    t0 = time.monotonic()
                    timed = timer.interleaved(paired_arms(reference, candidate, sets))
                    end = time.monotonic()
        telemetry = clocks.samples if clocks else []
        entry = {
            "task": task.task_id,
            "candidate": cand.name,
            "rounds": timed.stats[0].runs,
            "seconds": end - t0,
            "launch_cover_ms": timed.cover_ms if device.type == "cuda" else None,
            "speedup": timed.ratio,
            **drift_blocks(timed.samples, args.drift_block),
            "telemetry": block_telemetry(telemetry, timed.round_starts, args.drift_block, end)
            if telemetry
            else [],
            "telemetry_unavailable": clocks.why if clocks else "not a CUDA device",
            "samples": {
                "reference_ms": timed.samples[0],
                "candidate_ms": timed.samples[1],
                "round_s": [t - timed.round_starts[0] for t in timed.round_starts],
                "nvml": [{**x, "t": x["t"] - timed.round_starts[0]} for x in telemetry],
            },
        }
        report["drift"].append(entry)
        print_drift(entry)
        save()  # after each case: a stage cut by its limit keeps the cases that finished


PLACEMENT_OFFSETS_MIB = (0, 0.0625, 1, *range(2, 66, 2))  # the output's start in one pool
PLACEMENT_CALLS = 60


def gelu_median_ms(x, out, flush) -> float:
    """Eager tanh GELU of `x` into `out`, each call behind a write of `flush` (the L2 emptied), timed
    by CUDA events: the median of PLACEMENT_CALLS after 5 unmeasured."""
    import torch

    times = []
    for k in range(PLACEMENT_CALLS + 5):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.ops.aten.gelu.out(x, approximate="tanh", out=out)
        end.record()
        end.synchronize()
        if k >= 5:
            times.append(start.elapsed_time(end))
    return statistics.median(times)


def placement(base: EvalConfig, args, report: dict, save=lambda: None) -> None:
    """Whether an elementwise kernel's time depends on where its output lies against its input, in this
    process: eager GELU (the task's own input, 64 MiB) written with `out=` into one pool at each
    offset, each call behind an L2 flush, CUDA events, the median of PLACEMENT_CALLS; then the
    output placed by the caching allocator behind spacers of 0-30 x 2 MiB, as a process might find it.
    Two speeds by offset would explain a timing arm that runs about 6% slow for a whole process."""
    import torch

    from benchmark.evaluate.gpu_lock import DeviceLock
    from benchmark.evaluate.program import TaskProgram, pin_precision
    from benchmark.host import host_device_lock

    if base.device != "cuda":
        print("placement: a GPU section")
        return
    pin_precision()
    device = torch.device("cuda")
    program = TaskProgram(task_for("level1/gelu_tanh_fp32.py").load_module(), device)
    x = program.inputs(base.seed)[0].contiguous()
    flush = torch.empty(100 * 2**20, dtype=torch.uint8, device=device)
    pool = torch.empty(x.numel() + 66 * 2**18, dtype=x.dtype, device=device)

    rows = []
    with DeviceLock(host_device_lock()).exclusive(), torch.no_grad():
        for off in PLACEMENT_OFFSETS_MIB:
            first = int(off * 2**18)  # fp32 elements in `off` MiB
            out = pool[first : first + x.numel()].view_as(x)
            rows.append(
                {
                    "offset_mib": off,
                    "address_mib": (out.data_ptr() - x.data_ptr()) / 2**20,
                    "ms": gelu_median_ms(x, out, flush),
                }
            )
        del pool
        natural = []
        for k in range(0, 31, 2):
            spacer = torch.empty(k * 2**21, dtype=torch.uint8, device=device)
            out = torch.empty_like(x)
            natural.append(
                {
                    "spacer_mib": 2 * k,
                    "address_mib": (out.data_ptr() - x.data_ptr()) / 2**20,
                    "ms": gelu_median_ms(x, out, flush),
                }
            )
            del out, spacer
            torch.cuda.empty_cache()
    times = [r["ms"] for r in rows]
    report["placement"] = {
        "input_mib": x.numel() * 4 / 2**20,
        "pool": rows,
        "allocator": natural,
        "spread": max(times) / min(times) - 1,
    }
    for r in rows:
        print(
            f"placement: output {r['offset_mib']:>7} MiB into the pool ({r['address_mib']:+.1f} MiB from the input): {r['ms']:.4f} ms"
        )
    for r in natural:
        print(
            f"placement: behind {r['spacer_mib']:>3} MiB of spacer (output at {r['address_mib']:+.1f} MiB): {r['ms']:.4f} ms"
        )
    print(f"placement: spread over the pool's offsets {100 * report['placement']['spread']:.2f}%")
    save()


PROCESS_RUNS = 8  # fresh processes the `processes` section times in turn
PROCESS_OUTPUTS = 4  # outputs each allocates (all held, so each is a block of its own)


def _time_in_process(shared, queue) -> None:
    """In a fresh process: the GELU on `shared` (the parent's tensor, through CUDA IPC) and on this
    process's own copy of it, into each of PROCESS_OUTPUTS outputs it allocates."""
    import torch

    from benchmark.evaluate.program import pin_precision

    pin_precision()
    flush = torch.empty(100 * 2**20, dtype=torch.uint8, device=shared.device)
    own = shared.clone()
    outs = [torch.empty_like(shared) for _ in range(PROCESS_OUTPUTS)]
    queue.put(
        {
            name: [gelu_median_ms(x, out, flush) for out in outs]
            for name, x in (("shared input", shared), ("own input", own))
        }
    )


def processes(base: EvalConfig, args, report: dict, save=lambda: None) -> None:
    """Whether a whole process's calls of one kernel run at a speed of their own (a GELU timing arm
    sat 6-10% slow for a whole run, the judge's or the candidate's): PROCESS_RUNS fresh processes
    in turn, the device held alone, each timing the GELU on the input shared from here and on its own
    copy, into outputs of its own. A spread across processes well above the spread within each says
    the speed is the process's; a spread within says it is the allocation's."""
    import torch
    import torch.multiprocessing as tmp

    from benchmark.evaluate.gpu_lock import DeviceLock
    from benchmark.evaluate.program import TaskProgram
    from benchmark.host import host_device_lock

    if base.device != "cuda":
        print("processes: a GPU section")
        return
    program = TaskProgram(task_for("level1/gelu_tanh_fp32.py").load_module(), torch.device("cuda"))
    x = program.inputs(base.seed)[0].contiguous()
    ctx = tmp.get_context("spawn")
    runs = []
    with DeviceLock(host_device_lock()).exclusive():
        for _ in range(PROCESS_RUNS):
            queue = ctx.Queue()
            child = ctx.Process(target=_time_in_process, args=(x, queue))
            child.start()
            runs.append(queue.get(timeout=300))
            child.join()

    def spread(values: list[float]) -> float:
        return max(values) / min(values) - 1

    summary = {}
    for name in ("shared input", "own input"):
        firsts = [r[name][0] for r in runs]
        summary[name] = {
            "across_processes": spread(firsts),
            "within_processes_max": max(spread(r[name]) for r in runs),
        }
    report["processes"] = {"runs": runs, "summary": summary}
    for i, r in enumerate(runs):
        print(
            f"processes: run {i}: "
            + "; ".join(f"{k} " + " ".join(f"{ms:.4f}" for ms in v) for k, v in r.items())
        )
    for name, s in summary.items():
        print(
            f"processes: {name}: spread across processes {100 * s['across_processes']:.2f}%, "
            f"within a process at most {100 * s['within_processes_max']:.2f}%"
        )
    save()


def drift_blocks(samples: list[list[float]], size: int) -> dict:
    """Over consecutive whole blocks of `size` rounds: each arm's median, the ratio of those medians
    and the median of the per-round ratio (`timing.paired_ratio`, the verdict's speedup); the first
    and last block's paired ratio, and (max - min) / median of each kind of block ratio."""
    ref, cand = samples
    blocks = {
        "block_rounds": size,
        "reference_ms": [],
        "candidate_ms": [],
        "block_speedup": [],
        "block_ratio_of_medians": [],
    }
    for j in range(len(ref) // size):
        r, c = ref[j * size : (j + 1) * size], cand[j * size : (j + 1) * size]
        blocks["reference_ms"].append(statistics.median(r))
        blocks["candidate_ms"].append(statistics.median(c))
        blocks["block_ratio_of_medians"].append(statistics.median(r) / statistics.median(c))
        blocks["block_speedup"].append(paired_ratio(r, c))
    ratios = blocks["block_speedup"]
    return {
        **blocks,
        "first_speedup": ratios[0] if ratios else None,
        "last_speedup": ratios[-1] if ratios else None,
        "block_spread": _spread(ratios)[1],
        "block_spread_ratio_of_medians": _spread(blocks["block_ratio_of_medians"])[1],
    }


def print_drift(e: dict) -> None:
    spread = f"{e['block_spread']:.2%}" if e["block_spread"] is not None else "-"
    first, last = (f"{e[k]:.4f}" if e[k] is not None else "-" for k in ("first_speedup", "last_speedup"))
    print(
        f"{e['task']} {e['candidate']} drift: {e['rounds']} rounds in {e['seconds']:.1f} s, speedup "
        f"{e['speedup']:.4f}, blocks of {e['block_rounds']}: first {first}, last {last}, spread {spread} "
        + (
            f"(ratio of the arms' medians: {e['block_spread_ratio_of_medians']:.2%})"
            if e["block_spread_ratio_of_medians"] is not None
            else ""
        )
        + (f" (no clocks: {e['telemetry_unavailable']})" if e["telemetry_unavailable"] else ""),
        flush=True,
    )
    print(
        f"{'from round':>10} {'t_s':>7} {'reference_ms':>13} {'candidate_ms':>13} {'speedup':>8} "
        f"{'sm_mhz':>7} {'power_w':>8} {'temp_c':>6}  reasons"
    )
    telemetry = e["telemetry"] or [{}] * len(e["block_speedup"])
    rows = zip(e["reference_ms"], e["candidate_ms"], e["block_speedup"], telemetry, strict=True)

    def cell(v, width: int, digits: int) -> str:
        return f"{v:>{width}.{digits}f}" if v is not None else f"{'-':>{width}}"

    for j, (r, c, s, t) in enumerate(rows):
        print(
            f"{j * e['block_rounds']:>10} {cell(t.get('t_s'), 7, 2)} {r:>13.4f} {c:>13.4f} {s:>8.4f} "
            f"{cell(t.get('sm_mhz'), 7, 0)} {cell(t.get('power_w'), 8, 1)} {cell(t.get('temp_c'), 6, 1)}  "
            + ",".join(t.get("reasons") or []),
            flush=True,
        )


def strict_overhead(base: EvalConfig, args, report: dict) -> None:
    """Wall time of one warm sample with and without the strict anti-cheat checks."""
    report["strict_overhead"] = []
    for spec, cand in CASES[base.device][1:3] if base.device == "cuda" else CASES["cpu"]:
        task, code = task_for(spec), cand.read_text()
        evaluate(task, code, base)  # warm the build cache
        times = {}
        for strict in (True, False):
            t0 = time.monotonic()
            v = evaluate(task, code, dataclasses.replace(base, strict=strict))
            times[strict] = (time.monotonic() - t0, v.status.value)
        r = {
            "candidate": cand.name,
            "strict_s": times[True][0],
            "no_strict_s": times[False][0],
            "strict_verdict": times[True][1],
            "no_strict_verdict": times[False][1],
        }
        report["strict_overhead"].append(r)
        print(
            f"strict {r['strict_s']:.2f} s vs no-strict {r['no_strict_s']:.2f} s per sample ({cand.name}, "
            f"{r['strict_verdict']}/{r['no_strict_verdict']})",
            flush=True,
        )


def phases(base: EvalConfig, args, report: dict) -> None:
    """Per-sample wall time split by phase (child start, reference, compile, correctness, timing,
    profiler), cold then warm build cache."""
    report["cold"], report["warm"] = [], []
    for spec, cand in CASES[base.device]:
        task, code = task_for(spec), cand.read_text()
        for phase in ("cold", "warm"):
            report[phase].append({"candidate": cand.name, **row(evaluate(task, code, base))})
    cols = (
        "startup_s",
        "setup_s",
        "reference_s",
        "compile_s",
        "correctness_s",
        "timing_s",
        "profile_s",
        "lock_wait_s",
        "alone_s",
        "total_s",
    )
    print(
        f"{'phase':<6} {'candidate':<28} {'verdict':<8} "
        + " ".join(f"{c:>13}" for c in cols)
        + f" {'speedup':>8}"
    )
    for phase in ("cold", "warm"):
        for r in report[phase]:
            sp = f"{r['speedup']:.3f}" if r["speedup"] else "-"
            print(
                f"{phase:<6} {r['candidate']:<28} {r['verdict']:<8} "
                + " ".join(f"{r[c]:>13.2f}" for c in cols)
                + f" {sp:>8}",
                flush=True,
            )


STARTUP_CASES = {  # samples that start no build child, so start-up is the execution child's alone
    "cuda": ("level1/gelu_tanh_fp32.py", HONEST / "triton_gelu_tanh.py"),
    "cpu": (str(DATA / "suite" / "level1" / "scale_shift.py"), DATA / "candidates" / "torch_correct.py"),
}


def startup(base: EvalConfig, args, report: dict) -> None:
    """Per-sample child start-up (the verdict's `startup_s`: the child's wall time its own clock did
    not see: process start, imports, confinement, reading the job), spawned as `python -m
    benchmark.evaluate.worker` against forked from the warm zygote: the same sample `--repeats` times each
    way, alternating, after one unmeasured sample each way; and the zygote's own start, paid once."""
    from benchmark.evaluate import sandbox
    from benchmark.evaluate.zygote import Zygote

    fresh = Zygote(sandbox.scrubbed_env)
    t0 = time.monotonic()
    started = fresh.ready()
    zygote_start_s = time.monotonic() - t0
    if fresh.pid is not None:
        os.kill(fresh.pid, signal.SIGKILL)
    spec, cand = STARTUP_CASES[base.device]
    task, code = task_for(spec), cand.read_text()
    config = dataclasses.replace(base, strict=False, measure=False)
    runs: dict[str, list] = {"spawn": [], "zygote": []}
    for k in range(args.repeats + 1):
        for way in runs:
            os.environ[sandbox.ZYGOTE_SWITCH] = "1" if way == "zygote" else "0"
            v = evaluate(task, code, config)
            if k:
                runs[way].append(
                    {"startup_s": v.phases.startup_s, "total_s": v.phases.total_s, "verdict": v.status.value}
                )
    os.environ.pop(sandbox.ZYGOTE_SWITCH)
    med = {
        w: {c: statistics.median(r[c] for r in rows) for c in ("startup_s", "total_s")}
        for w, rows in runs.items()
    }
    report["startup"] = {
        "candidate": cand.name,
        "zygote_start_s": zygote_start_s if started else None,
        "zygote_served": sandbox.ZYGOTE.pid is not None,
        "median": med,
        "runs": runs,
    }
    print(
        f"zygote start (once per process): {zygote_start_s:.2f} s" + ("" if started else " (failed)"),
        flush=True,
    )
    for way in runs:
        each = ", ".join(f"{r['startup_s']:.3f}" for r in runs[way])
        print(
            f"{way:<7} start-up median {med[way]['startup_s']:.3f} s ({each}), sample {med[way]['total_s']:.3f} s",
            flush=True,
        )
    print(
        f"start-up spawn / zygote: {med['spawn']['startup_s'] / max(med['zygote']['startup_s'], 1e-6):.1f}x; "
        f"sample {med['spawn']['total_s'] / max(med['zygote']['total_s'], 1e-6):.2f}x",
        flush=True,
    )


# The reference against itself where the whole suite's run (2026-12-07, H100) held the device alone
# longest for its many timed rounds (host-bound: loops of small kernels), and where it read beyond the
# noise (fast_1 0.022 where 0 is expected).
SPIN_TASKS = (
    "level3/selective_scan_loop_fp32.py",
    "level3/gru_cell_unrolled_bf16.py",
    "level3/moe_shared_expert_swiglu_bf16.py",
    "level3/diagonal_linear_recurrence_loop_fp32.py",
    "level3/moe_top2_expert_loop_fp32.py",
    "level3/gru_bidirectional_fp32.py",
    "level1/groupnorm_backward_fp32.py",
    "level1/layernorm_no_affine_backward_fp16.py",
    "level1/embedding_fp32.py",
    "level1/mean_keepdim_fp16.py",
)


def spin(base: EvalConfig, args, report: dict, save=lambda: None) -> None:
    """SPIN_TASKS' references against themselves through the Verifier's pool at `benchmark.run`'s lanes,
    under each of `--spins` in turn, `--repeats` rounds of arms: per arm the device time held alone,
    timed rounds, drift tries and |log speedup|; each task's speedups in every run; and each arm's
    total time alone over the first arm's, with a bootstrap interval over the tasks."""
    import math

    from benchmark.models.reference import reference_candidate
    from benchmark.runner import default_lanes
    from benchmark.stats import bootstrap_interval, resample_weights
    from benchmark.verify.verifier import Verifier, VerifierConfig

    tasks = [task_for(t) for t in SPIN_TASKS]
    rows: dict[float, list[dict]] = {s: [] for s in args.spins}
    report["spin"] = {"tasks": list(SPIN_TASKS), "arms": {str(s): rows[s] for s in args.spins}}
    for r in range(args.repeats):
        for spin_ms in args.spins if r % 2 == 0 else list(reversed(args.spins)):
            config = dataclasses.replace(base, timing=dataclasses.replace(base.timing, spin_ms=spin_ms))
            lanes = default_lanes(base.device, 1)  # as `benchmark.run` on one GPU: 8 on 16 cores
            with Verifier(VerifierConfig(eval=config, lanes_per_device=lanes)) as verifier:
                futures = [  # trusted, as `--model reference`: the rule against ModelNew = Model is off
                    verifier.submit(t, reference_candidate(t.source), sample=r, trusted=True) for t in tasks
                ]
                verdicts = [f.result() for f in futures]
            for v in verdicts:
                rows[spin_ms].append(
                    {
                        **row(v),
                        "repeat": r,
                        "tries": int(v.env.get("timing_tries", "1")),
                        "neighbour_wait": v.env.get("neighbour_wait"),
                    }
                )
            print(
                f"spin {spin_ms} ms, repeat {r}: " + speedup_list(verdicts) + failures(verdicts), flush=True
            )
            save()
    print(f"{'spin ms':>8} {'alone s':>8} {'rounds p50':>10} {'tries > 1':>9} {'|log speedup| p50':>17}")
    for spin_ms, arm in rows.items():
        distance = [abs(math.log(x["speedup"])) for x in arm if x["speedup"]]
        print(
            f"{spin_ms:8g} {sum(x['alone_s'] for x in arm):8.1f} "
            f"{statistics.median(x['rounds'] or 0 for x in arm):10g} {sum(x['tries'] > 1 for x in arm):9d} "
            f"{statistics.median(distance) if distance else float('nan'):17.4f}"
        )
    for t in tasks:  # one sign in every run: an offset of the task's (the processes differ); mixed: noise
        runs = [
            f"{x['speedup']:.3f}" if x["speedup"] else "-"
            for a in rows.values()
            for x in a
            if x["task"] == t.task_id
        ]
        print(f"  {t.task_id}: {', '.join(runs)}", flush=True)
    first = args.spins[0]
    weights = resample_weights(len(tasks))
    per_task = {
        s: [sum(x["alone_s"] for x in rows[s] if x["task"] == t.task_id) for t in tasks] for s in args.spins
    }
    for spin_ms in args.spins[1:]:
        interval = bootstrap_interval(
            [per_task[first], per_task[spin_ms]], lambda sums: sums[1] / sums[0] if sums[0] else None, weights
        )
        ratio = sum(per_task[spin_ms]) / sum(per_task[first]) if sum(per_task[first]) else None
        report["spin"][f"alone_{spin_ms}_over_{first}"] = [ratio, interval.to_list() if interval else None]
        if ratio is None:  # no time held alone (no device lock: the CPU)
            print(f"time alone, spin {spin_ms} over {first} ms: n/a (no time alone in the first arm)")
            continue
        print(
            f"time alone, spin {spin_ms} over {first} ms: {ratio:.3f}"
            + (f" [{interval.lo:.3f}, {interval.hi:.3f}]" if interval else "")
            + " (95% bootstrap over tasks)",
            flush=True,
        )


if __name__ == "__main__":
    main()
