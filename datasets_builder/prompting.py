"""Prompts of the training data: the benchmark's own prompt templates (benchmark.prompts), with the
task's tensor metadata (metadata.py) inserted before the answer instructions, and optionally the
six-step reasoning scaffold the templates already offer. Training rows and RL prompts are built
from exactly the messages a model would be asked at evaluation time, plus the metadata block."""

from __future__ import annotations

from dataclasses import dataclass

from benchmark.prompts import PromptBuilder, PromptConfig
from benchmark.task import Task
from datasets_builder.metadata import TaskMetadata

ANSWER_MARKER = "Answer with the complete new file"


@dataclass(frozen=True)
class PromptOptions:
    prompt: str = "zero-shot"  # a built-in prompt of benchmark.prompts, or a .j2 path
    backend: str = "triton"  # the kernel language the answers use
    reasoning: bool = False  # ask for the six-step reasoning scaffold
    metadata: bool = True  # insert the tensor metadata block
    gpu: dict | None = None  # a device description for the GPU block (see benchmark.prompts.gpu_context)

    def builder(self) -> PromptBuilder:
        return PromptBuilder(
            PromptConfig(name=self.prompt, backend=self.backend, gpu=self.gpu, reasoning=self.reasoning)
        )


def with_metadata(text: str, meta: TaskMetadata) -> str:
    """The user message with the metadata block placed before the answer instructions (or appended)."""
    block = meta.render()
    at = text.find(ANSWER_MARKER)
    if at < 0:
        return text.rstrip() + "\n\n" + block + "\n"
    return text[:at] + block + "\n\n" + text[at:]


def first_turn(
    builder: PromptBuilder, task: Task, meta: TaskMetadata | None, options: PromptOptions
) -> tuple[dict, ...]:
    messages = [dict(m) for m in builder.first_turn(task)]
    if options.metadata and meta is not None:
        messages[-1]["content"] = with_metadata(messages[-1]["content"], meta)
    return tuple(messages)


def answer(code: str, preamble: str | None = None) -> str:
    """An assistant turn holding a solution file, as a model is asked to answer."""
    head = f"{preamble.strip()}\n\n" if preamble else ""
    return f"{head}```python\n{code.rstrip()}\n```"
