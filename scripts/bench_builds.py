"""Cold build time per candidate style, the old compile route against the new, in one run (a script,
not a test; docs/verifier.md, "Builds").

    python scripts/bench_builds.py --device cpu                  # C++ load_inline only (no GPU)
    python scripts/bench_builds.py --device cuda --out $OUT/builds   # C++, CUDA load_inline, Triton, raw CUDA

Every build is of a source never built before (a fresh build cache per run, each source distinct), and
each old build runs at the same moment as a new one, in pairs, `--pairs` pairs at a time (default:
half the cores, one compiler each), so the load of the host falls on both. Routes:

- old: what the harness did before: load_inline compiles torch/extension.h in every main.cpp, and on
  CUDA the environment's TORCH_CUDA_ARCH_LIST, if it has one, wins over the GPU's own architecture;
- new: main.cpp from the shared precompiled header (benchmark.evaluate.candidate.HeaderRoute), made once per
  set of flags before the pairs (its cost is reported apart: a long run pays it once per set of
  flags), a .cu built from the lightest headers (candidate.lightest_cuda_call), failing that its
  torch/extension.h compiled as torch/types.h (candidate.lighter_cuda_sources), and the GPU's
  architecture alone (benchmark.evaluate.harness.child_env).

C++ and CUDA builds go through benchmark.evaluate.harness.build (a sandboxed build child with the GPU hidden,
MAX_JOBS=1 for both routes, as the verifier's default pool runs them, so the cores are never
oversubscribed); the time is the child's import and compile time. Triton and raw CUDA
(benchmark.cuda_raw) compile in the execution child and have no other route: they are timed the
same way on both sides, as a control (a fresh compiler cache per build, the first call's time). Per style: the median seconds of each route and
the median of the pairs' ratios new/old with the interval from the smallest to the largest ratio,
which holds the true median ratio with probability 1 - 2^(1-n) (sign test; 87.5% for n = 4).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchmark.evaluate.candidate import FAILED_MARK, PCH_DIR, PCH_FILE, SEEN_MARK, header_route
from benchmark.evaluate.harness import EvalConfig, build

ROOT = Path(__file__).resolve().parent.parent

ROUTES = ("old", "new")

CPP = '''import torch
from torch.utils.cpp_extension import load_inline

SOURCE = """
#include <torch/extension.h>
torch::Tensor scale_shift_{i}(torch::Tensor x) {{
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t j = 0; j < xc.numel(); ++j) out[j] = in[j] * 2.0f + {i}.0f;
    return y;
}}
"""
ext = load_inline(name="bench_cpp_{i}", cpp_sources=SOURCE, functions=["scale_shift_{i}"], extra_cflags=["-O3"])


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift_{i}(x)
'''

CUDA = '''import torch
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = """
#include <torch/extension.h>
#include <cuda_runtime.h>
__global__ void scale_shift_kernel_{i}(const float* x, float* y, int64_t n) {{
    int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j < n) y[j] = x[j] * 2.0f + {i}.0f;
}}
torch::Tensor scale_shift_{i}(torch::Tensor x) {{
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    scale_shift_kernel_{i}<<<(n + 255) / 256, 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}}
"""
CPP_SOURCE = "torch::Tensor scale_shift_{i}(torch::Tensor x);"
ext = load_inline(name="bench_cuda_{i}", cpp_sources=CPP_SOURCE, cuda_sources=CUDA_SOURCE,
                  functions=["scale_shift_{i}"], extra_cuda_cflags=["-O3"])


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift_{i}(x)
'''

TRITON = """import time, torch, triton, triton.language as tl


@triton.jit
def scale_shift_{i}(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + {i}.0, mask=mask)


x = torch.randn(4096, device="cuda")
y = torch.empty_like(x)
torch.cuda.synchronize()
t0 = time.monotonic()
scale_shift_{i}[(4,)](x, y, x.numel(), BLOCK=1024)
torch.cuda.synchronize()
print("SECONDS", time.monotonic() - t0)
"""

RAW = '''import time, torch
from benchmark.cuda_raw import compile_cuda

SOURCE = """
__global__ void scale_shift_{i}(const float* x, float* y, long long n) {{
    long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j < n) y[j] = x[j] * 2.0f + {i}.0f;
}}
"""
torch.cuda.init()
t0 = time.monotonic()
compile_cuda(SOURCE).kernel("scale_shift_{i}", "PPq")
print("SECONDS", time.monotonic() - t0)
'''

# What each style's load_inline call asks for, to find its header route (None: no load_inline).
CALLS = {
    "cpp": {"cpp_sources": "", "extra_cflags": ["-O3"]},
    "cuda": {"cpp_sources": "", "cuda_sources": "x", "extra_cuda_cflags": ["-O3"]},
    "triton": None,
    "raw_cuda": None,
}
TEMPLATES = {"cpp": CPP, "cuda": CUDA, "triton": TRITON, "raw_cuda": RAW}


@dataclass(frozen=True)
class Build:
    style: str
    route: str
    index: int
    seconds: float | None  # the child's import and compile time; None: it failed
    wall_s: float
    error: str | None = None


def config_for(route: str, device: str, cache: Path) -> tuple[EvalConfig, dict[str, str]]:
    """The harness's settings and the extra environment of one route's build children."""
    new = route == "new"
    config = EvalConfig(device=device, cache_dir=cache, precompiled_header=new, lighter_cuda_header=new)
    env = {"MAX_JOBS": "1"}
    inherited = os.environ.get("TORCH_CUDA_ARCH_LIST")
    if route == "old" and device == "cuda" and inherited:
        env["TORCH_CUDA_ARCH_LIST"] = inherited  # the old child_env let the environment's list win
    return config, env


def build_one(style: str, route: str, index: int, device: str, cache: Path) -> Build:
    """One cold build: through the harness's build child for load_inline styles, else in a child of
    its own with a fresh compiler cache, timing the compile alone."""
    code = TEMPLATES[style].format(i=index)
    if CALLS[style] is not None:
        config, env = config_for(route, device, cache)
        out = build(code, config, env)
        return Build(style, route, index, out.seconds if out.ok else None, out.wall_s, out.error)
    with tempfile.TemporaryDirectory(prefix=f"bench-{style}-") as tmp:
        path = Path(tmp) / f"{style}_{index}.py"
        path.write_text(code)
        path_before = os.environ.get("PYTHONPATH")
        env = {
            **os.environ,
            "TRITON_CACHE_DIR": str(Path(tmp) / "triton"),
            "SOLBENCH_CACHE": tmp,
            "PYTHONPATH": os.pathsep.join(filter(None, [path_before, str(ROOT)])),
        }
        t0 = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(path)], env=env, capture_output=True, text=True, timeout=600
        )
        wall = time.monotonic() - t0
    seconds = [float(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("SECONDS ")]
    if done.returncode != 0 or not seconds:
        return Build(style, route, index, None, wall, (done.stderr or done.stdout)[-1500:])
    return Build(style, route, index, seconds[0], wall)


def run_pair(style: str, i: int, device: str, cache: Path) -> tuple[Build, Build]:
    """Pair i: an old and a new build of two distinct sources, started together."""
    with ThreadPoolExecutor(2) as pool:
        old = pool.submit(build_one, style, "old", 2 * i, device, cache)
        new = pool.submit(build_one, style, "new", 2 * i + 1, device, cache)
        return old.result(), new.result()


def make_header(style: str, cache: Path) -> dict:
    """The new route's one-off cost for a style's flags: making its .gch, as the second build with
    those flags would (here directly, with no extension around it). Its size, or why it failed."""
    route = header_route(cache / "builds", CALLS[style])
    if route is None:
        return {"style": style, "gch": "no route (turned off, not Linux, or torch's ninja writer differs)"}
    route.folder.mkdir(parents=True, exist_ok=True)
    (route.folder / SEEN_MARK).touch()
    t0 = time.monotonic()
    route.prepare()
    seconds = time.monotonic() - t0
    gch = route.folder / PCH_FILE
    failed = route.folder / FAILED_MARK
    return {
        "style": style,
        "folder": str(route.folder),
        "seconds": seconds,
        "gch_bytes": gch.stat().st_size if gch.exists() else None,
        "failed": failed.read_text()[-800:] if failed.exists() else None,
    }


def ninja_files(cache: Path, style: str) -> dict[int, list[str]]:
    """The words of each of the style's ninja files, by source index (odd: the new route)."""
    found = {}
    prefix = f"-DTORCH_EXTENSION_NAME=bench_{style}_"
    for ninja in (cache / "builds").glob("*/build.ninja"):
        words = ninja.read_text().split()
        names = [w[len(prefix) :] for w in words if w.startswith(prefix)]
        if names:
            found[int(names[0])] = words
    return found


def uses_header(cache: Path, style: str, folder: str) -> str:
    """How many of the style's new-route builds compiled with -I of the header's folder (so the route
    the bench computed is the one the build children took)."""
    new = [words for i, words in ninja_files(cache, style).items() if i % 2 == 1]
    return f"{sum(f'-I{folder}' in words for words in new)}/{len(new)}"


def arch_targets(cache: Path, style: str) -> dict[str, list[str]]:
    """The -gencode targets each build was compiled for, by route and source index."""
    return {
        f"{'new' if i % 2 else 'old'} #{i}": sorted({w for w in words if w.startswith("-gencode")})
        for i, words in sorted(ninja_files(cache, style).items())
    }


def summarise(builds: list[Build], n: int) -> dict:
    """Per route the median seconds; the median and range of the pairs' ratios new/old."""
    by = {(b.route, b.index // 2): b for b in builds}
    pairs = [(by[("old", i)], by[("new", i)]) for i in range(n) if ("old", i) in by and ("new", i) in by]
    ok = [(o.seconds, w.seconds) for o, w in pairs if o.seconds and w.seconds]
    ratios = sorted(w / o for o, w in ok)
    row = {
        "failed": [f"{b.route} #{b.index}: {(b.error or '')[-300:]}" for b in builds if b.seconds is None],
        **{
            f"{r}_median_s": statistics.median(
                [b.seconds for b in builds if b.route == r and b.seconds] or [0.0]
            )
            for r in ROUTES
        },
        **{f"{r}_s": [b.seconds for b in builds if b.route == r] for r in ROUTES},
    }
    if ratios:
        row.update(
            ratio=statistics.median(ratios),
            ratio_low=ratios[0],
            ratio_high=ratios[-1],
            coverage=1 - 2.0 ** (1 - len(ratios)),
            pairs=len(ratios),
        )
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    p.add_argument("--n", type=int, default=4, help="pairs per style (distinct sources, old and new)")
    p.add_argument(
        "--pairs",
        type=int,
        default=max(1, len(os.sched_getaffinity(0)) // 2),
        help="pairs building at once (each build runs one compiler at a time)",
    )
    p.add_argument("--styles", nargs="*", help="default: cpp on cpu; cpp cuda triton raw_cuda on cuda")
    p.add_argument("--cache", type=Path, help="build cache (default: a fresh temporary one)")
    p.add_argument("--out", type=Path, help="folder for results.json")
    args = p.parse_args()
    styles = args.styles or (["cuda", "cpp", "triton", "raw_cuda"] if args.device == "cuda" else ["cpp"])
    if args.device == "cpu" and set(styles) - {"cpp"}:
        p.error("on cpu only the cpp style builds")
    with tempfile.TemporaryDirectory(prefix="bench-builds-") as tmp:
        cache = args.cache or Path(tmp)
        t0 = time.monotonic()
        header_styles = [s for s in styles if CALLS[s] is not None]
        with ThreadPoolExecutor(max(1, len(header_styles))) as pool:
            headers = list(pool.map(lambda s: make_header(s, cache), header_styles))
        for h in headers:
            print(
                f"header {h['style']}: {json.dumps({k: v for k, v in h.items() if k != 'style'})}", flush=True
            )
        pairs = [(s, i) for s in styles for i in range(args.n)]
        with ThreadPoolExecutor(args.pairs) as pool:
            builds = [b for pair in pool.map(lambda j: run_pair(*j, args.device, cache), pairs) for b in pair]
        rows = {s: summarise([b for b in builds if b.style == s], args.n) for s in styles}
        for h in headers:
            if "folder" in h:
                rows[h["style"]]["new_builds_with_header_flag"] = uses_header(cache, h["style"], h["folder"])
        if "cuda" in styles:
            rows["cuda"]["gencode"] = arch_targets(cache, "cuda")
        total = time.monotonic() - t0
    print(f"\n{'style':<10}{'old s':>9}{'new s':>9}{'new/old':>9}  interval (coverage)")
    for s, r in rows.items():
        if "ratio" in r:
            print(
                f"{s:<10}{r['old_median_s']:>9.2f}{r['new_median_s']:>9.2f}{r['ratio']:>9.3f}  "
                f"[{r['ratio_low']:.3f}, {r['ratio_high']:.3f}] ({100 * r['coverage']:.1f}%, {r['pairs']} pairs)"
            )
        else:
            print(f"{s:<10}  no complete pair: {r['failed'][:2]}")
        if "new_builds_with_header_flag" in r:
            print(f"{'':<10}new builds given the header's folder: {r['new_builds_with_header_flag']}")
        for f in r["failed"]:
            print(textwrap.indent(f, "    ! "))
    if "cuda" in rows:
        print("cuda -gencode targets per build:", json.dumps(rows["cuda"]["gencode"]))
    print(f"total {total:.0f} s, {len(builds)} builds, {args.pairs} pairs at once, PCH under {PCH_DIR}/")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        record = {
            "device": args.device,
            "n": args.n,
            "pairs": args.pairs,
            "total_s": total,
            "headers": headers,
            "styles": rows,
            "builds": [dataclasses.asdict(b) for b in builds],
        }
        (args.out / "results.json").write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
