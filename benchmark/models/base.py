"""The model interface. A backend turns generation requests into completions; the runner extracts
code from each completion and evaluates it. Backends register under a scheme: `--model
SCHEME:ARG` (or a bare name such as `reference`) picks one."""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from benchmark.task import Task


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


class Backend(abc.ABC):
    """A source of completions. `trusted` backends (the reference baseline) are not held to the
    anti-cheat rules, since their code is the task's own PyTorch."""

    name: str = "backend"
    trusted: bool = False
    uses_prompts: bool = True

    @abc.abstractmethod
    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[Completion]:
        """Yield one completion per request, in any order."""

    def describe(self) -> dict:
        """What run.json records about this backend."""
        return {"backend": self.name}


_REGISTRY: dict[str, Callable[[str], Backend]] = {}


def register_backend(scheme: str):
    def wrap(factory: Callable[[str], Backend]):
        _REGISTRY[scheme] = factory
        return factory

    return wrap


def get_backend(spec: str, **options) -> Backend:
    """`reference`, `replay:FILE.jsonl`, and whatever else has been registered."""
    import benchmark.models.reference  # noqa: F401 - registers built-in backends
    import benchmark.models.replay  # noqa: F401

    scheme, _, arg = spec.partition(":")
    if scheme not in _REGISTRY:
        raise ValueError(f"unknown model {spec!r}; known schemes: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[scheme](arg, **options)
