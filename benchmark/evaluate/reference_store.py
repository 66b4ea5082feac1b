"""Reference work once per task: what a judge computed about the reference, kept by the parent for
the next sample of the same task.

Every sample's judge (benchmark.evaluate.judge) computes the reference's outputs (eager and exact,
for every correctness trial, timing set and stateful-check input), its floor and its brief time
alone. They depend only on the task, the seeds, the device and the evaluation settings, so the
evaluating parent keeps them (`ReferenceStore`, keyed by `StoreKey`, bounded in bytes, least
recently used out first) and hands them to the next judge of that key in its job. The judge never
runs candidate code and the candidate's process never sees the job, so nothing of the store reaches
a candidate. The store is never a file, since candidates may read the filesystem.

A judge checks what it is given before using it: its environment (GPU, torch, CUDA) must be the one
that computed it, and a fingerprint of the reference model's state and of every input set it
regenerates from the seeds must match; otherwise, or when anything fails, it computes as without a
store. What a judge computed itself it offers back in its report (`JudgeReport.reference_offer`).

Outputs are kept only up to `max_entry_bytes` per task: large outputs cost more to move through the
pipes than a GPU takes to recompute them. The floor and the timings, a few hundred bytes, are kept
for every task."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import torch

from benchmark.evaluate.boundary import JudgeJob, StoredReference, encode

STORE_FORMAT = 1  # of the summary and the blob; part of every key
DEFAULT_STORE_BYTES = 512 * 2**20
DEFAULT_ENTRY_BYTES = 4 * 2**20
SAMPLED_ELEMENTS = 4096  # values per tensor taken into the fingerprint, spread over the whole tensor
# The job fields that decide what the reference phase computes (the task itself is its hash).
REFERENCE_JOB_FIELDS = (
    "device",
    "trials",
    "seed",
    "input_seed",
    "baseline",
    "measure",
    "magnitude",
    "dtype",
    "timing",
)


@dataclass(frozen=True)
class StoreKey:
    task_hash: str
    seed: int
    device: str  # "cuda" or "cpu"
    gpu: int | None  # the device index the child was pinned to (its name is checked by the child)
    settings: str  # digest of the job's REFERENCE_JOB_FIELDS and STORE_FORMAT

    @classmethod
    def for_job(cls, task_hash: str, job: JudgeJob, gpu: int | None) -> StoreKey:
        plain = json.loads(encode(job))
        fields = {name: plain[name] for name in REFERENCE_JOB_FIELDS} | {"format": STORE_FORMAT}
        settings = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
        return cls(task_hash, job.seed, job.device, gpu, settings)


@dataclass
class StoreStats:
    hits: int = 0  # lookups that found an entry (the child may still find it stale)
    misses: int = 0
    stored: int = 0  # offers kept
    evicted: int = 0  # entries dropped for the byte bound
    blobs_dropped: int = 0  # offered outputs larger than the entry bound (the summary was kept)


class ReferenceStore:
    """The parent's store, in memory only, shared by the threads of a Verifier's lanes."""

    def __init__(self, max_bytes: int = DEFAULT_STORE_BYTES, max_entry_bytes: int = DEFAULT_ENTRY_BYTES):
        if max_bytes < 0 or max_entry_bytes < 0:
            raise ValueError("the reference store's byte bounds cannot be negative")
        self.max_bytes = max_bytes
        self.max_entry_bytes = min(max_entry_bytes, max_bytes)
        self.stats = StoreStats()
        self._entries: OrderedDict[StoreKey, StoredReference] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: StoreKey) -> StoredReference | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.stats.misses += 1
                return None
            self._entries.move_to_end(key)
            self.stats.hits += 1
            return entry

    def put(self, key: StoreKey, entry: StoredReference) -> bool:
        """Keep `entry`, dropping its blob when over the entry bound and the least recently used
        entries while over the store's bound; False when even its summary does not fit."""
        if entry.blob is not None and len(entry.blob) > self.max_entry_bytes:
            entry = dataclasses.replace(entry, blob=None)
            self.stats.blobs_dropped += 1
        if entry.nbytes > self.max_bytes:
            return False
        with self._lock:
            old = self._entries.pop(key, None)
            self._bytes -= old.nbytes if old else 0
            self._entries[key] = entry
            self._bytes += entry.nbytes
            self.stats.stored += 1
            while self._bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= dropped.nbytes
                self.stats.evicted += 1
        return True

    def job_fields(self, key: StoreKey) -> dict:
        """What a judge's job carries for the store (benchmark.evaluate.boundary.JudgeJob's fields)."""
        return {
            "reference": self.get(key),
            "reference_entry_bytes": self.max_entry_bytes,
            "keeps_reference": True,
        }


class Fingerprint:
    """A cheap digest of the reference model's state and of input sets, computed where they live (on
    the device): per tensor its shape, dtype, the sum modulo 2^64 of its bytes read as 64-bit words
    (exact, whatever the order of summation) and SAMPLED_ELEMENTS values spread over it. Any change
    of generator, seed or shape changes it."""

    def __init__(self, model: object):
        self._hash = hashlib.sha256()
        if isinstance(model, torch.nn.Module):
            self.update(list(model.state_dict().values()))

    def update(self, values: list) -> None:
        for v in values:
            if isinstance(v, torch.Tensor):
                self._tensor(v.detach())
            else:
                self._hash.update(repr(v).encode())
            self._hash.update(b";")

    def _tensor(self, t: torch.Tensor) -> None:
        self._hash.update(f"{tuple(t.shape)}|{t.dtype}|".encode())
        if t.numel() == 0:
            return
        flat = (torch.view_as_real(t) if t.is_complex() else t).contiguous().view(-1)
        bits = flat.view(
            {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[flat.element_size()]
        )
        raw = flat.view(torch.uint8)
        # 64-bit words where the bytes allow (a tenth of the time of widening each element on CPU)
        whole_words = raw.numel() % 8 == 0 and raw.storage_offset() % 8 == 0
        total = raw.view(torch.int64).sum() if whole_words else bits.sum(dtype=torch.int64)
        n, k = bits.numel(), min(bits.numel(), SAMPLED_ELEMENTS)
        # integer spacing: a float32 linspace rounds past the last element above 2^24 elements (an
        # out-of-bounds gather, a device-side assert on CUDA)
        idx = torch.arange(k, device=t.device, dtype=torch.int64) * (n - 1) // max(k - 1, 1)
        self._hash.update(str(int(total)).encode())
        self._hash.update(bits[idx].cpu().numpy().tobytes())

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


_LEAVES = (int, float, bool, str, type(None))


def storable(obj: object) -> bool:
    """Whether `obj` is plain tensors, numbers and strings in lists, tuples and dicts: what a
    `weights_only` load gives back unchanged (an output of torch.return_types, say, is not)."""
    if type(obj) is torch.Tensor:
        return True
    if type(obj) in (list, tuple):
        return all(storable(o) for o in obj)
    if type(obj) is dict:
        return all(type(k) is str and storable(v) for k, v in obj.items())
    return type(obj) in _LEAVES


def tensor_bytes(obj: object) -> int:
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, list | tuple):
        return sum(tensor_bytes(o) for o in obj)
    if isinstance(obj, dict):
        return sum(tensor_bytes(o) for o in obj.values())
    return 0


def pack(ref: dict) -> str:
    buf = io.BytesIO()
    torch.save(ref, buf)
    return base64.b64encode(buf.getvalue()).decode()


def unpack(blob: str, device: torch.device) -> dict:
    return torch.load(io.BytesIO(base64.b64decode(blob)), map_location=device, weights_only=True)


@dataclass
class Usage:
    """What a child took from the store, recorded in the verdict's env as `reference_store`: "hit"
    (everything), "outputs" or "measurements" (the floor and timings) only, "miss", or "stale: why"."""

    outputs: bool = False
    measurements: bool = False
    stale: list[str] = field(default_factory=list)  # why a stored entry was not used

    def describe(self, had_entry: bool) -> str:
        if self.stale:
            return "stale: " + "; ".join(self.stale)
        if not had_entry or not (self.outputs or self.measurements):
            return "miss"
        return "hit" if self.outputs and self.measurements else "outputs" if self.outputs else "measurements"
