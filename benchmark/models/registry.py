"""Making a backend from a run's --model spec (`scheme:ARG`): the built-in backends register
themselves with `base.register_backend` on import; this module imports them and looks the scheme up."""

from __future__ import annotations

from benchmark.models.base import BACKENDS, TRUSTED_SCHEMES, Backend, BackendOptions, SamplingParams
from benchmark.models.cache import CachedBackend, CompletionCache


def _register_builtins() -> None:
    import benchmark.models.hf_backend  # noqa: F401 - registers built-in backends
    import benchmark.models.openai_backend  # noqa: F401
    import benchmark.models.reference  # noqa: F401
    import benchmark.models.replay  # noqa: F401


def is_trusted(spec: str) -> bool:
    """Whether `spec` (a run's --model) names a trusted backend, without making one (which may
    need a file, a key or weights): what the leaderboard asks of a recorded run."""
    _register_builtins()
    return spec.partition(":")[0] in TRUSTED_SCHEMES


def get_backend(
    spec: str, sampling: SamplingParams | None = None, options: BackendOptions | None = None
) -> Backend:
    """`reference`, `replay:FILE.jsonl`, `openai:MODEL`, `hf:PATH_OR_ID`, and whatever else has
    been registered. Factories are called as `factory(arg, sampling=..., options=...)`."""
    _register_builtins()
    sampling = sampling or SamplingParams()
    options = options or BackendOptions()
    scheme, _, arg = spec.partition(":")
    if scheme not in BACKENDS:
        raise ValueError(f"unknown model {spec!r}; known schemes: {', '.join(sorted(BACKENDS))}")
    backend = BACKENDS[scheme](arg, sampling=sampling, options=options)
    backend.trusted = scheme in TRUSTED_SCHEMES
    if options.cache and backend.cache_identity() is not None:
        backend = CachedBackend(backend, CompletionCache(options.cache_dir), sampling)
    return backend
