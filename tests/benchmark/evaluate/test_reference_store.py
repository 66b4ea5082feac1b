"""Reference work once per task (benchmark.evaluate.reference_store): a later sample of a task takes the
reference's outputs and timings from the parent's store and reaches the same verdict; a stale,
unreadable or oversized entry means computing afresh; a candidate reaches none of it, in memory or
as a file."""

from __future__ import annotations

import base64
import dataclasses
import os
import tempfile
from pathlib import Path

import pytest
import torch

from benchmark.evaluate.harness import EvalConfig, evaluate, input_seed
from benchmark.evaluate.program import TaskProgram
from benchmark.evaluate.reference_store import (
    SAMPLED_ELEMENTS,
    STORE_FORMAT,
    Fingerprint,
    ReferenceStore,
    StoredReference,
    StoreKey,
)
from benchmark.evaluate.timing import TimingConfig
from benchmark.task import load_task
from benchmark.verdict import Status
from benchmark.verify.verifier import Verifier, VerifierConfig

CORRECT = """
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0
"""
WRONG = CORRECT.replace("x * 2.0 + 1.0", "x * 2.0")
ZEROS = CORRECT.replace("x * 2.0 + 1.0", "x * 0.0")
# Walks its frames (possible with strict off) for the judge's offer to the parent and swaps its
# outputs for zeros, so that a later candidate returning zeros would match them: no frame of its
# process holds one (the judge is another process).
FORGER = """
import sys

import torch

from benchmark.evaluate.reference_store import pack


def zeros(obj):
    if isinstance(obj, torch.Tensor):
        return torch.zeros_like(obj)
    if isinstance(obj, list | tuple):
        return type(obj)(zeros(o) for o in obj)
    return obj


class ModelNew(torch.nn.Module):
    def forward(self, x):
        frame = sys._getframe()
        while frame is not None:
            judge, ref = frame.f_locals.get("self"), frame.f_locals.get("ref")
            if isinstance(ref, dict) and hasattr(judge, "offer"):
                judge.offer = None  # ... and the parent would store nothing, or zeros
                ref["outputs"] = zeros(ref["outputs"])
            frame = frame.f_back
        return x * 2.0 + 1.0
"""
# Reads every file under its own temporary folder's parent and the shared cache, and answers
# wrongly if one holds the reference's outputs (raw, or as the store encodes them; that needle is
# written reversed, so that this source, staged in the cache, does not hold it).
SCANNER = """
import os

import torch

NEEDLES = [bytes.fromhex("{raw}"), "{encoded_reversed}"[::-1].encode()]


def found() -> bool:
    for root in {{os.path.dirname(os.environ["TMPDIR"]), os.environ["SOLBENCH_CACHE"]}}:
        for folder, _, files in os.walk(root):
            for name in files:
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        data = f.read()
                except OSError:
                    continue
                if any(n in data for n in NEEDLES):
                    return True
    return False


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.found = found()

    def forward(self, x):
        return x * 0.0 if self.found else x * 2.0 + 1.0
"""


@pytest.fixture(scope="module")
def task(data_dir):
    return load_task(data_dir / "suite" / "level1" / "scale_shift.py")


@pytest.fixture(scope="module")
def config(build_cache) -> EvalConfig:
    """Fast CPU settings with strict off, as the candidates here are plain torch."""
    timing = TimingConfig(
        warmup_calls=1, warmup_seconds=0.0, min_runs=3, min_seconds=0.0, max_runs=20, max_seconds=0.2
    )
    return EvalConfig(
        device="cpu", trials=3, strict=False, timeout_s=600.0, timing=timing, cache_dir=build_cache
    )


@pytest.fixture(scope="module")
def warm(task, config):
    """One evaluation with an empty store: its verdict and the entry it left."""
    store = ReferenceStore()
    first = evaluate(task, CORRECT, config, reference_store=store)
    assert first.status is Status.PASS, first.error
    assert len(store) == 1
    return first, next(iter(store._entries.values()))


class Planted(ReferenceStore):
    """A store that hands every child `entry`, whatever the key."""

    def __init__(self, entry: StoredReference):
        super().__init__()
        self.planted = entry

    def get(self, key):
        return self.planted


def same_verdict(a, b) -> bool:
    return (a.status, a.flags, a.correctness) == (b.status, b.flags, b.correctness)


def test_second_sample_takes_the_reference_from_the_store(task, config):
    with Verifier(VerifierConfig(eval=config, build_workers=1)) as verifier:
        first = verifier.submit(task, CORRECT, sample=0).result()
        second = verifier.submit(task, CORRECT, sample=1).result()
        stats = verifier.reference_store.stats
    fresh = evaluate(task, CORRECT, config)
    assert first.env["reference_store"] == "miss" and second.env["reference_store"] == "hit"
    assert "reference_store" not in fresh.env
    assert same_verdict(first, second) and same_verdict(second, fresh), (first, second, fresh)
    assert second.correctness.passed == second.correctness.trials == 5
    assert second.reference_alone_time is not None  # timed in every child: it caps that child's own
    assert second.reference_time is not None and second.speedup is not None  # still timed beside it
    assert (stats.hits, stats.stored) == (1, 1)


def test_wrong_candidate_fails_against_the_stored_reference(task, config, warm):
    _, entry = warm
    v = evaluate(task, WRONG, config, reference_store=Planted(entry))
    assert v.env["reference_store"] == "hit"
    assert v.status is Status.INCORRECT and v.correctness.first_failing_trial == 0, v.error


@pytest.mark.parametrize(
    ("spoil", "why"),
    [
        (lambda e: e, "other inputs"),  # evaluated with seed 1: the entry is seed 0's
        (lambda e: dataclasses.replace(e, blob=base64.b64encode(b"not a reference").decode()), "unreadable"),
        (
            lambda e: StoredReference({**e.summary, "env": {**e.summary["env"], "torch": "0.0"}}, e.blob),
            "another environment",
        ),
    ],
    ids=["inputs", "unreadable", "environment"],
)
def test_an_entry_that_does_not_match_is_computed_afresh(task, config, warm, spoil, why):
    _, entry = warm
    cfg = dataclasses.replace(config, seed=1) if why == "other inputs" else config
    v = evaluate(task, CORRECT, cfg, reference_store=Planted(spoil(entry)))
    assert v.env["reference_store"].startswith("stale:") and why in v.env["reference_store"]
    assert v.status is Status.PASS, v.error  # judged against outputs of its own inputs


def test_outputs_over_the_entry_bound_are_recomputed_and_timings_kept(task, config):
    store = ReferenceStore(max_entry_bytes=1000)
    first = evaluate(task, CORRECT, config, reference_store=store)
    (entry,) = store._entries.values()
    assert entry.blob is None and entry.summary["sol_ms"] == first.sol_ms
    assert "reference_alone_time" not in entry.summary  # another process's time never caps this one's
    second = evaluate(task, WRONG, config, reference_store=store)
    assert first.env["reference_store"] == "miss" and second.env["reference_store"] == "measurements"
    assert second.status is Status.INCORRECT


def test_a_candidate_reaches_no_offer_and_cannot_pass_a_wrong_candidate(task, config):
    store = ReferenceStore()
    forger = evaluate(task, FORGER, config, reference_store=store)
    assert forger.status is Status.PASS, forger.error
    assert len(store) == 1 and store.stats.stored == 1  # the judge's own offer, untouched
    wrong = evaluate(task, ZEROS, config, reference_store=store)
    assert wrong.status is Status.INCORRECT, wrong.error  # would pass against forged zeros
    assert wrong.env["reference_store"] == "hit"


def test_candidate_finds_no_stored_outputs_on_the_filesystem(task, config, warm, tmp_path, monkeypatch):
    _, entry = warm
    module = task.load_module()
    program = TaskProgram(module, torch.device("cpu"))
    expected = program.build(module.Model, 0)(*program.inputs(input_seed(0) + 1000))  # trial 0's output
    raw = expected.contiguous().view(torch.uint8).numpy().tobytes()[:64]
    assert raw in base64.b64decode(entry.blob)  # the needle is what the store holds
    encoded = entry.blob[len(entry.blob) // 2 :][:64]  # as it travels in the job
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cfg = dataclasses.replace(config, cache_dir=tmp_path / "cache")
    code = SCANNER.format(raw=raw.hex(), encoded_reversed=encoded[::-1])
    v = evaluate(task, code, cfg, reference_store=Planted(entry))
    assert v.env["reference_store"] == "hit"
    assert v.status is Status.PASS, v.error  # it found nothing while the stored outputs were in use
    for folder, _, files in os.walk(tmp_path):
        for name in files:
            data = Path(folder, name).read_bytes()
            assert raw not in data and encoded.encode() not in data, name


def entry(blob_bytes: int, tag: str = "") -> StoredReference:
    return StoredReference({"format": STORE_FORMAT, "tag": tag}, "A" * blob_bytes)


def key(n: int) -> StoreKey:
    return StoreKey(f"task{n}", 0, "cpu", None, "settings")


def test_byte_bound_evicts_the_least_recently_used():
    size = entry(1000).nbytes
    store = ReferenceStore(max_bytes=3 * size, max_entry_bytes=2000)
    for n in range(3):
        assert store.put(key(n), entry(1000))
    assert store.get(key(0)) is not None  # now the most recently used
    store.put(key(3), entry(1000))
    assert store.get(key(1)) is None and store.get(key(0)) is not None
    assert store.nbytes <= 3 * size and store.stats.evicted == 1
    assert store.put(key(4), entry(5000)) and store.get(key(4)).blob is None  # outputs over the entry bound
    assert store.stats.blobs_dropped == 1
    assert not ReferenceStore(max_bytes=10).put(key(5), entry(0))  # not even the summary fits


def test_fingerprint_follows_values_shape_and_weights():
    model = torch.nn.Linear(64, 2)
    x = torch.randn(100, 64)  # more elements than the fingerprint samples

    def digest(m, values):
        f = Fingerprint(m)
        f.update(values)
        return f.hexdigest()

    base = digest(model, [x, 3])
    assert base == digest(model, [x.clone(), 3])
    sampled = set(torch.linspace(0, x.numel() - 1, SAMPLED_ELEMENTS).long().tolist())
    unsampled = next(i for i in range(x.numel()) if i not in sampled)
    y = x.clone()
    y.view(-1)[unsampled] += 1e-3  # one element no sampled value shows
    assert base != digest(model, [y, 3])
    assert base != digest(model, [x.reshape(64, 100), 3]) and base != digest(model, [x, 4])
    with torch.no_grad():
        model.weight[0, 0] += 1.0
    assert base != digest(model, [x, 3])


def test_fingerprint_samples_stay_inside_a_tensor_of_more_than_2_to_the_24_elements():
    """A float32 linspace of indices rounded past the end of such a tensor (a device-side assert on
    the H200); the integer spacing ends exactly on the last element."""
    from benchmark.evaluate.reference_store import Fingerprint

    big = torch.zeros((1 << 24) + 4, dtype=torch.uint8)  # its last index, 2^24 + 3, is no float32
    big[-1] = 7
    a, b = Fingerprint(None), Fingerprint(None)
    a.update([big])
    big[-1] = 8
    b.update([big])
    assert a.hexdigest() != b.hexdigest()  # the last element is sampled (and summed)
