"""Prompts as chat messages: jinja2 templates in this package, or a template file of the user's.

A conversation starts with a system message (system.j2) and a user message rendered from the
chosen prompt: `zero-shot` (zero_shot.j2) or `one-shot` (one_shot.j2, with a worked example of our
own), or the path of a .j2 file, which may `{% extends "base.j2" %}` and override its blocks. Each
later turn appends the model's previous answer and a feedback message (feedback.j2) built from the
harness's verdict on it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import jinja2

from benchmark.extract import strip_reasoning
from benchmark.prompts.feedback import feedback_context
from benchmark.task import Task
from benchmark.verdict import Verdict

TEMPLATE_DIR = Path(__file__).parent
BACKENDS = {
    "cuda": "CUDA C++",
    "triton": "Triton",
    "cuda-raw": "CUDA C (compiled with pycuda)",
    "helion": "Helion",
}
BUILTIN = ("zero-shot", "one-shot")
EMPTY_ANSWER = "(no answer)"


class PromptError(ValueError):
    pass


def shown_answer(completion: str) -> str:
    """How a model's answer appears in a later turn: its reasoning section dropped."""
    return strip_reasoning(completion).strip() or EMPTY_ANSWER


def continued(messages, answer: str, feedback: str) -> tuple[dict, ...]:
    """The conversation continued by an answer, as shown (shown_answer, or a repair prompt's fenced
    code), and the feedback on it: the one shape of every later turn, in evaluation, dataset
    building and RL alike."""
    return (*messages, {"role": "assistant", "content": answer}, {"role": "user", "content": feedback})


@dataclass(frozen=True)
class PromptConfig:
    name: str = "zero-shot"  # a built-in prompt (zero-shot, one-shot) or the path of a .j2 file
    backend: str = "cuda"  # kernel language: cuda (load_inline CUDA C++), triton, cuda-raw or helion
    gpu: dict | None = None  # a device description (see gpu_context); None: no GPU block
    reasoning: bool = False  # ask for the six-step reasoning scaffold before the code

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise PromptError(f"prompt backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if not _is_builtin(self.name) and not self.name.endswith(".j2") and not Path(self.name).is_file():
            raise PromptError(
                f"unknown prompt {self.name!r}: use {' or '.join(BUILTIN)}, or the path of a .j2 template"
            )


def _is_builtin(name: str) -> bool:
    return name.replace("_", "-") in BUILTIN


def _first(d: dict, *keys):
    return next((d[k] for k in keys if d.get(k) is not None), None)


def gpu_context(profile: dict) -> dict:
    """The GPU block's variables from a device description: a benchmark.evaluate.device_profile record
    (gpu, bandwidth in bytes/s, matmul in FLOP/s) plus what torch reports (multi_processor_count,
    total_memory), or plain keys (name, sms, bandwidth_gbs, memory_gib)."""
    name = _first(profile, "name", "gpu")
    if not name:
        raise PromptError("a GPU description needs a name ('name' or 'gpu')")
    bandwidth = _first(profile, "bandwidth_gbs")
    if bandwidth is None and profile.get("bandwidth"):
        bandwidth = float(profile["bandwidth"]) / 1e9
    memory = _first(profile, "memory_gib")
    if memory is None and profile.get("total_memory"):
        memory = float(profile["total_memory"]) / 2**30
    matmul = profile.get("matmul") or {}
    return {
        "name": str(name),
        "sms": _first(profile, "sms", "sm_count", "multi_processor_count"),
        "bandwidth_gbs": bandwidth,
        "memory_gib": memory,
        "matmul_tflops": {
            k: float(v) / 1e12 for k, v in matmul.items() if k in ("bfloat16", "float32") and v
        },
    }


class PromptBuilder:
    """Renders the messages of every turn for one prompt configuration."""

    def __init__(self, config: PromptConfig):
        self.config = config
        search = [str(TEMPLATE_DIR)]
        if not _is_builtin(config.name):
            path = Path(config.name)
            if not path.is_file():
                raise PromptError(f"prompt template {path} does not exist")
            search.insert(0, str(path.parent.resolve()))
            self.template_name = path.name
        else:
            self.template_name = config.name.replace("-", "_") + ".j2"
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(search),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
        )
        self.gpu = gpu_context(config.gpu) if config.gpu else None

    def _render(self, name: str, **context) -> str:
        try:
            text = self.env.get_template(name).render(**context)
        except jinja2.TemplateError as e:
            where = f" (line {e.lineno})" if getattr(e, "lineno", None) else ""
            raise PromptError(f"prompt template {name}{where}: {e.message or e}") from e
        return text.strip() + "\n"

    def _common(self) -> dict:
        return {"backend": self.config.backend, "backend_name": BACKENDS[self.config.backend]}

    def first_turn(self, task: Task) -> tuple[dict, ...]:
        task_vars = {
            "id": task.task_id,
            "name": task.name,
            "source": task.source,
            "level": task.level,
            "dtype": task.dtype,
            "description": task.meta.get("description"),
            "tags": list(task.tags),
        }
        user = self._render(
            self.template_name,
            **self._common(),
            task=task_vars,
            gpu=self.gpu,
            reasoning=self.config.reasoning,
        )
        return (
            {"role": "system", "content": self._render("system.j2", **self._common())},
            {"role": "user", "content": user},
        )

    def next_turn(
        self, messages: tuple[dict, ...], answer: str, verdict: Verdict, turns: int
    ) -> tuple[dict, ...]:
        """The conversation continued by the previous answer (its reasoning section dropped) and
        the harness's feedback on it."""
        feedback = self._render(
            "feedback.j2", **self._common(), **feedback_context(verdict), turn=verdict.turn + 1, turns=turns
        )
        return continued(messages, shown_answer(answer), feedback)

    def describe(self) -> dict:
        """What run.json records: the choices and a hash of the template texts used."""
        digest = hashlib.sha256()
        for name in sorted(self.env.list_templates(extensions=["j2"])):
            source, _, _ = self.env.loader.get_source(self.env, name)
            digest.update(name.encode() + b"\0" + source.encode())
        return {
            "prompt": self.config.name,
            "backend": self.config.backend,
            "reasoning": self.config.reasoning,
            "gpu": self.gpu,
            "templates_sha256": digest.hexdigest()[:16],
        }
