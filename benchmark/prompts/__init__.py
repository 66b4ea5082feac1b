"""Prompt templates (jinja2, in this package) and their rendering into chat messages."""

from benchmark.prompts.feedback import feedback_context, trim_error
from benchmark.prompts.render import BACKENDS, BUILTIN, PromptBuilder, PromptConfig, PromptError, gpu_context

__all__ = [
    "BACKENDS",
    "BUILTIN",
    "PromptBuilder",
    "PromptConfig",
    "PromptError",
    "feedback_context",
    "gpu_context",
    "trim_error",
]
