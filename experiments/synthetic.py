"""Models, tokenizers and kernel chat corpora built in code, for tests, benchmarks and smoke runs
(experiments.bench_sft, experiments.rl_demo, tests/trainers; `bench_sft --export` writes the
inputs of configs/sft/smoke.yaml).

Nothing can be downloaded on the machines this project is tested on, so every training test and the
GPU throughput benchmark start from here: a byte-level BPE tokenizer trained on a few strings and
wrapped with a ChatML chat template, a randomly initialised Qwen2-style causal LM, and a generator of
kernel-like chat samples (CUDA C++ through load_inline, Triton, and multi-turn repair dialogues) in
the schema that `trainers.data` documents. The samples look like real training rows; they are not
meant to be correct kernels.
"""

from __future__ import annotations

import random
from pathlib import Path

CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

_OPS = [
    ("relu", "fmaxf(v, 0.0f)", "tl.maximum(v, 0.0)", "torch.relu(x)"),
    ("scale", "v * 2.0f", "v * 2.0", "x * 2.0"),
    ("square", "v * v", "v * v", "x * x"),
    ("sigmoid", "1.0f / (1.0f + __expf(-v))", "1.0 / (1.0 + tl.exp(-v))", "torch.sigmoid(x)"),
    ("shift", "v + 1.0f", "v + 1.0", "x + 1.0"),
]


def build_tokenizer(vocab_size: int = 512, corpus: list[str] | None = None):
    """A byte-level BPE tokenizer with ChatML special tokens and chat template, trained in memory."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = corpus if corpus is not None else [_render(s) for s in kernel_corpus(24, seed=0)]
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        extra_special_tokens=["<|im_start|>"],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_model(
    vocab_size: int,
    hidden_size: int = 64,
    num_layers: int = 2,
    num_heads: int = 4,
    num_kv_heads: int = 2,
    intermediate_size: int = 128,
    max_position_embeddings: int = 4096,
    tie_word_embeddings: bool = True,
    seed: int = 0,
    **config_kwargs,
):
    """A randomly initialised Qwen2-style causal LM (the default is tiny: 2 layers, hidden 64)."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_kv_heads,
        intermediate_size=intermediate_size,
        max_position_embeddings=max_position_embeddings,
        tie_word_embeddings=tie_word_embeddings,
        **config_kwargs,
    )
    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(config)


def qwen2_half_b_config() -> dict:
    """Shape of a ~0.5B-parameter Qwen2 model (24 layers, hidden 896, 151,936-token vocabulary)."""
    return dict(
        hidden_size=896,
        num_layers=24,
        num_heads=14,
        num_kv_heads=2,
        intermediate_size=4864,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 1_000_000.0},
    )


def save_model_folder(model, tokenizer, path: str | Path) -> Path:
    """Write a model folder that `from_pretrained` (and `benchmark.run --model hf:PATH`) can load."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model.config.eos_token_id = tokenizer.eos_token_id
    model.config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _cuda_kernel(rng: random.Random, op: tuple[str, str, str, str], bug: bool = False) -> str:
    name, cuda_expr, _, _ = op
    threads = rng.choice([128, 256, 512])
    bound = "idx <= n" if bug else "idx < n"
    return f'''import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
__global__ void {name}_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {{
    __shared__ float tile[{threads}];
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if ({bound}) {{
        float v = x[idx];
        tile[threadIdx.x] = {cuda_expr};
    }}
    __syncthreads();
    if ({bound}) {{
        y[idx] = tile[threadIdx.x];
    }}
}}

torch::Tensor {name}_forward(torch::Tensor x) {{
    auto y = torch::empty_like(x);
    int n = x.numel();
    int blocks = (n + {threads - 1}) / {threads};
    {name}_kernel<<<blocks, {threads}>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}}
"""

ext = load_inline(name="{name}_ext", cpp_sources="torch::Tensor {name}_forward(torch::Tensor x);",
                  cuda_sources=cuda_src, functions=["{name}_forward"])


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.{name}_forward(x.contiguous())
'''


def _triton_kernel(rng: random.Random, op: tuple[str, str, str, str]) -> str:
    name, _, tl_expr, _ = op
    block = rng.choice([256, 512, 1024])
    return f"""import torch
import triton
import triton.language as tl


@triton.jit
def {name}_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, {tl_expr}, mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        {name}_kernel[grid](x, y, n, BLOCK_SIZE={block})
        return y
"""


def _task(op: tuple[str, str, str, str]) -> str:
    return f"""import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return {op[3]}


def get_inputs():
    return [torch.randn(4096, 1024)]


def get_init_inputs():
    return []
"""


_SYSTEM = "You write fast, correct GPU kernels. Reply with one Python code block that defines ModelNew."


def kernel_corpus(
    n: int, seed: int = 0, repair_fraction: float = 0.25, min_answer_chars: int = 0, compact: bool = False
) -> list[dict]:
    """`n` chat samples in the SFT schema; about `repair_fraction` of them are three-turn repair dialogues.

    `min_answer_chars` pads the final answer with further kernels (a realistic length for throughput
    runs); `compact` drops the system prompt and the task program, for short CPU test sequences.
    """
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        op = rng.choice(_OPS)
        backend = rng.choice(["cuda", "triton"])
        if compact:
            prompt = f"Write a {backend} kernel for `{op[3]}`."
        else:
            prompt = f"Write a faster version of this PyTorch program:\n```python\n{_task(op)}```"
        answer = _cuda_kernel(rng, op) if backend == "cuda" else _triton_kernel(rng, op)
        text = f"The op `{op[0]}` is elementwise, so one thread handles one element.\n```python\n{answer}```"
        while len(text) < min_answer_chars:
            extra = rng.choice(_OPS)
            more = _cuda_kernel(rng, extra) if rng.random() < 0.5 else _triton_kernel(rng, extra)
            text += f"\nA variant for `{extra[0]}`:\n```python\n{more}```"
        messages = [] if compact else [{"role": "system", "content": _SYSTEM}]
        messages.append({"role": "user", "content": prompt})
        if backend == "cuda" and rng.random() < repair_fraction:
            wrong = _cuda_kernel(rng, op, bug=True)
            messages += [
                {"role": "assistant", "content": f"```python\n{wrong}```"},
                {
                    "role": "user",
                    "content": "incorrect: out-of-bounds read at index n (max abs error inf). Fix it.",
                },
            ]
        messages.append({"role": "assistant", "content": text})
        rows.append(
            {
                "messages": messages,
                "task_id": f"synthetic/{op[0]}_{i}",
                "level": 1,
                "source": "repair" if sum(m["role"] == "assistant" for m in messages) > 1 else "generation",
                "backend": backend,
            }
        )
    return rows


def _render(row: dict) -> str:
    return "\n".join(m["content"] for m in row["messages"])
