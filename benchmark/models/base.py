"""The model interface. A backend turns generation requests into completions; the runner extracts
code from each completion and evaluates it. Backends register under a scheme: `--model
SCHEME:ARG` (or a bare name such as `reference`) picks one.

Built in: `reference`, `replay:FILE.jsonl`, `openai:MODEL` (any OpenAI-compatible endpoint) and
`hf:PATH_OR_ID` (local transformers generation). Backends that declare a `cache_identity` get the
on-disk completion cache (benchmark.models.cache) unless it is switched off."""

from __future__ import annotations

import abc
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.task import Task


@dataclass(frozen=True)
class SamplingParams:
    samples: int = 1  # K completions per task
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 8192
    seed: int | None = None  # sample i of a task uses seed + i, so K samples differ but reproduce

    def __post_init__(self):
        if self.samples < 1:
            raise ValueError("samples must be at least 1")
        if self.temperature < 0:
            raise ValueError("temperature must be >= 0")
        if not 0 < self.top_p <= 1:
            raise ValueError("top_p must be in (0, 1]")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")

    def seed_for(self, sample: int) -> int | None:
        return None if self.seed is None else self.seed + sample


def default_completion_cache() -> Path:
    root = os.environ.get("SOLBENCH_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "solbench") / "completions"


@dataclass(frozen=True)
class BackendOptions:
    """How to reach and drive a model; each backend reads the fields that concern it."""

    # Remote endpoints (openai:)
    base_url: str | None = None  # None: the provider's default (api.openai.com)
    api_key_env: str = "OPENAI_API_KEY"  # environment variable that holds the key
    concurrency: int = 8  # requests in flight (openai:), or generation batch size (hf:)
    request_timeout: float = 600.0  # seconds per request
    max_retries: int = 8  # on 429, 5xx, timeouts and dropped connections, with exponential backoff
    # Local generation (hf:)
    device: str | None = None  # None: cuda when available
    dtype: str = "auto"  # auto | float32 | bfloat16 | float16
    # a static KV cache, whose decoding step transformers compiles on CUDA: faster once compiled, each
    # new batch shape compiling again (HFBackend pads prompts to a multiple of COMPILE_PAD so shapes recur)
    compile: bool = False
    # (GPU index, lock path) of each GPU the run's verifier times on: a backend that generates on one
    # holds its lock shared around each batch, so no timing runs beside it (benchmark.evaluate.gpu_lock)
    device_locks: tuple[tuple[int, str], ...] = ()
    # Completion cache
    cache: bool = True
    cache_dir: Path = field(default_factory=default_completion_cache)

    def __post_init__(self):
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.request_timeout <= 0:
            raise ValueError("request_timeout must be positive")
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.dtype not in ("auto", "float32", "bfloat16", "float16"):
            raise ValueError(f"dtype must be auto, float32, bfloat16 or float16, not {self.dtype!r}")


@dataclass(frozen=True)
class GenerationRequest:
    task: Task
    sample: int  # sample index within the task, 0..K-1
    turn: int = 1
    messages: tuple[dict, ...] = ()  # chat messages (role, content); empty for backends that ignore prompts


@dataclass(frozen=True)
class Completion:
    request: GenerationRequest
    text: str  # the raw model output (code is extracted from it by the runner)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None  # the backend failed for this request; the sample gets no_code
    meta: dict = field(default_factory=dict)


class BackendError(RuntimeError):
    """The backend cannot serve the run at all (bad key, unknown model, server down): one message,
    and the run stops before it records anything it could not have evaluated fairly."""


class Backend(abc.ABC):
    """A source of completions. `trusted` backends (the reference baseline, registered with
    `trusted=True`) are not held to the anti-cheat rules, since their code is the task's own PyTorch."""

    name: str = "backend"
    trusted: bool = False
    uses_prompts: bool = True

    @abc.abstractmethod
    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[Completion]:
        """Yield one completion per request, in any order. Raise BackendError when no request can
        succeed; report a failure of one request in `Completion.error`."""

    def check(self) -> None:
        """Fail fast (BackendError) when the model cannot be reached; called before the first
        request that is not answered from the cache. Idempotent: cheap after the first call."""
        return None

    def cache_identity(self) -> dict | None:
        """What, besides prompt, sampling and sample index, determines a completion (model,
        endpoint, weights); None: never cache this backend."""
        return None

    def describe(self) -> dict:
        """What run.json records about this backend."""
        return {"backend": self.name}

    def unused_records(self, task_ids: Sequence[str], task_names: Sequence[str]) -> list[str]:
        """Recorded completions that no selected task will ask for (a replay file's), so the run
        can say so instead of dropping them without a word; live backends record none."""
        return []


BACKENDS: dict[str, Callable[..., Backend]] = {}
TRUSTED_SCHEMES: set[str] = set()  # schemes whose code is the task's own PyTorch


def register_backend(scheme: str, *, trusted: bool = False):
    """Register a factory for `scheme:ARG` models; `trusted` ones are the reference baseline, which
    the anti-cheat rules do not hold (see Backend)."""

    def wrap(factory: Callable[..., Backend]):
        BACKENDS[scheme] = factory
        if trusted:
            TRUSTED_SCHEMES.add(scheme)
        return factory

    return wrap
