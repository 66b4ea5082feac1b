"""Prompt templates: built-in prompts per kernel language, the GPU and reasoning blocks, user
templates, the feedback message of later turns, and the worked examples of the one-shot prompt."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from benchmark.prompts import PromptBuilder, PromptConfig, PromptError, gpu_context, trim_error
from benchmark.prompts.render import TEMPLATE_DIR
from benchmark.task import load_task
from benchmark.verdict import Correctness, Status, Verdict

TASK = """import torch
import torch.nn as nn

SOLBENCH = {"level": 1, "dtype": "float32"}


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(64, 64)]


def get_init_inputs():
    return []
"""
H200 = {  # a benchmark.evaluate.device_profile record plus what torch reports
    "gpu": "NVIDIA H200",
    "bandwidth": 4.3e12,
    "matmul": {"float32": 5.1e13, "tf32": 4.0e14, "bfloat16": 7.9e14, "float16": 7.9e14},
    "measured": "2026-01-01",
    "method": "copy + matmul",
    "multi_processor_count": 132,
    "total_memory": 150 * 2**30,
}


@pytest.fixture
def task(tmp_path):
    path = tmp_path / "suite" / "level1" / "relu.py"
    path.parent.mkdir(parents=True)
    path.write_text(TASK)
    return load_task(path, root=tmp_path / "suite")


def user_text(task, **kw) -> str:
    system, user = PromptBuilder(PromptConfig(**kw)).first_turn(task)
    assert system["role"] == "system" and user["role"] == "user"
    return user["content"]


def test_zero_shot_cuda(task):
    text = user_text(task)
    assert TASK.strip() in text and "level1/relu" in text
    assert "load_inline" in text and "CUDA C++" in text and "triton" not in text.lower()
    assert "worked example" not in text and "Target GPU" not in text and "Semantic decomposition" not in text
    assert "class ModelNew(nn.Module)" in text
    assert "\n\n\n\n" not in text.replace(TASK.strip(), "")  # no stray blank lines from the templates


def test_one_shot_triton_with_scaffold_and_gpu(task):
    text = user_text(task, name="one-shot", backend="triton", reasoning=True, gpu=H200)
    assert "worked example" in text and "swish_residual_kernel" in text and "@triton.jit" in text
    assert "load_inline" not in text
    for step in (
        "Semantic decomposition",
        "Scalar math",
        "Shape computation",
        "Index mapping",
        "Boundary handling",
        "Error pre-analysis",
    ):
        assert step in text
    assert "Target GPU: NVIDIA H200, 132 streaming multiprocessors, about 4300 GB/s" in text
    assert text.index("worked example") < text.index("Target GPU") < text.index("level1/relu")


def test_one_shot_cuda_example(task):
    text = user_text(task, name="one_shot", backend="cuda")
    assert "swish_residual_ext.swish_residual" in text and "cuda_sources=cuda_source" in text


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (H200, {"name": "NVIDIA H200", "sms": 132, "bandwidth_gbs": 4300.0, "memory_gib": 150.0}),
        (
            {"name": "Test GPU", "sms": 8, "bandwidth_gbs": 100},
            {"name": "Test GPU", "sms": 8, "bandwidth_gbs": 100},
        ),
        ({"name": "Bare GPU"}, {"name": "Bare GPU", "sms": None, "bandwidth_gbs": None}),
    ],
)
def test_gpu_context(profile, expected):
    got = gpu_context(profile)
    assert {k: got[k] for k in expected} == expected


def test_gpu_block_needs_a_name(task):
    with pytest.raises(PromptError, match="needs a name"):
        PromptBuilder(PromptConfig(gpu={"sms": 4}))


def test_bare_gpu_block_renders(task):
    assert "Target GPU: Bare GPU.\n" in user_text(task, gpu={"name": "Bare GPU"})


def test_user_template_extending_base(task, tmp_path):
    path = tmp_path / "mine.j2"
    path.write_text(
        '{% extends "base.j2" %}\n{% block intro %}Make {{ task.name }} fast on {{ backend }}.\n\n'
        "{% endblock %}\n"
    )
    text = user_text(task, name=str(path), backend="triton")
    assert text.startswith("Make relu fast on triton.\n\n") and "@triton.jit" in text and TASK.strip() in text


def test_plain_user_template(task, tmp_path):
    path = tmp_path / "plain.j2"
    path.write_text("Kernel for:\n{{ task.source }}")
    assert user_text(task, name=str(path)) == "Kernel for:\n" + TASK


@pytest.mark.parametrize(
    ("name", "message"),
    [("few-shot", "unknown prompt 'few-shot'"), ("missing.j2", "does not exist")],
)
def test_bad_prompt_names(name, message):
    with pytest.raises(PromptError, match=message):
        PromptBuilder(PromptConfig(name=name))


def test_unknown_variable_in_a_user_template(task, tmp_path):
    path = tmp_path / "typo.j2"
    path.write_text("{{ taks.source }}")
    with pytest.raises(PromptError, match=r"typo.j2.*'taks' is undefined"):
        PromptBuilder(PromptConfig(name=str(path))).first_turn(task)


def test_bad_backend():
    with pytest.raises(PromptError, match="cuda, triton"):
        PromptConfig(backend="opencl")


def test_describe_hashes_the_templates(tmp_path):
    path = tmp_path / "mine.j2"
    path.write_text("A {{ task.id }}")
    first = PromptBuilder(PromptConfig(name=str(path))).describe()
    path.write_text("B {{ task.id }}")
    assert (
        PromptBuilder(PromptConfig(name=str(path))).describe()["templates_sha256"]
        != first["templates_sha256"]
    )
    assert PromptBuilder(PromptConfig()).describe()["prompt"] == "zero-shot"


def verdict(status: Status, **kw) -> Verdict:
    return Verdict(task_id="level1/relu", status=status, turn=1, **kw)


@pytest.mark.parametrize(
    ("v", "needles"),
    [
        (
            verdict(
                Status.COMPILE_ERROR, error='build failed:\nk.cu(3): error: identifier "foo" is undefined'
            ),
            ["did not build", 'identifier "foo" is undefined', "Fix it"],
        ),
        (
            verdict(Status.RUNTIME_ERROR, error="RuntimeError: CUDA error: an illegal memory access"),
            ["raised an error", "illegal memory access"],
        ),
        (
            verdict(
                Status.INCORRECT,
                error="output: 10 of 4096 elements differ; first at index [3, 7]",
                correctness=Correctness(trials=5, passed=2, max_abs_err=0.25, max_rel_err=1.5),
            ),
            [
                "does not match",
                "2 of 5 checks passed",
                "max absolute error 0.25",
                "max relative error 1.5",
                "first at index [3, 7]",
            ],
        ),
        (verdict(Status.CHEAT, flags=("aten_compute_op", "side_stream")), ["aten_compute_op, side_stream"]),
        (
            verdict(Status.TIMEOUT, error="timed out after 300 s"),
            ["did not finish in time", "timed out after 300 s"],
        ),
        (
            verdict(Status.NO_CODE, error="no code block and no ModelNew in the completion"),
            ["No usable code", "no code block"],
        ),
        (verdict(Status.PASS, speedup=0.8), ["is correct, at 0.80x", "Make it faster"]),
    ],
    ids=lambda x: x.status.value if isinstance(x, Verdict) else None,
)
def test_feedback_by_status(task, v, needles):
    builder = PromptBuilder(PromptConfig(backend="triton"))
    first = builder.first_turn(task)
    messages = builder.next_turn(
        first, "<think>long musing</think>\nMy answer:\n```python\nx = 1\n```", v, turns=3
    )
    assert messages[:2] == first
    assert messages[2] == {"role": "assistant", "content": "My answer:\n```python\nx = 1\n```"}
    feedback = messages[3]
    assert feedback["role"] == "user"
    for needle in needles:
        assert needle in feedback["content"]
    assert "Triton kernels" in feedback["content"] and "attempt 2 of 3" in feedback["content"]


def test_last_turn_says_so(task):
    builder = PromptBuilder(PromptConfig())
    v = dataclasses.replace(verdict(Status.NO_CODE), turn=2)
    assert "your last attempt" in builder.next_turn(builder.first_turn(task), "", v, turns=3)[-1]["content"]


def test_empty_answer_is_kept_as_a_placeholder(task):
    builder = PromptBuilder(PromptConfig())
    messages = builder.next_turn(
        builder.first_turn(task), "<think>ran out of tokens", verdict(Status.NO_CODE), 2
    )
    assert messages[2]["content"] == "(no answer)"


def test_trim_error_keeps_head_and_tail():
    log = "\n".join([f"k.cu({i}): error: thing {i} went wrong" for i in range(500)] + ["x" * 5000])
    trimmed = trim_error(log)
    assert len(trimmed) < 3200
    assert "thing 0 went" in trimmed and "characters cut" in trimmed and trimmed.endswith("x ...")
    assert trim_error("same\nsame\nsame\nother") == "same\nother"


# The worked example of the one-shot prompt: a real task and answers that must stay correct.


def test_raw_cuda_prompt_teaches_the_helper():
    from benchmark.evaluate.anticheat.static import analyze

    rules = (
        PromptBuilder(PromptConfig(name="one-shot", backend="cuda-raw"))
        .env.get_template("rules_cuda-raw.j2")
        .render()
    )
    assert "compile_cuda" in rules and "PPq" in rules
    assert analyze(example_answer("cuda-raw")) == []  # the worked example itself is legal


def test_helion_prompt_teaches_a_fixed_config(task):
    from benchmark.evaluate.anticheat.static import analyze

    messages = PromptBuilder(PromptConfig(name="one-shot", backend="helion")).first_turn(task)
    assert "Helion kernels" in messages[0]["content"]
    user = messages[1]["content"]
    assert "@helion.kernel(config=helion.Config(" in user and "Fix every kernel's configuration" in user
    assert 'dot_precision="ieee"' in user and "hl.tile" in user
    assert analyze(example_answer("helion")) == []  # the worked example itself is legal


def example_answer(backend: str) -> str:
    text = (TEMPLATE_DIR / f"example_{backend}.j2").read_text()
    return text.split("```python\n", 1)[1].rsplit("```", 1)[0]


def example_task(tmp_path) -> Path:
    path = tmp_path / "level1" / "swish_residual.py"
    path.parent.mkdir(parents=True)
    path.write_text((TEMPLATE_DIR / "example_task.j2").read_text())
    return path


@pytest.mark.parametrize(
    "name",
    ["example_task.j2", "example_cuda.j2", "example_triton.j2", "example_cuda-raw.j2", "example_helion.j2"],
)
def test_examples_are_verbatim(name):
    raw = (TEMPLATE_DIR / name).read_text()
    env = PromptBuilder(PromptConfig()).env
    assert env.get_template(name).render() == raw  # no jinja syntax hides in the example code


def test_example_task_runs_on_cpu(tmp_path):
    task = load_task(example_task(tmp_path), root=tmp_path)
    module = task.load_module()
    model = module.Model(*module.get_init_inputs())
    x, residual = (t[:4, :4] for t in module.get_inputs())
    assert model(x, residual).shape == (4, 4)


@pytest.mark.parametrize("backend", ["cuda", "triton", "cuda-raw", "helion"])
def test_example_answers_parse(backend):
    tree = ast.parse(example_answer(backend))
    assert any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body)


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["cuda", "triton", "cuda-raw", "helion"])
def test_example_answers_pass_the_harness(backend, tmp_path):
    from benchmark.evaluate.harness import EvalConfig, evaluate

    if backend == "helion":
        pytest.importorskip("helion")
    task = load_task(example_task(tmp_path), root=tmp_path)
    v = evaluate(task, example_answer(backend), EvalConfig(device="cuda", cache_dir=tmp_path / "cache"))
    assert v.status is Status.PASS, (v.error, v.flags)
    assert v.speedup and v.speedup > 1.0  # one fused pass beats eager's three


def test_the_cli_offers_every_prompt_backend():
    from benchmark.prompts.render import BACKENDS
    from benchmark.run import build_parser

    action = next(a for a in build_parser()._actions if "--backend" in a.option_strings)
    assert set(action.choices) == set(BACKENDS)
    assert build_parser().parse_args(["--model", "reference", "--backend", "helion"]).backend == "helion"
