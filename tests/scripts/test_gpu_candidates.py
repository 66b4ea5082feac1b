"""scripts/gpu_candidates.py: the mixes are what their docstrings say, every source is distinct and
carries the variant (so a fresh variant makes every build cold), and no variant leaves the
throughput set as it was."""

from __future__ import annotations

import collections

import gpu_candidates as gc
import pytest

from benchmark.suite import BUILTIN_SUITE

MIXES = {
    "a": (
        gc.triton_raw_set,
        {"pass": 35, "incorrect": 5, "cheat": 1, "compile_error": 3, "runtime_error": 3},
    ),
    "b": (gc.cold_inline_set, {"pass": 28, "incorrect": 2, "compile_error": 2}),
    "c": (gc.kernelbench_like_set, {"pass": 14, "incorrect": 3, "compile_error": 4, "runtime_error": 3}),
}


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_mix_counts_distinct_sources_and_variant_in_every_kernel(mix):
    make, counts = MIXES[mix]
    cands = make("v1")
    assert collections.Counter(c.expected for c in cands) == counts
    assert len({c.name for c in cands}) == len({c.code for c in cands}) == len(cands)
    for c in cands:
        assert "variant v1" in c.code, c.name
        assert (BUILTIN_SUITE / c.task).is_file()
        if "syntax_error" not in c.name:
            compile(c.code, c.name, "exec")  # the Python around the kernel is valid
    assert not {c.code for c in cands} & {c.code for c in make("v2")}, (
        "a new variant must change every source"
    )


def test_variant_sits_inside_each_kernel_source():
    """The caches key on the kernel source, not the file: the mark must be inside the CUDA string or the
    Triton function."""
    for c in gc.triton_raw_set("v1") + gc.kernelbench_like_set("v1"):
        if c.style == "triton":
            jit = c.code.index("@triton.jit")
            assert jit < c.code.index("# variant v1") < c.code.index("\n\n\n", jit), c.name
        elif c.style in ("raw", "inline"):
            start = c.code.index('r"""')
            assert start < c.code.index("// variant v1") < c.code.index('"""', start + 4), c.name
    assert sum(c.style == "inline" for c in gc.kernelbench_like_set("v1")) == 16


def test_no_variant_leaves_the_throughput_set_unmarked():
    cands = gc.throughput_set()
    assert len(cands) == len({c.code for c in cands}) == 54
    assert not any("variant" in c.code for c in cands)
