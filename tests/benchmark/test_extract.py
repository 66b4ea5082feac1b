"""Code extraction against the shapes real completions take."""

from __future__ import annotations

import pytest

from benchmark.extract import extract_code, strip_reasoning

CODE = """import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x + 1
"""
DRAFT = CODE.replace("x + 1", "x + 2")  # an earlier, different version
CUDA = "__global__ void k(float* x) { x[threadIdx.x] += 1.0f; }\n"
BROKEN = "class ModelNew(nn.Module:\n    pass\n"
ALIAS = "import torch\nclass Fast(torch.nn.Module):\n    pass\n\nModelNew = Fast\n"


def fence(code: str, tag: str = "python", marks: str = "```") -> str:
    return f"{marks}{tag}\n{code}{marks}\n"


# (name, completion, expected code or None, words the reason must contain)
CASES = [
    ("python fence", fence(CODE), CODE, "block 1 of 1"),
    ("fence without a language tag", fence(CODE, tag=""), CODE, "defines ModelNew"),
    (
        "py tag and prose around",
        f"Sure! Here it is:\n\n{fence(CODE, 'py')}\nThis fuses the add.",
        CODE,
        "defines",
    ),
    ("capitalised tag with attributes", fence(CODE, 'Python title="model_new.py"'), CODE, "defines"),
    ("tilde fence", fence(CODE, marks="~~~"), CODE, "defines"),
    (
        "four-backtick fence holding a triple-backtick string",
        fence(CODE + 'DOC = """\n```\nexample\n```\n"""\n', marks="````"),
        CODE + 'DOC = """\n```\nexample\n```\n"""\n',
        "defines",
    ),
    (
        "reasoning, then a cuda block, then the python block",
        f"First I analyse the op.\n\n{fence(CUDA, 'cuda')}\nNow the wrapper:\n\n{fence(CODE)}",
        CODE,
        "block 2 of 2",
    ),
    (
        "draft then final: the last defining block wins",
        f"Draft:\n{fence(DRAFT)}\nWait, that is wrong. Fixed:\n{fence(CODE)}",
        CODE,
        "block 2 of 2",
    ),
    (
        "usage example after the solution",
        f"{fence(CODE)}\nUse it like this:\n{fence('m = ModelNew()', 'python')}",
        CODE,
        "block 1 of 2",
    ),
    (
        "think section holding a draft",
        f"<think>\nMaybe:\n{fence(DRAFT)}\n</think>\n\n{fence(CODE)}",
        CODE,
        "defines",
    ),
    (
        "closing think tag only (opening tag was in the prompt)",
        f"Let me try {fence(DRAFT)} hmm.\n</think>\nFinal answer:\n{fence(CODE)}",
        CODE,
        "defines",
    ),
    ("missing closing fence (hit the token limit)", f"Here:\n```python\n{CODE}", CODE, "defines"),
    ("closing fence glued to the last line", f"```python\n{CODE.rstrip()}```\nDone.", CODE, "defines"),
    (
        "fence indented inside a list item",
        "1. The kernel:\n\n"
        + "".join("    " + line + "\n" if line else "\n" for line in fence(CODE).splitlines()),
        CODE,
        "defines",
    ),
    ("windows line endings", fence(CODE).replace("\n", "\r\n"), CODE, "defines"),
    ("bare code, no fence", CODE, CODE, "bare code"),
    ("bare code after a line of prose", "Here is my solution.\n" + CODE, CODE, "after leading prose"),
    ("ModelNew as an alias", fence(ALIAS), ALIAS, "defines"),
    ("defining block with a syntax error is still returned", fence(BROKEN), BROKEN, "does not parse"),
    (
        "syntax-broken final block loses to a parsing one",
        fence(CODE) + "\nShorter:\n" + fence("class ModelNew(:\n"),
        CODE,
        "block 1 of 2",
    ),
    ("empty completion", "   \n", None, "empty"),
    (
        "reasoning only, cut off",
        "<think>\nThe op is a GELU, so I will write ```python\nclass ModelNew",
        None,
        "only reasoning",
    ),
    ("prose only", "I am sorry, I cannot write CUDA kernels.", None, "no code block"),
    ("blocks without ModelNew", f"{fence(CUDA, 'cuda')}{fence('print(1)')}", None, "none defines ModelNew"),
    (
        "ModelNew mentioned in prose only",
        "You should write a ModelNew class with a fused kernel.",
        None,
        "mentioned",
    ),
    ("ModelNew in a comment of a block", fence("# ModelNew goes here\nprint(1)\n"), None, "none defines"),
]


@pytest.mark.parametrize(
    ("completion", "expected", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_extraction(completion, expected, reason):
    got = extract_code(completion)
    assert got.code == expected
    assert reason in got.reason


def test_there_are_at_least_fifteen_shapes():
    assert len(CASES) >= 15


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<think>a</think>b<think>c</think>d", "bd"),
        ("<THINK>a</THINK>b", "b"),
        ("a</think>b", "b"),
        ("a<think>never closed", "a"),
        ("<thinking>x</thinking>y", "y"),
        ("plain", "plain"),
    ],
)
def test_strip_reasoning(text, expected):
    assert strip_reasoning(text) == expected
