"""KernelBench's own example solutions and adversarial kernels, unchanged, through SOLBench's harness.

A model that answers in KernelBench's format must not be punished for the format: the example
answers KernelBench's prompts show models (a CUDA `load_inline` elementwise add, its Triton twin,
and the few-shot CUDA answers) must pass unflagged, and its adversarial test kernels (a side-stream
matmul, uninitialized output that hopes for the reference's stale memory, inputs zeroed in place)
must fail, strict or not. The files are read from a KernelBench checkout given on the command line
(never copied into this repository); each is evaluated as it is, in strict and in no-strict mode.

    python -m experiments.kernelbench_files --kernelbench PATH/TO/KernelBench --out runs/kernelbench
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path

PROMPTS = "src/kernelbench/prompts"
ADVERSARIAL = "src/kernelbench/unit_tests/test_kernels"
MATMUL = "KernelBench/level1/1_Square_matrix_multiplication_.py"


@dataclass(frozen=True)
class Case:
    name: str
    task: str  # path inside the checkout
    candidate: str
    honest: bool  # True: must pass unflagged; False: must not pass


CASES = (
    Case("example add (CUDA)", f"{PROMPTS}/model_ex_add.py", f"{PROMPTS}/model_new_ex_add.py", True),
    Case("example add (Triton)", f"{PROMPTS}/model_ex_add.py", f"{PROMPTS}/model_new_ex_add_triton.py", True),
    Case(
        "few-shot fused GELU (CUDA)",
        f"{PROMPTS}/few_shot/model_ex_fuse_gelu.py",
        f"{PROMPTS}/few_shot/model_new_ex_fuse_gelu.py",
        True,
    ),
    Case(
        "few-shot tiled matmul (CUDA)",
        f"{PROMPTS}/few_shot/model_ex_tiled_matmul.py",
        f"{PROMPTS}/few_shot/model_new_ex_tiled_matmul.py",
        True,
    ),
    Case("adversarial: side stream", MATMUL, f"{ADVERSARIAL}/non_default_stream_kernel.py", False),
    Case("adversarial: stale result memory", MATMUL, f"{ADVERSARIAL}/result_reuse_kernel.py", False),
    Case("adversarial: inputs zeroed", MATMUL, f"{ADVERSARIAL}/zero_out_kernel.py", False),
)


def judged(case: Case, verdict) -> bool:
    """Whether the verdict is the right one: honest ones pass with no flag, adversarial ones fail."""
    if case.honest:
        return verdict.status.value == "pass" and not verdict.flags
    return verdict.status.value != "pass"


def run(root: Path, device: str, build_workers: int, cache: Path | None, out: Path) -> list[dict]:
    """Strict first, then no-strict; the rows so far are saved after each mode."""
    from benchmark.evaluate.harness import EvalConfig
    from benchmark.host import default_cache_dir
    from benchmark.task import load_task
    from benchmark.verify.verifier import Request, Verifier, VerifierConfig

    missing = [p for c in CASES for p in (c.task, c.candidate) if not (root / p).is_file()]
    if missing:
        raise SystemExit(f"error: {root} is not a KernelBench checkout: missing {missing[0]}")
    strict = EvalConfig(device=device, strict=True, cache_dir=cache or default_cache_dir())
    rows = []
    for mode, cfg in (("strict", strict), ("no-strict", replace(strict, strict=False))):
        with Verifier(VerifierConfig(eval=cfg, build_workers=build_workers)) as verifier:
            futures = [
                (
                    c,
                    verifier.submit_request(
                        Request(load_task(root / c.task), (root / c.candidate).read_text())
                    ),
                )
                for c in CASES
            ]
            for case, future in futures:
                v = future.result()
                rows.append(
                    {
                        "case": case.name,
                        "mode": mode,
                        "honest": case.honest,
                        "verdict": v.status.value,
                        "flags": list(v.flags),
                        "speedup": v.speedup,
                        "right": judged(case, v),
                        "error": (v.error or "").strip().splitlines()[0][:160] if v.error else "",
                        "total_s": v.phases.total_s,
                        "compile_s": v.phases.compile_s,
                    }
                )
        (out / "verdicts.json").write_text(json.dumps(rows, indent=1))
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        "| case | mode | expected | verdict | flags | speedup | right | first error line |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        speedup = f"{r['speedup']:.2f}x" if r["speedup"] else "-"
        lines.append(
            f"| {r['case']} | {r['mode']} | {'pass' if r['honest'] else 'fail'} | {r['verdict']} | "
            f"{', '.join(r['flags']) or '-'} | {speedup} | {'yes' if r['right'] else 'NO'} | {r['error'] or '-'} |"
        )
    right = sum(r["right"] for r in rows)
    lines.append(f"\n{right} of {len(rows)} verdicts right")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernelbench", type=Path, required=True, help="root of a KernelBench checkout")
    p.add_argument(
        "--device", default="cuda", choices=("cuda",), help="the examples are CUDA and Triton code"
    )
    p.add_argument("--build-workers", type=int, default=8)
    p.add_argument("--cache", type=Path, default=None, help="build cache (default: the harness's)")
    p.add_argument("--out", type=Path, default=Path("runs/kernelbench-files"))
    args = p.parse_args(argv)
    from benchmark.evaluate.device_check import DeviceUnavailable, require_device

    try:
        require_device(args.device)
    except DeviceUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rows = run(args.kernelbench, args.device, args.build_workers, args.cache, args.out)
    text = table(rows)
    (args.out / "kernelbench-files.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
