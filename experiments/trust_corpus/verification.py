"""The strict verifier the trust corpus judges translations with, and its short timing."""

from __future__ import annotations

from pathlib import Path


def timing_config():
    """Short timing, so ~300 candidates fit a few minutes; speedups are indicative, not benchmark-grade.
    The translation workers share the GPU outside the device lock, so timing never waits for them
    (`contention_wait_s=0`): such verdicts come back `contended`, with the checks done, and no speedup."""
    from benchmark.evaluate.timing import TimingConfig

    return TimingConfig(
        contention_wait_s=0.0,
        warmup_calls=2,
        warmup_seconds=0.02,
        steady_max_seconds=0.0,
        min_runs=10,
        min_seconds=0.03,
        max_runs=300,
        target_rel_err=0.01,
        max_seconds=0.3,
    )


def make_verifier(lanes: int, build_workers: int, cache: Path | None, measure: bool = True):
    """The strict verifier on the GPU; `measure=False` skips timing (and the checks that need it)."""
    from benchmark.evaluate.harness import EvalConfig
    from benchmark.host import default_cache_dir
    from benchmark.verify.verifier import Verifier, VerifierConfig

    config = EvalConfig(
        device="cuda",
        strict=True,
        measure=measure,
        timeout_s=120.0,
        timing=timing_config(),
        cache_dir=cache or default_cache_dir(),
    )
    return Verifier(VerifierConfig(eval=config, build_workers=build_workers, lanes_per_device=lanes))


def describe_verifier() -> str:
    """The verifier's settings, as the table's context line gives them."""
    t = timing_config()
    return (
        f"strict, 5 trials + alternate shapes (+ a large-magnitude trial for fp32); timing: warm-up {t.warmup_seconds:g} s, "
        f"timed >= {t.min_seconds:g} s, cap {t.max_seconds:g} s, target {t.target_rel_err:g}"
    )
