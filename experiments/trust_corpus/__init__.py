"""The Inductor trust corpus: does the strict harness accept honest kernels that we did not write?

TorchInductor compiles each suite task's reference to Triton, and the dataset builder's Inductor
teacher (datasets_builder.teachers.inductor) turns that output into a standalone ModelNew. Those
candidates come from a compiler, written neither by us nor to please the checker, so every one
the strict verifier rejects is a translation bug or a harness false negative; this experiment collects
them, with their sources, for that classification (docs/trust-corpus.md).

    python -m experiments.trust_corpus --out $OUT/trust [--levels 1 2] [--tasks 'level1/*softmax*']
        [--limit N] [--budget-s 330] [--workers 7] [--lanes 5] [--translate-only]

Tasks run in a seeded round-robin order across levels, so a run stopped by its budget still covers
every level. Translation runs in worker processes (one Inductor compile thread each) while the
verifier checks finished translations in its own pools; no task starts once the budget is nearly
spent, and at the budget unfinished work is abandoned. Each finished task is one line of
OUT/results.jsonl, written at once, and a rerun with the same OUT resumes; each verified translation
is also a line of OUT/completions.jsonl, a replay file for `benchmark.run --model replay:FILE`. At the end: the table,
printed and in OUT/corpus.md, OUT/summary.json, and OUT/failures/ (the source of every rejected
candidate). Needs a CUDA GPU.

`--translate-only` builds no verifier: every translation goes to OUT/completions.jsonl unjudged, with
more workers, so the leaderboard's torch.compile entry is two steps: a translate-only run, then
`python -m benchmark.run --model replay:OUT/completions.jsonl` alone on the GPU (timing shares it with
no compile).
Modules, each importing only modules listed before it: record (a finished task's row), translate (the
Inductor teacher, inline or in worker processes), engine (order, budget, crash isolation, journal),
verification (the strict verifier), report (the table), cli (flags and main).
"""
