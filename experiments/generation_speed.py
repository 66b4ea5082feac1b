"""How fast `model.generate` writes answers, by KV-cache mode, as the `hf` backend calls it: a batch of
left-padded prompts sampled at the evaluation's settings (temperature 0.7, top-p 0.95) to a token limit.

    python -m experiments.generation_speed --model smollm2-135m --batch 256 --prompt 900 --new 1024

Arms: `dynamic` (transformers' default cache, what the backend uses today), `static` (a cache of
fixed size, eager), `compiled` (the static cache with the decoding step compiled, which transformers
does on CUDA by itself). The model has the named architecture and random weights, so nothing needs
to be carried to the GPU machine: speed does not depend on the weights, and every answer runs to the
limit. Each arm generates twice; the first call includes any compilation, the second is the steady
rate. Prints one JSON line per arm."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass

import torch

# SmolLM2-135M-Instruct's architecture (its config.json), for random weights of its shape.
ARCHITECTURES = {
    "smollm2-135m": dict(
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        head_dim=64,
        vocab_size=49152,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        rope_theta=100000.0,
    ),
    "tiny": dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        vocab_size=512,
        max_position_embeddings=512,
        tie_word_embeddings=True,
    ),
}
ARMS = {
    "dynamic": {},
    "static": {"cache_implementation": "static", "disable_compile": True},
    "compiled": {"cache_implementation": "static"},
}


@dataclass
class ArmResult:
    arm: str
    batch: int
    prompt_tokens: int
    new_tokens: int
    first_s: float  # the first call, compilation included
    steady_s: float  # the second call
    tokens_per_s: float  # new tokens of the whole batch per second, steady
    peak_gib: float | None


def random_model(name: str, device: str, dtype: torch.dtype):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(**ARCHITECTURES[name], pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return LlamaForCausalLM(config).to(device=device, dtype=dtype).eval()


def measure(model, arm: str, batch: int, prompt: int, new: int) -> ArmResult:
    device = model.device
    ids = torch.randint(3, model.config.vocab_size, (batch, prompt), device=device)
    mask = torch.ones_like(ids)
    mask[: batch // 2, : prompt // 4] = 0  # left padding on half the batch, as mixed prompt lengths give
    kwargs = dict(
        max_new_tokens=new,
        min_new_tokens=new,
        do_sample=True,
        temperature=0.7,
        top_p=0.95,
        pad_token_id=0,
        **ARMS[arm],
    )
    cuda = device.type == "cuda"
    times = []
    for _ in range(2):
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
        if cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        assert out.shape == (batch, prompt + new), out.shape
    peak = torch.cuda.max_memory_allocated() / 2**30 if cuda else None
    return ArmResult(arm, batch, prompt, new, times[0], times[1], batch * new / times[1], peak)


def main(argv: list[str] | None = None) -> list[ArmResult]:
    p = argparse.ArgumentParser(
        prog="python -m experiments.generation_speed", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--model", choices=sorted(ARCHITECTURES), default="smollm2-135m", help="architecture")
    p.add_argument("--arms", nargs="+", choices=sorted(ARMS), default=["dynamic", "static", "compiled"])
    p.add_argument("--batch", type=int, default=256, help="answers per generate call")
    p.add_argument("--prompt", type=int, default=900, help="prompt tokens (a level-1 prompt: about 820)")
    p.add_argument("--new", type=int, default=1024, help="tokens generated per answer")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    args = p.parse_args(argv)
    model = random_model(args.model, args.device, getattr(torch, args.dtype))
    results = []
    for arm in args.arms:
        try:
            r = measure(model, arm, args.batch, args.prompt, args.new)
        except Exception as e:  # an arm that fails is reported, the others still run
            print(json.dumps({"arm": arm, "error": f"{type(e).__name__}: {e}"[:500]}), flush=True)
            continue
        results.append(r)
        print(json.dumps(asdict(r)), flush=True)
    return results


if __name__ == "__main__":
    main()
