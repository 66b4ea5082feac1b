"""`--model hf:PATH_OR_ID`: local generation with transformers, for checkpoints without a server.

    python -m benchmark.run --model hf:./checkpoints/sft --device cuda --dtype bfloat16 --samples 4

Loads from a local directory, a local `.gguf` file (through the `gguf` package; quantized weights
are dequantized, and the tokenizer and chat template come from the file's metadata) or, for a Hub id,
from the local Hub cache (set HF_HUB_OFFLINE=1 on machines without internet). Prompts go through the tokenizer's chat template; requests are
batched (`--concurrency` is the batch size) with left padding and sampled with the run's
temperature and top-p (`--compile`: a static KV cache whose decoding step transformers compiles on
CUDA; faster once compiled, its speed measured in dev/LOG.md); other generation settings (top-k,
repetition penalty, stop tokens) come from the checkpoint's generation_config, as vLLM does. The model loads on first use, so a run answered
entirely from the completion cache never loads it.

`--seed S` seeds each batch from the seed of its first sample: reruns with the same batch size
reproduce, but a sample's text depends on its batch-mates.

On a GPU the run's verifier also times on (`BackendOptions.device_locks`), the weights' move and each
batch hold that GPU's lock shared (benchmark.evaluate.gpu_lock): the run's own process is not a
neighbour the contention check looks for, so without the lock its generation kernels would run
beside a timed candidate and skew its speedup. A timing waits for the batch, and no batch starts
while a timing runs. The lock is released before the batch's completions are yielded, so it is
never held while the run waits on the verifier."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from benchmark.evaluate.gpu_lock import DeviceLock
from benchmark.models.base import (
    Backend,
    BackendError,
    BackendOptions,
    Completion,
    GenerationRequest,
    SamplingParams,
    register_backend,
)

log = logging.getLogger(__name__)
COMPILE_PAD = 256  # with BackendOptions.compile, prompts are left-padded to a multiple of this many tokens


def _hub_revision(model_id: str) -> str | None:
    """The commit of the locally cached snapshot of a Hub model, if any."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(model_id, "config.json")
    return Path(found).parent.name if isinstance(found, str) else None


def _gpu_index(device: str) -> int | None:
    """The index of the CUDA device `device` names (the current one for a bare "cuda"); None off CUDA."""
    import torch

    d = torch.device(device)
    if d.type != "cuda":
        return None
    return d.index if d.index is not None else torch.cuda.current_device()


def generation_lock(device: str, device_locks: Sequence[tuple[int, str]]) -> DeviceLock:
    """The lock to hold around generation on `device`: its GPU's, where the verifier times on that
    GPU; otherwise one that locks nothing (a CPU, or a GPU no timing runs on)."""
    gpu = _gpu_index(device)
    return DeviceLock(dict(device_locks).get(gpu) if gpu is not None else None)


def _names_local_path(spec: str) -> bool:
    """Whether `spec` can only be a local path: a Hub id is NAME or ORG/NAME, never relative to a
    folder, absolute, under the home folder or deeper than one slash."""
    return spec.startswith((".", "/", "~")) or spec.count("/") > 1


def weights_fingerprint(path: str) -> dict:
    """Enough to notice that a local checkpoint was overwritten: each file's name, size, mtime."""
    p = Path(path)
    if p.is_file():
        st = p.stat()
        return {"file": str(p.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file())
        return {
            "dir": str(p.resolve()),
            "files": [[f.name, f.stat().st_size, f.stat().st_mtime_ns] for f in files],
        }
    return {"hub_id": path, "revision": _hub_revision(path)}


class HFBackend(Backend):
    name = "hf"

    def __init__(self, path: str, sampling: SamplingParams, options: BackendOptions):
        if not path:
            raise ValueError("hf needs a model: --model hf:DIR or hf:ORG/NAME")
        if _names_local_path(path) and not Path(path).expanduser().exists():
            what = "GGUF file" if path.endswith(".gguf") else "folder"
            raise BackendError(f"hf:{path}: no such {what}: {Path(path).expanduser().absolute()}")
        self.path = path
        self.sampling = sampling
        self.options = options
        self.batch_size = options.concurrency
        self.model = None
        self.tokenizer = None
        self.device: str | None = None
        self._lock = threading.Lock()
        self._device_lock = DeviceLock(None)  # the GPU's, once loaded there (generation_lock)

    def check(self) -> None:
        with self._lock:
            if self.model is None:
                self._load()

    def _load(self) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.device = self.options.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise BackendError(f"hf:{self.path}: device {self.device} asked for, but CUDA is not available")
        if self.options.dtype == "auto":
            dtype = "auto" if self.device.startswith("cuda") else torch.float32
        else:
            dtype = getattr(torch, self.options.dtype)
        source, extra = self.path, {}
        if self.path.endswith(".gguf"):
            gguf = Path(self.path)
            if not gguf.is_file():
                raise BackendError(f"hf:{self.path}: no such GGUF file")
            source, extra = str(gguf.parent), {"gguf_file": gguf.name}
        try:
            tokenizer = AutoTokenizer.from_pretrained(source, **extra)
            model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, **extra)
        except (OSError, ValueError, ImportError) as e:
            raise BackendError(f"cannot load hf:{self.path}: {e}") from None
        if not tokenizer.chat_template:
            raise BackendError(
                f"hf:{self.path}: the tokenizer has no chat template; benchmark prompts are chat messages, "
                "so use an instruction-tuned checkpoint or add a chat_template to tokenizer_config.json"
            )
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            if tokenizer.eos_token is None:
                raise BackendError(f"hf:{self.path}: the tokenizer has neither a pad nor an eos token")
            tokenizer.pad_token = tokenizer.eos_token
        self.tokenizer = tokenizer
        self._device_lock = generation_lock(self.device, self.options.device_locks)
        with self._device_lock.shared():
            self.model = model.to(self.device).eval()
        log.info("loaded hf:%s on %s (%s)", self.path, self.device, next(model.parameters()).dtype)

    def _stop_ids(self) -> set[int]:
        eos = self.model.generation_config.eos_token_id
        ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        if self.tokenizer.eos_token_id is not None:
            ids.add(self.tokenizer.eos_token_id)
        return ids

    def _batch(self, batch: list[GenerationRequest]) -> list[Completion]:
        import torch

        tok = self.tokenizer
        prompts = [
            tok.apply_chat_template(list(r.messages), add_generation_prompt=True, tokenize=False)
            for r in batch
        ]
        pad = {"pad_to_multiple_of": COMPILE_PAD} if self.options.compile else {}
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False, **pad).to(self.device)
        s = self.sampling
        kwargs: dict = {"max_new_tokens": s.max_tokens, "pad_token_id": tok.pad_token_id}
        if self.options.compile:
            kwargs["cache_implementation"] = "static"  # transformers compiles its decoding step on CUDA
        if s.temperature > 0:
            kwargs.update(do_sample=True, temperature=s.temperature, top_p=s.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        seed = s.seed_for(batch[0].sample)
        if seed is not None:
            torch.manual_seed(seed * 1009 + batch[0].turn)
        with torch.inference_mode():
            out = self.model.generate(**enc, **kwargs)
        new = out[:, enc["input_ids"].shape[1] :].tolist()
        prompt_lens = enc["attention_mask"].sum(dim=1).tolist()
        stop = self._stop_ids()
        results = []
        for req, ids, n_prompt in zip(batch, new, prompt_lens, strict=True):
            cut = next((i for i, t in enumerate(ids) if t in stop), None)
            kept = ids if cut is None else ids[:cut]
            results.append(
                Completion(
                    req,
                    tok.decode(kept, skip_special_tokens=True),
                    prompt_tokens=int(n_prompt),
                    completion_tokens=len(kept) + (cut is not None),
                    meta={"finish_reason": "length" if cut is None else "stop"},
                )
            )
        return results

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[Completion]:
        if not requests:
            return
        if any(not r.messages for r in requests):
            raise ValueError("hf backend needs prompt messages")
        self.check()
        # Similar lengths share a batch, so little of it is padding.
        ordered = sorted(requests, key=lambda r: sum(len(m["content"]) for m in r.messages))
        for i in range(0, len(ordered), self.batch_size):
            with self._device_lock.shared():
                t0 = time.perf_counter()
                done = self._batch(ordered[i : i + self.batch_size])
                self._release_cache()
            log.info(
                "generated %d answer(s) in %.1f s: %d tokens, %d at the %d-token limit",
                len(done),
                time.perf_counter() - t0,
                sum(c.completion_tokens or 0 for c in done),
                sum(c.meta.get("finish_reason") == "length" for c in done),
                self.sampling.max_tokens,
            )
            yield from done  # unlocked: the consumer may wait on verdicts whose timing needs the lock

    def _release_cache(self) -> None:
        """Give the batch's cached GPU memory back, so the verifier's lanes that share the GPU can
        be admitted into it while this process waits for its next batch."""
        if self.device is not None and self.device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()

    def cache_identity(self) -> dict:
        return {"backend": self.name, "model": weights_fingerprint(self.path), "dtype": self.options.dtype}

    def describe(self) -> dict:
        return {
            "backend": self.name,
            "model": self.path,
            "device": self.device or self.options.device,
            "dtype": self.options.dtype,
            "batch_size": self.batch_size,
            "compile": self.options.compile,
        }


@register_backend("hf")
def _make(arg: str, sampling: SamplingParams | None = None, options: BackendOptions | None = None) -> Backend:
    return HFBackend(arg, sampling or SamplingParams(), options or BackendOptions())
