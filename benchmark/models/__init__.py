"""Model backends: where candidate code comes from. `get_backend("reference")`, `"replay:FILE"`."""

from benchmark.models.base import Backend, Completion, GenerationRequest, register_backend
from benchmark.models.registry import get_backend, is_trusted

__all__ = ["Backend", "Completion", "GenerationRequest", "get_backend", "is_trusted", "register_backend"]
