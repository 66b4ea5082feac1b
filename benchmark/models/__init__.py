"""Model backends: where candidate code comes from. `get_backend("reference")`, `"replay:FILE"`."""

from benchmark.models.base import (
    Backend,
    Completion,
    GenerationRequest,
    get_backend,
    is_trusted,
    register_backend,
)

__all__ = ["Backend", "Completion", "GenerationRequest", "get_backend", "is_trusted", "register_backend"]
