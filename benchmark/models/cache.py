"""The on-disk completion cache: an interrupted or repeated run never pays twice for a completion.

A completion is keyed by the backend's identity (model, endpoint, weights), the prompt messages,
the sampling parameters that shape one completion (temperature, top-p, max tokens, seed) and the
sample index; the number of samples K is not part of the key, so raising K reuses the first ones.
Failed requests are never stored. One JSON file per entry, written atomically, so concurrent runs
can share a cache directory. Default location: $SOLBENCH_CACHE/completions, else
~/.cache/solbench/completions."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path

from benchmark.models.base import Backend, Completion, GenerationRequest, SamplingParams
from benchmark.records import atomic_write_text

log = logging.getLogger(__name__)
CACHE_FORMAT = 1


class CompletionCache:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def key(self, identity: dict, request: GenerationRequest, sampling: SamplingParams) -> str:
        blob = {
            "format": CACHE_FORMAT,
            "backend": identity,
            "messages": list(request.messages),
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
            "seed": sampling.seed_for(request.sample),
            "sample": request.sample,
        }
        return hashlib.sha256(json.dumps(blob, sort_keys=True).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        path = self._path(key)
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            log.warning("ignoring unreadable cache entry %s (%s)", path, e)
            return None

    def put(self, key: str, entry: dict) -> None:
        atomic_write_text(self._path(key), json.dumps(entry))


def _slot(req: GenerationRequest) -> tuple[str, int, int]:
    return req.task.task_id, req.sample, req.turn


class CachedBackend(Backend):
    """Answers what it can from the cache and forwards the rest to the wrapped backend. The inner
    backend's `check` runs only when some request misses, so a fully cached rerun touches no server."""

    def __init__(self, inner: Backend, cache: CompletionCache, sampling: SamplingParams):
        self.inner = inner
        self.cache = cache
        self.sampling = sampling
        self.identity = inner.cache_identity()
        self.name = inner.name
        self.trusted = inner.trusted
        self.uses_prompts = inner.uses_prompts
        self.hits = 0
        self.misses = 0
        self._checked = False

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[Completion]:
        keyed = [(req, self.cache.key(self.identity, req, self.sampling)) for req in requests]
        hits, misses = [], {}
        for req, key in keyed:
            entry = self.cache.get(key)
            if entry is None:
                misses[_slot(req)] = key
            else:
                hits.append(
                    Completion(
                        req,
                        entry["text"],
                        entry.get("prompt_tokens"),
                        entry.get("completion_tokens"),
                        meta={**entry.get("meta", {}), "cached": True},
                    )
                )
        if misses:
            self.check()
        log.info("completion cache: %d hit(s), %d request(s) to make", len(hits), len(misses))
        for completion in hits:
            self.hits += 1
            yield completion
        pending = [req for req, _ in keyed if _slot(req) in misses]
        for completion in self.inner.generate(pending) if pending else ():
            self.misses += 1
            if completion.error is None:
                self.cache.put(
                    misses[_slot(completion.request)],
                    {
                        "text": completion.text,
                        "prompt_tokens": completion.prompt_tokens,
                        "completion_tokens": completion.completion_tokens,
                        "meta": completion.meta,
                    },
                )
            yield completion

    def check(self) -> None:
        if not self._checked:
            self.inner.check()
            self._checked = True

    def cache_identity(self) -> dict | None:
        return self.identity

    def describe(self) -> dict:
        return {**self.inner.describe(), "cache": str(self.cache.root)}
