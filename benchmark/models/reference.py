"""`--model reference`: the task's own Model served as ModelNew, the sanity baseline (speedup ~1)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from benchmark.models.base import Backend, Completion, GenerationRequest, register_backend


def reference_candidate(task_source: str) -> str:
    return f"{task_source}\n\nModelNew = Model\n"


class ReferenceBackend(Backend):
    name = "reference"
    uses_prompts = False

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[Completion]:
        for req in requests:
            yield Completion(req, f"```python\n{reference_candidate(req.task.source)}```")


@register_backend("reference", trusted=True)
def _make(arg: str, **options) -> Backend:
    return ReferenceBackend()
