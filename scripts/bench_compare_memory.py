"""Comparison memory benchmark (a script, not a test): the peak extra resident memory and the time of
one `compare_outputs(ref, got, exact=exact)` on an fp32 output of N elements with a float64 exact
reference, chunked (the module's CHUNK_ELEMENTS) against whole (CHUNK_ELEMENTS above N), on the CPU;
with an older tree first on PYTHONPATH, whose comparison has no slices, that code as it is.

    python scripts/bench_compare_memory.py [--elements 33554432] [--repeats 3] [--mmap-threshold 65536]

Each measurement runs in a fresh process: it makes the inputs (in place, so making them leaves no
high-water mark above what they hold), touches them, reads ru_maxrss, makes the one call and reads
ru_maxrss again; the difference is the call's peak above its inputs. The arms alternate, so drift of
the host falls on both. Prints each arm's MiB per repeat and median, the ratio chunked/whole of the
medians, and the median seconds per call.

glibc raises its mmap threshold (up to 32 MiB) as large blocks are freed, after which freed slices
stay in the heap, fragmented: the resident set then exceeds what is live at the peak, more so for
small slices. --mmap-threshold fixes it (MALLOC_MMAP_THRESHOLD_ in the children), so the figures
show the live peak alone."""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import torch

from benchmark.evaluate import correctness


def measure(elements: int, chunk: int | None, seed: int) -> tuple[float, float]:
    """In this process: (MiB the call raised the peak resident set by, seconds of the call); `chunk`
    None: the module as it is (a tree from before the slices, on PYTHONPATH)."""
    if chunk is not None:
        correctness.CHUNK_ELEMENTS = chunk
    g = torch.Generator().manual_seed(seed)
    exact = torch.empty(elements, dtype=torch.float64).normal_(generator=g)
    ref = exact.float()
    got = ref.clone().mul_(1 + 2.0**-20)  # an honest answer: within a few fp32 roundings of eager
    assert math.isfinite(float(exact.sum()) + float(ref.sum()) + float(got.sum()))  # every page read
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    c = correctness.compare_outputs(ref, got, exact=exact)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert c.ok and c.reference == "float64", c
    return (after - before) / 1024, seconds  # ru_maxrss is in KiB on Linux


def measure_fresh(elements: int, chunk: int | None, seed: int) -> tuple[float, float]:
    """`measure` in a freshly spawned process, whose high-water mark no earlier call has raised."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(measure, elements, chunk, seed).result()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--elements", type=int, default=2**25, help="N, the output's element count")
    p.add_argument("--repeats", type=int, default=3, help="measurements per arm")
    p.add_argument(
        "--mmap-threshold", type=int, default=None, help="glibc's MALLOC_MMAP_THRESHOLD_, in bytes"
    )
    args = p.parse_args(argv)
    if args.mmap_threshold is not None:
        os.environ["MALLOC_MMAP_THRESHOLD_"] = str(args.mmap_threshold)  # the spawned children read it
    chunk = getattr(correctness, "CHUNK_ELEMENTS", None)
    arms = {"chunked": chunk, "whole": max(args.elements, chunk) + 1} if chunk else {"as is": None}
    results: dict[str, list[tuple[float, float]]] = {arm: [] for arm in arms}
    for k in range(args.repeats):
        for arm, chunk in arms.items():
            results[arm].append(measure_fresh(args.elements, chunk, seed=k))
    malloc = os.environ.get("MALLOC_MMAP_THRESHOLD_", "glibc's dynamic default")
    print(
        f"compare_outputs on {args.elements} fp32 elements with a float64 exact, {args.repeats} repeats each; "
        f"mmap threshold: {malloc}"
    )
    print(f"{'arm':<8} {'chunk':>10}  {'peak extra MiB per repeat':<28} {'median MiB':>10} {'median s':>9}")
    medians = {}
    for arm, rows in results.items():
        mib, seconds = [m for m, _ in rows], [s for _, s in rows]
        medians[arm] = statistics.median(mib), statistics.median(seconds)
        per_repeat = " ".join(f"{m:8.1f}" for m in mib)
        print(
            f"{arm:<8} {arms[arm] or '-':>10}  {per_repeat:<28} {medians[arm][0]:>10.1f} {medians[arm][1]:>9.3f}"
        )
    if not chunk:
        return
    (chunked_mib, chunked_s), (whole_mib, whole_s) = medians["chunked"], medians["whole"]
    memory = f"{chunked_mib / whole_mib:.3f}" if whole_mib > 0 else "n/a (no peak above the inputs)"
    print(f"chunked/whole: peak extra memory {memory}, time per call {chunked_s / whole_s:.3f}")


if __name__ == "__main__":
    main()
