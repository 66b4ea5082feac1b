"""The strict harness accepts honest kernels it did not write: TorchInductor's Triton translations
of a fixed sample of suite tasks (pointwise, reduction, softmax, norm, matmul, attention; levels 1-3) pass
unflagged, through the same teacher, strict verifier and engine as experiments/trust_corpus/.
A failure here is a translation bug or a harness false negative; the row says which task and why.
The timing phase's checks are left to the corpus run itself (scripts/gpu_checks.sh trust).
Needs CUDA (about two minutes: six Inductor compiles in this process, verified as they finish)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

SAMPLE = (  # each passed in the H200 corpus run of 2026-12-01 (dev/LOG.md)
    "level1/softsign_fp32",  # pointwise
    "level1/rmsnorm_fp32",  # row reduction and norm
    "level1/log_softmax_vocab_bf16",  # softmax over a wide row
    "level2/gemm_bias_clamp_fp32",  # Triton GEMM template with an epilogue, TF32 off
    "level2/groupnorm_swish_fp32",  # a norm over groups, then an activation
    "level3/mha_self_attention_fp32",  # a level-3 block: GEMMs, softmax, reshapes
)


@pytest.mark.gpu
def test_inductor_translations_of_suite_tasks_pass_the_strict_harness(tmp_path):
    import trust_corpus as tc

    from benchmark.suite import load_suite
    from datasets_builder.state import Journal

    tasks = [t for t in load_suite(None).tasks if t.task_id in SAMPLE]
    assert sorted(t.task_id for t in tasks) == sorted(SAMPLE)
    # Correctness and anti-cheat without timing: under pytest -n, the other workers' GPU processes are
    # neighbours to the contention census, and timed phases would wait for them. The corpus times.
    verifier = tc.make_verifier(lanes=3, build_workers=2, cache=tmp_path / "cache", measure=False)
    journal = Journal(tmp_path / "out" / "results.jsonl", key=lambda r: r["task_id"])
    try:
        corpus = tc.Corpus(
            tc.InlineTranslator(tc.inductor_teacher(), timeout_s=180.0),
            verifier,
            journal,
            tmp_path / "out",
            budget_s=480.0,
            reserve_s=0.0,
        )
        outcome = corpus.run(tasks)
    finally:
        verifier.close(cancel_pending=True)
    assert not outcome.unfinished, outcome.stopped
    problems = [
        (r.task_id, r.skip_reason or r.verdict, r.flags, r.error)
        for r in outcome.rows
        if not (r.verdict == "pass" and not r.flags)
    ]
    assert not problems, problems
