"""A language-model teacher: any model backend of `benchmark.run` (an OpenAI-compatible server,
a local Hugging Face model, a replay file), sampling k answers per task from the benchmark's own
prompts (with the tensor metadata block). Answers become candidates after the benchmark's code
extraction; an answer without code is still recorded (the verifier calls it no_code), since its
feedback can start a repair turn."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from benchmark.extract import extract_code
from benchmark.models import GenerationRequest, get_backend
from benchmark.models.base import BackendOptions, SamplingParams
from datasets_builder.teachers.base import Candidate

log = logging.getLogger(__name__)


class ModelTeacher:
    def __init__(
        self, spec: str, sampling: SamplingParams | None = None, options: BackendOptions | None = None
    ):
        self.spec = spec
        self.name = f"model:{spec}"
        self.sampling = sampling or SamplingParams()
        self.backend = get_backend(spec, self.sampling, options)

    def describe(self) -> dict:
        return {
            **self.backend.describe(),
            "spec": self.spec,
            "samples": self.sampling.samples,
            "temperature": self.sampling.temperature,
            "top_p": self.sampling.top_p,
            "max_tokens": self.sampling.max_tokens,
        }

    def generate(
        self, requests: Sequence[GenerationRequest], parents: dict[tuple[str, int], str] | None = None
    ) -> list[Candidate]:
        """One candidate per request (in completion order); `parents` maps (task id, sample) to the
        candidate id of that sample's previous turn."""
        if not requests:
            return []
        self.backend.check()
        out = []
        for c in self.backend.generate(list(requests)):
            r = c.request
            if c.error is not None:
                code, reason = None, f"backend error: {c.error}"
            else:
                ex = extract_code(c.text)
                code, reason = ex.code, ex.reason
            out.append(
                Candidate(
                    task_id=r.task.task_id,
                    teacher=self.name,
                    code=code,
                    sample=r.sample,
                    turn=r.turn,
                    completion=c.text,
                    messages=tuple(r.messages),
                    parent=(parents or {}).get((r.task.task_id, r.sample)) if r.turn > 1 else None,
                    info={
                        "extraction": reason,
                        "prompt_tokens": c.prompt_tokens,
                        "completion_tokens": c.completion_tokens,
                    },
                )
            )
        return out
