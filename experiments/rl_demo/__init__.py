"""Learning demonstration of the RL trainer, at a scale that fits one GPU for a few minutes.

No pretrained weights can be downloaded here, so the policy is a small Qwen2-style model trained
from scratch: first by SFT (the project's SFT trainer) on a synthetic corpus of correct kernels for
a narrow family of generated tasks, then by RL (trainers.rl) on tasks the SFT never saw, rewarded
by the strict verifier on the GPU. It reports pass rate and speedup before and after RL, on the RL
tasks and on a test split that neither stage trained on, the learning curves, and three ablations
(PrimeEcho, BDR and MirrorPop each switched off), every arm from the same SFT model with the same
seed and the same number of RL steps (an arm that would not fit in the budget is skipped, not cut).
Each arm's change, after minus before RL, comes with a paired bootstrap 95% interval over tasks, and
an improvement is claimed only where that interval excludes zero. `--merge` combines the
rl_demo.json of several calls (some arms each, the same seed) into one report, without a GPU.

The arms' SFT model passes a gate: while it passes less than --sft-min-pass of the RL split it is
trained again with the next training seed, up to --sft-attempts; where none passes, no arm runs (RL
from a model that has not learned the task says nothing of RL). SFT trains reproducibly
(`reproducible_training`: before it, one recipe and seed passed 94%, 19% and 9% of the test split in
three H200 runs), and every model's `weights_digest` is recorded, so calls on fresh machines of one GPU
model that train the same recipe show that they made one model. `--sft-cache DIR` keeps every
attempt's model and before-RL evaluation under a hash of everything that determines them, its training
seed included, so the calls of one machine with the same settings never train a seed twice, and a call
cut short leaves its attempts to the next; a merged report compares arms across calls that used one
cache entry or models of one digest.

`--sft-arms` compares SFT recipes instead (no RL): one model per arm and training seed
(`--sft-seeds`), each scored on the test split. One training run of this tiny model on a GPU swings
more between runs than the recipes differ, so each arm - plain interval resamples training seeds as
well as tasks (`seed_task_differences`), and `--merge` pools the runs of several calls by (arm, seed).

    python -m experiments.rl_demo --out $OUT/rl-demo            # one GPU, about 8 minutes (--budget-s 480)
    python -m experiments.rl_demo --tiny --out runs/rl-demo-tiny # CPU: checks the code end to end
    python -m experiments.rl_demo --arms full --out $OUT/rl-full  # one arm per call: room for more generations
    python -m experiments.rl_demo --arms full --sft-cache /tmp/rl-sft-cache --out $OUT/rl-a  # later calls reuse its SFT model
    python -m experiments.rl_demo --merge A/rl_demo.json B/rl_demo.json --out runs/rl-demo  # one report
    python -m experiments.rl_demo --sft-arms plain cuset --out $OUT/cuset  # SFT recipes on the test split, no RL
    python -m experiments.rl_demo --sft-arms plain cuset --sft-seeds 1 2 --out $OUT/cuset  # two training seeds per arm

The task family (experiments.rl_demo.family): y = act(a * x + b) over an fp32 tensor, answered with
one raw-CUDA kernel per act whose launch size only the verifier's speed reward can teach.

`--tiny` runs the same phases on CPU with a 2-layer model, a handful of steps, and a programmatic
stand-in for the verifier (it reads the act and the constants out of the answer), because CPU
machines cannot run CUDA candidates; it shows the code works, and nothing about learning.

Writes rl_demo.json (every number, per-task results included, written after each phase, so a run
cut short keeps what it had), rl_demo.md (the tables) and learning_curves.svg to --out, and prints
the tables.

Modules, each importing only modules listed before it: family (the tasks), corpus (SFT rows), metrics
(the benchmark's figures of a split), differences (paired intervals), state (settings and the call's
record), budget (the clock and deadlines), records (typed records of the SFT model), rewards (the
verifier or its stand-in), evaluation, sft_training, rl_training, cache (--sft-cache), gate (the SFT
gate), arms (RL and SFT arms), merge (--merge), report (tables and figure), cli (flags and main).
"""
