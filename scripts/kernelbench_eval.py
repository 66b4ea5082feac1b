"""KernelBench's own evaluator, from its public repository and unchanged, on SOLBench's candidates for
SOLBench's tasks (KernelBench-format files), timed per sample: the figure our verifier's speed is
compared with. Nothing of KernelBench is copied into this repository: its files live in a checkout
(`.kb`, git-ignored; `fetch` fills it from a mirror at the commit in .kb/COMMIT, by default the one every
figure so far was measured with, PINNED_COMMIT).

    python scripts/kernelbench_eval.py fetch --mirror PATH/TO/KernelBench.git --into .kb
    python scripts/kernelbench_eval.py run --kernelbench .kb --mix b --variant V --count 3 --out OUT

`run` calls `kernelbench.eval.eval_kernel_against_ref` the way scripts/eval_from_generations.py does
(its defaults: 5 correctness trials, 100 timing trials with CUDA events, fp32, a build folder per
sample, one fresh process per sample, 180 s each), on a seeded `--count` of the candidates of our
mix (bench_verifier.py's, the same sources for the same --variant). Modes: `cold` (an empty build
folder per sample, --concurrency at a time) then `cached` (the same folders again, one at a time:
their build is found and loaded). A sample's time is its process's whole life, as in their script.

The machine image lacks some of KernelBench's imports. Its evaluator needs pydantic (carried as
wheels, --site); `kernelbench.utils`, which the package and the evaluator import, also imports the
LLM clients `openai` and `litellm` at the top for its prompting helpers (litellm's wheel alone is
44 MB, over what a run can carry). Where one of those two is not installed, the child registers a
placeholder module of that name whose names raise if called; the evaluator calls neither, and every
file of KernelBench runs unchanged. `--device cpu --tiny` checks the driver on a CPU machine (their
evaluator asserts CUDA; the assertion is what is recorded)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import types
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve()
EVALUATOR_FILES = (
    "src/kernelbench/__init__.py",
    "src/kernelbench/eval.py",
    "src/kernelbench/timing.py",
    "src/kernelbench/dataset.py",
    "src/kernelbench/utils.py",
)
PINNED_COMMIT = "423217d"  # KernelBench's commit of every comparison in dev/LOG.md
ABSENT_CLIENTS = {"openai": ("OpenAI",), "litellm": ("completion",)}
# scripts/eval_from_generations.py's EvalConfig defaults, and run_and_check's architecture for an H200
SETTINGS = {
    "num_correct_trials": 5,
    "num_perf_trials": 100,
    "measure_performance": True,
    "timing_method": "cuda_event",
    "verbose": False,
    "precision": "fp32",
    "timeout_s": 180.0,
}


@dataclass
class Sample:
    """One candidate through their evaluator in one process."""

    name: str
    expected: str  # our verdict it should get
    mode: str
    build_dir: str
    wall_s: float = 0.0  # the process's whole life
    import_s: float | None = None  # importing kernelbench.eval (torch included)
    eval_s: float | None = None  # the eval_kernel_against_ref call
    verdict: str = ""  # their result read as one of our statuses
    compiled: bool | None = None
    correctness: bool | None = None
    runtime: float | None = None  # their timing's mean, as their result gives it
    ref_runtime: float | None = None
    error: str = ""
    returncode: int | None = None
    placeholders: str = ""  # the clients that were placeholders in its process


def fetch(mirror: Path, into: Path, commit: str | None = None) -> list[str]:
    """Write KernelBench's evaluator files, unchanged, from a bare mirror at `commit` (default: the one
    in INTO/COMMIT, else PINNED_COMMIT), and its full hash to INTO/COMMIT."""
    if commit is None:
        commit = (into / "COMMIT").read_text().strip() if (into / "COMMIT").is_file() else PINNED_COMMIT
    found = subprocess.run(
        ["git", "--git-dir", str(mirror), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        raise SystemExit(f"error: {mirror} has no commit {commit} (a bare clone of KernelBench is needed)")
    commit = found.stdout.strip()
    into.mkdir(parents=True, exist_ok=True)
    (into / "COMMIT").write_text(commit + "\n")
    written = []
    for rel in EVALUATOR_FILES:
        text = subprocess.run(
            ["git", "--git-dir", str(mirror), "show", f"{commit}:{rel}"], check=True, capture_output=True
        ).stdout
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        (into / rel).write_bytes(text)
        written.append(rel)
    return written


# ------------------------------------------------------------------------------------------ the child


def _absent(qualname: str):
    def call(*_args, **_kwargs):
        raise RuntimeError(f"{qualname} is a placeholder: the package is not installed here")

    return call


def placeholders() -> list[str]:
    """Register placeholder modules for the LLM clients that are not installed (see the module docstring)."""
    made = []
    for name, attrs in ABSENT_CLIENTS.items():
        if importlib.util.find_spec(name) is not None:
            continue
        module = types.ModuleType(name, f"placeholder for {name}, not installed here (kernelbench_eval.py)")
        for attr in attrs:
            setattr(module, attr, _absent(f"{name}.{attr}"))
        sys.modules[name] = module
        made.append(name)
    return made


def plain(result) -> dict | None:
    """Their KernelExecResult (a pydantic model whose metadata may hold exceptions) as JSON-able data."""
    if result is None:
        return None
    data = result.model_dump() if hasattr(result, "model_dump") else dict(vars(result))
    return json.loads(json.dumps(data, default=repr))


def one(job_path: Path) -> int:
    """Evaluate one sample in this process, as their script's per-sample worker does."""
    job = json.loads(job_path.read_text())
    out: dict = {"placeholders": placeholders()}
    t0 = time.monotonic()
    import torch
    from kernelbench import eval as kernel_eval  # timed: importing it is part of their per-sample cost

    out["import_s"] = time.monotonic() - t0
    s = job["settings"]
    t1 = time.monotonic()
    try:
        result = kernel_eval.eval_kernel_against_ref(
            original_model_src=Path(job["task"]).read_text(),
            custom_model_src=Path(job["code"]).read_text(),
            measure_performance=s["measure_performance"],
            timing_method=s["timing_method"],
            verbose=s["verbose"],
            num_correct_trials=s["num_correct_trials"],
            num_perf_trials=s["num_perf_trials"],
            build_dir=job["build_dir"],
            device=torch.device("cuda:0"),
            backend=job["backend"],
            precision=kernel_eval.get_torch_dtype_from_string(s["precision"]),
        )
        out.update(result=plain(result), exception=None)
    except Exception as e:  # noqa: BLE001 - their script's last-level catch records it the same way
        out.update(result=None, exception=f"{type(e).__name__}: {e}"[:500])
    out["eval_s"] = time.monotonic() - t1
    Path(job["result"]).write_text(json.dumps(out))
    return 0


# ----------------------------------------------------------------------------------------- the parent


def their_verdict(result: dict | None, exception: str | None) -> tuple[str, str]:
    """Their outcome in our vocabulary, and its error text."""
    if result is None:
        return (
            ("runtime_error", exception) if exception else ("no_result", "returned None (a build-lock error)")
        )
    meta = result.get("metadata") or {}
    error = next(
        (str(meta[k]) for k in ("compilation_error", "runtime_error", "correctness_issue") if k in meta), ""
    )
    if not result.get("compiled"):
        return "compile_error", error
    if not result.get("correctness"):
        return ("runtime_error" if "runtime_error" in meta else "incorrect"), error
    return "pass", ""


def evaluate_sample(
    sample: Sample, task: Path, code: str, backend: str, kb_src: Path, env: dict, work: Path, timeout_s: float
) -> Sample:
    """One fresh process through their evaluator; the sample's fields are filled in."""
    stem = f"{sample.mode}-{sample.name}"
    (work / f"{stem}.py").write_text(code)
    job = {
        "task": str(task),
        "code": str(work / f"{stem}.py"),
        "backend": backend,
        "build_dir": sample.build_dir,
        "settings": SETTINGS,
        "result": str(work / f"{stem}.result.json"),
    }
    (work / f"{stem}.job.json").write_text(json.dumps(job))
    t0 = time.monotonic()
    with open(work / f"{stem}.log", "w") as log:
        proc = subprocess.Popen(
            [sys.executable, str(HERE), "one", str(work / f"{stem}.job.json")],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            sample.returncode = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            sample.returncode = proc.wait()
            sample.verdict, sample.error = "timeout", f"killed after {timeout_s:.0f} s"
    sample.wall_s = time.monotonic() - t0
    result_path = Path(job["result"])
    if result_path.is_file():
        r = json.loads(result_path.read_text())
        sample.import_s, sample.eval_s = r.get("import_s"), r.get("eval_s")
        sample.placeholders = ",".join(r.get("placeholders", []))
        res = r.get("result")
        sample.verdict, sample.error = their_verdict(res, r.get("exception"))
        if res:
            sample.compiled, sample.correctness = res.get("compiled"), res.get("correctness")
            sample.runtime = res.get("runtime") if (res.get("runtime") or -1) > 0 else None
            sample.ref_runtime = res.get("ref_runtime") if (res.get("ref_runtime") or -1) > 0 else None
    elif not sample.verdict:
        tail = (work / f"{stem}.log").read_text().strip().splitlines()[-3:]
        sample.verdict, sample.error = "crashed", f"exit {sample.returncode}: " + " | ".join(tail)[:400]
    sample.error = (sample.error or "")[:400]
    return sample


def candidates(
    mix: str, variant: str, count: int, seed: int, tiny: bool, limit: int | None = None
) -> list[tuple[str, str, str, Path, str]]:
    """A seeded `count` of bench_verifier's mix, drawn from the subset it measures with the same --limit
    and --seed: (name, expected, code, task file, their backend)."""
    from bench_verifier import mix_items, proportional  # here, so the child imports nothing of the harness

    items = proportional(mix_items(mix, variant, tiny), limit, seed)
    picked = random.Random(seed).sample(items, min(count, len(items)))
    return [
        (
            it.name,
            it.expected,
            it.request.code,
            it.request.task.path,
            "triton" if it.style == "triton" else "cuda",
        )
        for it in picked
    ]


def run(
    kb_root: Path,
    mix: str,
    variant: str,
    count: int,
    seed: int,
    tiny: bool,
    modes: list[str],
    concurrency: int,
    budget_s: float,
    site: Path | None,
    gpu_arch: str,
    out: Path,
    limit: int | None = None,
) -> dict:
    """Every mode over the same samples; the report is rewritten after each sample."""
    kb_src = (kb_root / "src").resolve()
    missing = [f for f in EVALUATOR_FILES if not (kb_root / f).is_file()]
    if missing:
        raise SystemExit(f"error: {kb_root} lacks KernelBench's {missing[0]} (run `fetch` first)")
    commit = (kb_root / "COMMIT").read_text().strip() if (kb_root / "COMMIT").is_file() else "unknown"
    picked = candidates(mix, variant, count, seed, tiny, limit)
    work = Path(tempfile.mkdtemp(prefix="kernelbench-eval-"))
    builds = work / "cache" / "solbench" / mix  # their kernel_eval_build_dir/run_name/problem/sample
    extra = [str(site)] if site else []
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(extra + [str(kb_src)]),
        "TORCH_CUDA_ARCH_LIST": gpu_arch,
    }
    report = {
        "kernelbench_commit": commit,
        "evaluator": "kernelbench.eval.eval_kernel_against_ref",
        "driver": "one fresh process per sample, as scripts/eval_from_generations.py",
        "settings": {**SETTINGS, "TORCH_CUDA_ARCH_LIST": gpu_arch},
        "mix": mix,
        "variant": variant,
        "tiny": tiny,
        "work": str(work),
        "modes": {},
    }
    lock = threading.Lock()
    deadline = time.monotonic() + budget_s

    def save() -> None:
        with lock:
            (out / "kernelbench.json").write_text(json.dumps(report, indent=1, default=str))

    for mode in modes:
        width = concurrency if mode == "cold" else 1
        samples = [
            Sample(name, expected, mode, str(builds / "1" / str(i)))
            for i, (name, expected, *_rest) in enumerate(picked)
        ]
        entry = {"concurrency": width, "samples": [], "not_reached": []}
        report["modes"][mode] = entry
        todo = list(zip(samples, picked, strict=True))

        def worker(entry=entry, todo=todo) -> None:
            while True:
                with lock:
                    if not todo:
                        return
                    sample, (_name, _exp, code, task, backend) = todo.pop(0)
                    if time.monotonic() > deadline:
                        entry["not_reached"].append(sample.name)
                        continue
                left = min(SETTINGS["timeout_s"], max(1.0, deadline - time.monotonic()))
                done = evaluate_sample(sample, task, code, backend, kb_src, env, work, left)
                with lock:
                    entry["samples"].append(asdict(done))
                save()
                print(
                    f"  {done.mode:<6} {done.name}: {done.wall_s:.1f} s, {done.verdict} (ours: {done.expected})"
                    f"{' ' + done.error.splitlines()[0][:120] if done.error else ''}",
                    flush=True,
                )

        t0 = time.monotonic()
        threads = [threading.Thread(target=worker, name=f"kb-{mode}-{i}") for i in range(width)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        entry["wall_s"] = time.monotonic() - t0
        save()
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="write KernelBench's evaluator files into a checkout from a bare mirror")
    f.add_argument("--mirror", type=Path, required=True, help="a bare git clone of KernelBench")
    f.add_argument(
        "--into", type=Path, default=Path(".kb"), help="the checkout (its COMMIT names the commit)"
    )
    f.add_argument(
        "--commit", help=f"the commit to write (default: INTO/COMMIT, else {PINNED_COMMIT}, the measured one)"
    )
    r = sub.add_parser("run", help="time their evaluator on a seeded subset of one of our mixes")
    r.add_argument("--kernelbench", type=Path, default=Path(".kb"), help="KernelBench checkout")
    r.add_argument("--mix", default="b", choices=("a", "b", "c", "all"), help="bench_verifier.py's mix")
    r.add_argument(
        "--variant", required=True, help="the mix's variant (the same sources as bench_verifier's)"
    )
    r.add_argument("--count", type=int, default=3, help="samples drawn from the mix")
    r.add_argument(
        "--limit", type=int, default=None, help="bench_verifier's --limit for the mix (the subset drawn from)"
    )
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--modes", nargs="+", default=["cold", "cached"], choices=("cold", "cached"))
    r.add_argument("--concurrency", type=int, default=1, help="cold samples at a time (cached: always 1)")
    r.add_argument(
        "--budget-s",
        type=float,
        default=float("inf"),
        help="no sample starts after this long, and one still running then is killed (a timeout)",
    )
    r.add_argument(
        "--site", type=Path, default=None, help="folder of their missing dependencies (pydantic...)"
    )
    r.add_argument("--gpu-arch", default="Hopper", help="their set_gpu_arch value (TORCH_CUDA_ARCH_LIST)")
    r.add_argument("--device", default="cuda", choices=("cuda", "cpu"), help="cpu only with --tiny")
    r.add_argument(
        "--tiny",
        action="store_true",
        help="CPU self-check on the mix's tiny stand-ins (their evaluator asserts CUDA: that is recorded)",
    )
    r.add_argument("--out", type=Path, default=Path("runs/kernelbench-eval"))
    o = sub.add_parser("one", help="(internal) evaluate one job file in this process")
    o.add_argument("job", type=Path)
    args = p.parse_args(argv)
    if args.command == "fetch":
        for rel in fetch(args.mirror, args.into, args.commit):
            print(f"wrote {args.into / rel}")
        return 0
    if args.command == "one":
        return one(args.job)
    if args.device == "cpu" and not args.tiny:
        raise SystemExit("error: their evaluator needs CUDA; --device cpu is only the --tiny self-check")
    args.out.mkdir(parents=True, exist_ok=True)
    report = run(
        args.kernelbench,
        args.mix,
        args.variant,
        args.count,
        args.seed,
        args.tiny,
        args.modes,
        args.concurrency,
        args.budget_s,
        args.site,
        args.gpu_arch,
        args.out,
        args.limit,
    )
    for mode, entry in report["modes"].items():
        walls = [s["wall_s"] for s in entry["samples"]]
        mean = f"{sum(walls) / len(walls):.1f} s per sample" if walls else "no sample"
        print(
            f"{mode}: {len(walls)} samples ({entry['concurrency']} at a time), {mean}; "
            f"not reached: {len(entry['not_reached'])}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
