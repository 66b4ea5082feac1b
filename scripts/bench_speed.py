"""The speed figures of the harness, side by side, in one budgeted call (the `speed` GPU stage):

  suite        the built-in suite through `benchmark.run --model reference`, one sample per task: its
               wall time, measured or (a seeded sample per level) extrapolated (bench_suite.py)
  a, b, c      bench_verifier.py's mixes: Triton and raw CUDA; cold load_inline only; KernelBench-like.
               Verified per GPU-hour, p50/p95 latency, verdicts identical to benchmark.check's
  kernelbench  KernelBench's own evaluator (kernelbench_eval.py) on a seeded subset of mix b's
               candidates, cold and cached: their time per sample over ours, with a bootstrap interval

    python scripts/bench_speed.py --budget-s 495 --out $OUT/speed
    python scripts/bench_speed.py --device cpu --tiny --out /tmp/speed      # the CPU self-check

Each part runs in its own process under its share of the budget (what a part leaves unused goes to
the ones after it) and writes its JSON as soon as it has results, so a part that fails or is cut
costs the others nothing. The mixes share one fresh --variant written into every kernel, so every
build is cold, and KernelBench sees the very sources mix b measured. At the end the goals are
printed with their measured values and PASS or MISS (compact: the GPU tool returns the last
lines), and everything is in OUT/speed.json and OUT/speed.md; each part's log is in OUT/logs."""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
GOALS = {
    "suite_s": 600.0,
    "a_per_hour": 3600.0,
    "b_per_hour": 1400.0,
    "cold_ratio": 20.0,
    "cached_ratio": 5.0,
}


@dataclass(frozen=True)
class Part:
    name: str
    weight: float  # its share of the budget, of what is left when it starts
    what: str


PARTS = (  # weights, about seconds of the default call; at the goals each pool arm ends inside its share
    Part("suite", 75, "built-in suite, benchmark.run --model reference"),
    Part("a", 80, "mix a: Triton and raw CUDA"),
    Part("b", 145, "mix b: cold load_inline only"),
    Part("c", 90, "mix c: KernelBench-like"),
    Part("kernelbench", 115, "KernelBench's evaluator on mix b's candidates"),
)


@dataclass(frozen=True)
class Options:
    out: Path
    device: str = "cuda"
    tiny: bool = False
    variant: str = ""
    seed: int = 0
    suite_fraction: float = 0.05
    lanes: int = 8  # benchmark.run's default on 16 cores
    build_workers: int = 14
    check_concurrency: int = 8
    limits: tuple[tuple[str, int], ...] = (
        ("a", 30),
        ("b", 28),
        ("c", 12),
    )  # candidates per mix: seeded subsets
    kb_root: Path = ROOT / ".kb"
    kb_wheels: Path = ROOT / ".whl" / "kernelbench"
    kb_site: Path | None = None  # their missing dependencies, installed already (else from kb_wheels)
    kb_count: int = 3
    kb_concurrency: int = 3


def command(part: str, o: Options, budget_s: float) -> list[str] | None:
    """The part's command line, with its budget (less the margin it needs to stop and write)."""
    py = sys.executable
    tiny = ["--tiny"] if o.tiny else []
    if part == "suite":
        fraction = 1.0 if o.tiny else o.suite_fraction
        return [
            py,
            str(SCRIPTS / "bench_suite.py"),
            "--device",
            o.device,
            "--fraction",
            str(fraction),
            "--seed",
            str(o.seed),
            "--budget-s",
            f"{max(5.0, budget_s - 25):.0f}",
            "--out",
            str(o.out / "suite"),
            *tiny,
        ]
    if part in ("a", "b", "c"):
        limit = dict(o.limits).get(part)
        return [
            py,
            str(SCRIPTS / "bench_verifier.py"),
            "--mix",
            part,
            "--device",
            o.device,
            "--variant",
            o.variant,
            "--lanes",
            str(o.lanes),
            "--build-workers",
            str(o.build_workers),
            "--check-concurrency",
            str(o.check_concurrency),
            "--budget-s",
            f"{max(5.0, budget_s - 10):.0f}",
            "--seed",
            str(o.seed),
            *(["--limit", str(limit)] if limit and not o.tiny else []),
            "--out",
            str(o.out / "verifier"),
            *tiny,
        ]
    if part == "kernelbench":
        site = o.kb_site or install_site(o.kb_wheels)
        limit = dict(o.limits).get("b")
        return [
            py,
            str(SCRIPTS / "kernelbench_eval.py"),
            "run",
            "--kernelbench",
            str(o.kb_root),
            "--mix",
            "b",
            *(["--limit", str(limit)] if limit and not o.tiny else []),
            "--variant",
            o.variant,
            "--count",
            str(o.kb_count),
            "--concurrency",
            str(o.kb_concurrency),
            "--seed",
            str(o.seed),
            "--budget-s",
            f"{max(5.0, budget_s - 10):.0f}",
            "--device",
            o.device,
            *(["--site", str(site)] if site else []),
            "--out",
            str(o.out / "kernelbench"),
            *tiny,
        ]
    raise ValueError(part)


def install_site(wheels: Path) -> Path | None:
    """KernelBench's dependencies the image lacks, installed from carried wheels into a folder of their
    own (only KernelBench's processes see it)."""
    found = sorted(wheels.glob("*.whl")) if wheels.is_dir() else []
    if not found:
        return None
    site = Path(tempfile.mkdtemp(prefix="kernelbench-site-"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--no-compile",
            "--no-cache-dir",
            "--target",
            str(site),
            *map(str, found),
        ],
        check=True,
    )
    return site


def run_part(part: Part, o: Options, budget_s: float, kill_at: float) -> dict:
    """The part in its own process group, killed at its budget plus a grace to write what it has, and
    never after `kill_at` (monotonic seconds: the call's own end, less the time the table needs)."""
    log = o.out / "logs" / f"{part.name}.log"
    t0 = time.monotonic()
    try:
        cmd = command(part.name, o, budget_s)
    except (subprocess.CalledProcessError, OSError) as e:
        return {"part": part.name, "rc": None, "wall_s": 0.0, "error": f"could not prepare: {e}"}
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=max(1.0, min(budget_s + 15, kill_at - time.monotonic())))
        except subprocess.TimeoutExpired:
            from bench_verifier import stop_descendants  # rare: then the harness's import costs nothing

            stop_descendants(proc.pid)  # its sandboxed children and their compilers, in sessions of their own
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
    return {
        "part": part.name,
        "rc": rc,
        "wall_s": round(time.monotonic() - t0, 1),
        "budget_s": round(budget_s, 1),
    }


# ---------------------------------------------------------------------------------------- the report


def load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def ratio(
    theirs: list[float], ours_wall_s: float, ours_own: list[float], resamples: int = 4000, seed: int = 0
) -> dict | None:
    """Their mean time per sample over ours (our arm's wall time over its verdicts), with a bootstrap
    interval: their samples resampled, and ours through our verdicts' own times (a resampled set of
    our candidates costs the arm's wall time in proportion to their own build and run time)."""
    if not theirs or not ours_own or ours_wall_s <= 0:
        return None
    ours = ours_wall_s / len(ours_own)
    rng = random.Random(seed)
    boots = sorted(
        mean(rng.choices(theirs, k=len(theirs)))
        / (ours * mean(rng.choices(ours_own, k=len(ours_own))) / mean(ours_own))
        for _ in range(resamples)
    )
    return {
        "theirs_s": mean(theirs),
        "ours_s": ours,
        "ratio": mean(theirs) / ours,
        "n_theirs": len(theirs),
        "n_ours": len(ours_own),
        "interval": [boots[int(0.025 * resamples)], boots[int(0.975 * resamples) - 1]],
    }


def verdict_of(ok: bool | None) -> str:
    return "-" if ok is None else ("PASS" if ok else "MISS")


def summarize(out: Path, runs: list[dict], o: Options) -> dict:
    """Every figure and goal from the parts' JSON files; a part with no file is `not measured`."""
    s: dict = {"variant": o.variant, "device": o.device, "tiny": o.tiny, "parts": runs, "goals": GOALS}
    suite = load(out / "suite" / "suite.json")
    if suite:
        full = suite["full_suite"]
        s["suite"] = {
            k: suite[k]
            for k in (
                "suite_tasks",
                "sampled",
                "done",
                "wall_s",
                "cut",
                "tasks_per_s",
                "statuses",
                "fraction",
                "seed",
            )
        } | {"full_suite": full}
        s["suite"]["pass"] = None if full["full_s"] is None else full["full_s"] < GOALS["suite_s"]
    for mix in ("a", "b", "c"):
        m = load(out / "verifier" / f"mix-{mix}.json")
        if not m:
            continue
        entry = {
            "description": m["description"],
            "candidates": m["candidates"],
            "identical": m["identical"],
            "expected": m["expected"],
            "arms": {k: {x: v for x, v in a.items() if x != "rows"} for k, a in m["arms"].items()},
        }
        ident = m["identical"]
        entry["identical_pass"] = (
            ident["checked"] == ident["candidates"] and ident["same"] == ident["checked"]
        )
        goal = GOALS.get(f"{mix}_per_hour")
        pool = m["arms"].get("pool")
        entry["goal_per_hour"] = goal
        entry["rate_pass"] = (pool["per_gpu_hour"] >= goal) if (goal and pool) else None
        s[f"mix_{mix}"] = entry
    kb, b = load(out / "kernelbench" / "kernelbench.json"), load(out / "verifier" / "mix-b.json")
    if kb:
        s["kernelbench"] = {"commit": kb["kernelbench_commit"], "settings": kb["settings"], "modes": {}}
        for mode, arm in (("cold", "pool"), ("cached", "warm")):
            entry = kb["modes"].get(mode)
            if not entry:
                continue
            counted = [x for x in entry["samples"] if x["verdict"] not in ("timeout", "crashed")]
            rows = (b or {}).get("arms", {}).get(arm, {}).get("rows", {})
            ours_arm = (b or {}).get("arms", {}).get(arm)
            r = (
                ratio(
                    [x["wall_s"] for x in counted],
                    ours_arm["wall_s"] if ours_arm else 0.0,
                    [x["own_s"] for x in rows.values()],
                    seed=o.seed,
                )
                if ours_arm
                else None
            )
            agree = [x["verdict"] == rows[x["name"]]["status"] for x in entry["samples"] if x["name"] in rows]
            goal = GOALS[f"{mode}_ratio"]
            s["kernelbench"]["modes"][mode] = {
                "samples": len(entry["samples"]),
                "counted": len(counted),
                "concurrency": entry["concurrency"],
                "not_reached": entry["not_reached"],
                "our_arm": arm,
                "ratio": r,
                "goal": goal,
                "pass": None if r is None else r["ratio"] >= goal,
                "agree_with_ours": f"{sum(agree)}/{len(agree)}",
                "their_verdicts": {x["name"]: x["verdict"] for x in entry["samples"]},
            }
    return s


def table(s: dict) -> str:
    """The compact side-by-side table (at most about 20 lines)."""

    def f(x, spec=".1f", unit=""):
        return "-" if x is None else f"{x:{spec}}{unit}"

    tiny = " (CPU self-check: tiny stand-ins, goals do not apply)" if s["tiny"] else ""
    parts = " ".join(f"{r['part']}:rc={r['rc']}/{r['wall_s']:.0f}s" for r in s["parts"])
    lines = [f"== speed, {s['device']}, variant {s['variant']}{tiny}", f"parts {parts}"]
    u = s.get("suite")
    if u:
        full = u["full_suite"]
        how = (
            "measured"
            if full.get("how") == "measured"
            else (f"extrapolated: seeded {u['fraction']:.0%} per level" + (", run cut" if u["cut"] else ""))
        )
        ci = f" [{full['interval_s'][0]:.0f}, {full['interval_s'][1]:.0f}]" if full.get("interval_s") else ""
        lines.append(
            f"(1) suite: {u['done']} of {u['sampled']} tasks run ({u['suite_tasks']} in the suite) in "
            f"{u['wall_s']:.0f} s = {u['tasks_per_s']:.3f} tasks/s, statuses {u['statuses']}"
        )
        lines.append(
            f"    whole suite {f(full['full_s'], '.0f', ' s')}{ci} ({how})   goal < {GOALS['suite_s']:.0f} s "
            f"{verdict_of(u['pass'])}"
        )
    else:
        lines.append("(1) suite: not measured (see logs/suite.log)")
    lines.append("(2) mix  arm    done   per GPU-h  lat p50/p95 s  own p50/p95 s   goal")
    for mix in ("a", "b", "c"):
        m = s.get(f"mix_{mix}")
        if not m:
            lines.append(f"    {mix}    not measured (see logs/{mix}.log)")
            continue
        for name, arm in m["arms"].items():
            goal = ""
            if name == "pool" and m["goal_per_hour"]:
                goal = f">= {m['goal_per_hour']:.0f}/h {verdict_of(m['rate_pass'])}"
            lines.append(
                f"    {mix if name == 'pool' else ' '}    {name:<6} {arm['done']:>2}/{arm['candidates']:<2}"
                f"{'*' if arm['cut'] else ' '} {arm['per_gpu_hour']:>8.0f}   "
                f"{f(arm['latency_p50_s']):>5}/{f(arm['latency_p95_s']):<5}    "
                f"{f(arm['own_p50_s']):>5}/{f(arm['own_p95_s']):<5}    {goal}"
            )
        i, e = m["identical"], m["expected"]
        lines.append(
            f"         verdicts = benchmark.check: {i['same']}/{i['checked']} checked of {i['candidates']} "
            f"{verdict_of(m['identical_pass'])}; as expected {e['right']}/{e['judged']}"
        )
    k = s.get("kernelbench")
    if k:
        st = k["settings"]
        lines.append(
            f"(3) KernelBench {k['commit'][:7]} eval_kernel_against_ref, a fresh process per sample, "
            f"{st['num_correct_trials']}+{st['num_perf_trials']} trials"
        )
        for mode, m in k["modes"].items():
            r = m["ratio"]
            if r:
                value = (
                    f"theirs {r['theirs_s']:.1f} s/sample (n={r['n_theirs']}, {m['concurrency']} at a time) / "
                    f"ours {r['ours_s']:.2f} (mix b {m['our_arm']}) = {r['ratio']:.1f}x "
                    f"[{r['interval'][0]:.1f}, {r['interval'][1]:.1f}]"
                )
            else:
                value = f"no ratio ({m['counted']} of {m['samples']} of theirs counted, not reached {len(m['not_reached'])})"
            lines.append(
                f"    {mode:<6} {value}  goal >= {m['goal']:.0f}x {verdict_of(m['pass'])}; "
                f"verdicts agree {m['agree_with_ours']}"
            )
    else:
        lines.append("(3) KernelBench: not measured (see logs/kernelbench.log)")
    lines.append("* an arm cut by its budget: its rate counts what finished in it")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("runs/speed"))
    p.add_argument(
        "--budget-s",
        type=float,
        default=495.0,
        help="the whole call, shared by the parts (it ends at most 8 s later)",
    )
    p.add_argument("--parts", nargs="+", default=[x.name for x in PARTS], choices=[x.name for x in PARTS])
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--variant", default=None, help="written into every kernel (default: a fresh random one)")
    p.add_argument("--seed", type=int, default=0, help="seeds every sample and order")
    p.add_argument(
        "--suite-fraction", type=float, default=0.05, help="share of each level the suite part runs"
    )
    p.add_argument("--check-concurrency", type=int, default=8, help="benchmark.check calls at a time")
    p.add_argument("--kernelbench", type=Path, default=ROOT / ".kb", help="KernelBench checkout (.kb)")
    p.add_argument(
        "--kb-site",
        type=Path,
        default=None,
        help="KernelBench's missing dependencies, installed (default: from .whl/kernelbench)",
    )
    p.add_argument("--tiny", action="store_true", help="CPU self-check: every part on tiny stand-ins")
    args = p.parse_args(argv)
    for sub in ("logs", "suite", "verifier", "kernelbench"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
    small = {"lanes": 2, "build_workers": 2, "check_concurrency": 2} if args.tiny else {}
    o = Options(
        out=args.out,
        device=args.device,
        tiny=args.tiny,
        variant=args.variant or secrets.token_hex(4),
        seed=args.seed,
        suite_fraction=args.suite_fraction,
        kb_root=args.kernelbench,
        kb_site=args.kb_site,
        **{"check_concurrency": args.check_concurrency, **small},
    )
    chosen = [x for x in PARTS if x.name in args.parts]
    deadline = time.monotonic() + args.budget_s
    runs = []
    for i, part in enumerate(chosen):
        left = deadline - time.monotonic()
        budget = left * part.weight / sum(x.weight for x in chosen[i:])
        print(f"-- {part.name}: {part.what} (budget {budget:.0f} s)", flush=True)
        runs.append(run_part(part, o, budget, kill_at=deadline + 8))
        print(f"   rc={runs[-1]['rc']} in {runs[-1]['wall_s']:.0f} s", flush=True)
        summary = summarize(args.out, runs, o)
        (args.out / "speed.json").write_text(json.dumps(summary, indent=1))
    text = table(summarize(args.out, runs, o))
    (args.out / "speed.md").write_text(text + "\n")
    (args.out / "options.json").write_text(json.dumps(asdict(o), indent=1, default=str))
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
