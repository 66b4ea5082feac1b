"""SFT throughput benchmark (a measurement, not a test): tokens/s and peak memory of plain SFT and of
CuSeT-weighted SFT on the same model and data, and CuSeT's overhead in percent.

    python -m experiments.bench_sft --out $OUT/bench-sft             # ~0.5B Qwen2-style model, one GPU
    python -m experiments.bench_sft --tiny --out runs/bench-sft-tiny  # 2-layer model on CPU: checks the code

The model is randomly initialised in code (Qwen2 shape with 24 layers, hidden 896 and a 151,936-token
vocabulary, ~0.5B parameters), the tokenizer is a byte-level BPE trained on the synthetic corpus, and
the corpus is kernel-like chat samples (CUDA and Triton answers, some multi-turn repairs) cut to
--seq-len tokens, so every step sees the same number of tokens. Both modes train a fresh copy of the
model for --warmup + --steps optimizer steps with bf16 autocast; the modes alternate --repeats times
and the timed steps exclude the warm-up. Tokenization (with the CuSeT tagger) is timed separately:
it runs once per dataset, not per step. Writes bench_sft.json to --out and prints a table.

`--export DIR` instead writes DIR/model (the random model and tokenizer) and DIR/corpus.jsonl, the
inputs of the multi-GPU smoke run (see docs/sft.md), and exits.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import time
from pathlib import Path

import torch
from transformers import TrainerCallback

from benchmark.environment import gpu_name, package_versions
from benchmark.stats import CONFIDENCE, quantile, resample_weights
from experiments.synthetic import (
    build_model,
    build_tokenizer,
    kernel_corpus,
    qwen2_half_b_config,
    save_model_folder,
)
from trainers.data import TokenizeOptions, tokenize_dataset
from trainers.sft import KernelSFTTrainer
from trainers.sft_config import KernelSFTConfig

VOCAB = 151_936


class StepTimer(TrainerCallback):
    """Wall time and token count of every optimizer step (device-synchronized at both ends)."""

    def __init__(self):
        self.trainer = None
        self.times: list[float] = []
        self.tokens: list[int] = []
        self._start = 0.0
        self._tokens_before = 0

    def _sync(self):
        if torch.cuda.is_available():
            torch.cuda.synchronize()

    def on_step_begin(self, args, state, control, **kwargs):
        self._sync()
        self._start = time.perf_counter()
        self._tokens_before = self.trainer._total_train_tokens

    def on_step_end(self, args, state, control, **kwargs):
        self._sync()
        self.times.append(time.perf_counter() - self._start)
        self.tokens.append(self.trainer._total_train_tokens - self._tokens_before)


def build_inputs(args):
    """Tokenizer, model factory and tokenized dataset (with the timing of the tagger)."""
    from datasets import Dataset

    rows = kernel_corpus(args.samples, seed=0, min_answer_chars=args.seq_len * 5)
    texts = [turn["content"] for row in rows for turn in row["messages"]]
    tokenizer = build_tokenizer(vocab_size=args.tokenizer_vocab, corpus=texts)
    shape = dict(hidden_size=64, num_layers=2, num_heads=4, num_kv_heads=2, intermediate_size=128)
    if not args.tiny:
        shape = qwen2_half_b_config()
    vocab = len(tokenizer) if args.tiny else VOCAB

    def make_model():
        device = "cpu" if args.tiny else "cuda"
        with torch.device(device):  # initialise on the GPU directly: much faster than on the host
            return build_model(vocab, seed=0, **shape).to(device)

    dataset = Dataset.from_list(rows)
    timings = {}
    for tag in (False, True):
        options = TokenizeOptions(max_length=args.seq_len, tag_sensitive=tag)
        start = time.perf_counter()
        tokenized = tokenize_dataset(dataset, tokenizer, options)
        timings["with_tagger" if tag else "without_tagger"] = (time.perf_counter() - start) / len(rows) * 1e3
    lengths = [len(ids) for ids in tokenized["input_ids"]]
    return (
        tokenizer,
        make_model,
        rows,
        tokenized,
        {"ms_per_sample": timings, "mean_tokens": statistics.mean(lengths)},
    )


def train_once(args, cuset: bool, tokenizer, make_model, tokenized, out: Path) -> dict:
    allocated_before = torch.cuda.memory_allocated() / 2**30 if torch.cuda.is_available() else None
    model = make_model()
    params = sum(p.numel() for p in model.parameters())
    config = KernelSFTConfig(
        output_dir=str(out / ("cuset" if cuset else "plain")),
        cuset=cuset,
        max_length=args.seq_len,
        per_device_train_batch_size=args.batch_size,
        gradient_accumulation_steps=1,
        max_steps=args.warmup + args.steps,
        learning_rate=1e-5,
        lr_scheduler_type="constant",
        bf16=not args.tiny,
        use_cpu=args.tiny,
        gradient_checkpointing=args.gradient_checkpointing,
        logging_steps=args.warmup + args.steps,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
        seed=0,
    )
    timer = StepTimer()
    trainer = KernelSFTTrainer(
        model=model, args=config, train_dataset=tokenized, processing_class=tokenizer, callbacks=[timer]
    )
    timer.trainer = trainer
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    trainer.train()
    times, tokens = timer.times[args.warmup :], timer.tokens[args.warmup :]
    logs = [entry for entry in trainer.state.log_history if "loss" in entry]
    result = {
        "cuset": cuset,
        "parameters": params,
        "tokens_per_s": sum(tokens) / sum(times),
        "step_s_median": statistics.median(times),
        "step_s_all": times,
        "tokens_per_step": statistics.mean(tokens),
        "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30 if torch.cuda.is_available() else None,
        "peak_reserved_gib": torch.cuda.max_memory_reserved() / 2**30 if torch.cuda.is_available() else None,
        "allocated_before_gib": allocated_before,  # ~0 when the previous run freed everything
        "last_log": logs[-1] if logs else {},
    }
    trainer.accelerator.free_memory()
    timer.trainer = None
    del trainer, model, timer
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return result


def environment() -> dict:
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        **package_versions(("transformers", "trl", "peft", "accelerate")),
        "gpu": gpu_name(),
        "cuda": torch.version.cuda,
    }


def overhead_interval(plain_s: list[float], cuset_s: list[float]) -> list[float]:
    """Bootstrap interval of CuSeT's overhead in mean step time (percent), the steps of each arm
    resampled apart: the difference between two arms is reported with its uncertainty."""
    ratios = []
    for wp, wc in zip(resample_weights(len(plain_s)), resample_weights(len(cuset_s), seed=1), strict=True):
        mean_p = sum(w * t for w, t in zip(wp, plain_s, strict=True)) / len(plain_s)
        mean_c = sum(w * t for w, t in zip(wc, cuset_s, strict=True)) / len(cuset_s)
        ratios.append(100.0 * (mean_c / mean_p - 1.0))
    tail = (1.0 - CONFIDENCE) / 2
    return [quantile(ratios, tail), quantile(ratios, 1.0 - tail)]


def summarize(runs: list[dict]) -> dict:
    out = {}
    for mode in ("plain", "cuset"):
        mine = [r for r in runs if r["cuset"] == (mode == "cuset")]
        times = [t for r in mine for t in r["step_s_all"]]
        tokens = statistics.mean(r["tokens_per_step"] for r in mine)
        peaks = [r["peak_memory_gib"] for r in mine if r["peak_memory_gib"] is not None]
        out[mode] = {
            "tokens_per_s": sum(r["tokens_per_s"] for r in mine) / len(mine),
            "tokens_per_s_median_step": tokens / statistics.median(times),
            "peak_memory_gib": max(peaks) if peaks else None,
        }
    plain, cuset = out["plain"], out["cuset"]
    out["overhead_pct"] = 100.0 * (plain["tokens_per_s"] / cuset["tokens_per_s"] - 1.0)
    out["overhead_pct_median_step"] = 100.0 * (
        plain["tokens_per_s_median_step"] / cuset["tokens_per_s_median_step"] - 1.0
    )
    steps = {
        mode: [t for r in runs if r["cuset"] == (mode == "cuset") for t in r["step_s_all"]] for mode in out
    }
    out["overhead_pct_mean_step_interval"] = overhead_interval(steps["plain"], steps["cuset"])
    if plain["peak_memory_gib"] is not None:
        out["memory_overhead_pct"] = 100.0 * (cuset["peak_memory_gib"] / plain["peak_memory_gib"] - 1.0)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    size = p.add_argument_group("model and data")
    size.add_argument(
        "--tiny", action="store_true", help="2-layer model, short sequences, CPU: a quick check"
    )
    size.add_argument(
        "--seq-len", type=int, default=None, help="tokens per sample (default 2048; --tiny 256)"
    )
    size.add_argument("--batch-size", type=int, default=None, help="samples per step (default 8; --tiny 2)")
    size.add_argument("--samples", type=int, default=64, help="distinct corpus samples (epochs wrap around)")
    size.add_argument(
        "--tokenizer-vocab", type=int, default=8192, help="cap on the BPE vocabulary trained on the corpus"
    )
    run = p.add_argument_group("schedule")
    run.add_argument(
        "--steps", type=int, default=None, help="timed optimizer steps per run (default 30; --tiny 3)"
    )
    run.add_argument("--warmup", type=int, default=None, help="untimed steps first (default 5; --tiny 1)")
    run.add_argument(
        "--repeats", type=int, default=None, help="runs per mode, alternating (default 2; --tiny 1)"
    )
    run.add_argument(
        "--gradient-checkpointing", action="store_true", help="recompute activations (off: stricter)"
    )
    io = p.add_argument_group("output")
    io.add_argument("--out", type=Path, default=Path("runs/bench-sft"), help="folder for bench_sft.json")
    io.add_argument("--export", type=Path, default=None, help="write model + corpus.jsonl here and exit")
    args = p.parse_args()
    defaults = dict(seq_len=(256, 2048), batch_size=(2, 8), steps=(3, 30), warmup=(1, 5), repeats=(1, 2))
    for name, (tiny, full) in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, tiny if args.tiny else full)
    if args.tiny:
        args.samples = min(args.samples, 8)
        args.tokenizer_vocab = min(args.tokenizer_vocab, 1024)
    if not args.tiny and not torch.cuda.is_available() and args.export is None:
        p.error("no CUDA device: run on a GPU, or pass --tiny for the CPU check")

    tokenizer, make_model, rows, tokenized, data_stats = build_inputs(args)
    if args.export is not None:
        model = make_model() if args.tiny else build_model(VOCAB, seed=0, **qwen2_half_b_config())
        save_model_folder(model, tokenizer, args.export / "model")
        (args.export / "corpus.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
        print(f"wrote {args.export / 'model'} and {args.export / 'corpus.jsonl'}")
        return

    args.out.mkdir(parents=True, exist_ok=True)
    runs = []
    for repeat in range(args.repeats):
        for cuset in (False, True) if repeat % 2 == 0 else (True, False):
            started = time.perf_counter()
            result = train_once(args, cuset, tokenizer, make_model, tokenized, args.out)
            result["repeat"], result["wall_s"] = repeat, time.perf_counter() - started
            runs.append(result)
            print(
                f"repeat {repeat} {'cuset' if cuset else 'plain':5s}: {result['tokens_per_s']:,.0f} tokens/s, "
                f"median step {result['step_s_median'] * 1e3:.1f} ms, peak {result['peak_memory_gib'] or 0:.2f} GiB, "
                f"run {result['wall_s']:.1f} s",
                flush=True,
            )
    summary = summarize(runs)
    report = {
        "environment": environment(),
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "parameters": runs[0]["parameters"],
        "data": data_stats,
        "summary": summary,
        "runs": runs,
    }
    (args.out / "bench_sft.json").write_text(json.dumps(report, indent=2))
    print(
        f"\nparameters {runs[0]['parameters'] / 1e6:.1f}M, {args.batch_size} x {args.seq_len} tokens per step"
    )
    print(f"{'mode':6s} {'tokens/s':>12s} {'median-step tokens/s':>22s} {'peak GiB':>9s}")
    for mode in ("plain", "cuset"):
        s = summary[mode]
        peak = f"{s['peak_memory_gib']:.2f}" if s["peak_memory_gib"] is not None else "-"
        print(f"{mode:6s} {s['tokens_per_s']:12,.0f} {s['tokens_per_s_median_step']:22,.0f} {peak:>9s}")
    lo, hi = summary["overhead_pct_mean_step_interval"]
    print(
        f"CuSeT overhead: {summary['overhead_pct']:+.2f}% (median steps: {summary['overhead_pct_median_step']:+.2f}%; "
        f"mean step time 95% interval [{lo:+.2f}%, {hi:+.2f}%])"
    )
    tag = data_stats["ms_per_sample"]
    print(
        f"tokenization: {tag['without_tagger']:.1f} ms/sample, {tag['with_tagger']:.1f} ms/sample with the tagger"
    )
    print(f"wrote {args.out / 'bench_sft.json'}")


if __name__ == "__main__":
    main()
