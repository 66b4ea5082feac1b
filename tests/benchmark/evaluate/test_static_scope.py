"""The static rules judge what ModelNew executes: answers in KernelBench's format pass clean, and
code reached from ModelNew (or run at import) is still judged, however it is reached."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmark.evaluate.anticheat.static import analyze
from benchmark.evaluate.harness import evaluate
from benchmark.evaluate.sandbox import PROJECT_ROOT
from benchmark.task import load_task
from benchmark.verdict import Status

TESTS = Path(__file__).parents[2]
HONEST = TESTS / "honest"
KB_STYLE = {
    "cpu_kb_style_scale_shift": TESTS / "benchmark" / "data" / "suite" / "level1" / "scale_shift.py",
    "cpu_kb_style_row_softmax": TESTS / "fixtures" / "tasks" / "good" / "level1" / "row_softmax.py",
}

PREAMBLE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="e", cpp_sources="", functions=["f"])
"""


def findings(*parts: str) -> list[tuple[str, str]]:
    """(flag, detail) pairs for the preamble plus the parts, each dedented on its own; code that does
    not parse has no findings, so it is refused here rather than passing a test by accident."""
    code = PREAMBLE + "\n".join(textwrap.dedent(part) for part in parts)
    ast.parse(code)
    return [(f.flag, f.detail) for f in analyze(code)]


def flags(*parts: str) -> list[str]:
    return [flag for flag, _ in findings(*parts)]


PLAIN_MODELNEW = """
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.f(x)
"""


@pytest.mark.parametrize("name", sorted(KB_STYLE))
def test_kernelbench_style_answers_have_no_finding(name):
    assert analyze((HONEST / f"{name}.py").read_text()) == []


def test_an_unused_functional_import_is_not_a_finding_but_an_unused_forbidden_import_is():
    assert findings(PLAIN_MODELNEW) == []
    assert (
        findings("from torch.nn import functional\nfrom torch.nn.functional import relu\n", PLAIN_MODELNEW)
        == []
    )
    assert findings("import subprocess\n", PLAIN_MODELNEW) == [("forbidden_import", "imports subprocess")]
    assert flags("import torch._dynamo\n", PLAIN_MODELNEW) == ["torch_compile"]


@pytest.mark.parametrize(
    ("forward", "detail"),
    [
        ("return F.relu(x)", "uses torch.nn.functional.relu"),
        ("return torch.nn.functional.gelu(x)", "uses torch.nn.functional.gelu"),
        ("return nn.functional.silu(x)", "uses torch.nn.functional.silu"),
        ("fn = F; return fn.relu(x)", "uses torch.nn.functional"),
    ],
)
def test_functional_used_in_forward_is_flagged(forward, detail):
    body = f"""
    class ModelNew(nn.Module):
        def forward(self, x):
            {forward}
    """
    assert findings(body) == [("torch_compute_op", detail)]


@pytest.mark.parametrize(
    ("forward", "detail"),
    [
        ("return torch.nn.modules.module.torch.sigmoid(x)", "calls torch.sigmoid"),
        ("with torch.nn.modules.module.torch.enable_grad(): return ext.f(x)", "calls torch.enable_grad"),
        ("return nn.modules.activation.F.silu(x)", "uses torch.nn.functional.silu"),
        ("return torch.nn.modules.rnn._VF.tanh(x)", "calls torch._VF.tanh"),
    ],
)
def test_torch_reached_through_a_torch_nn_submodule_is_named_as_what_it_is(forward, detail):
    """torch.nn's submodules import torch and torch.nn.functional under their own names: the
    `torch.nn.` prefix the rules allow must not let those through."""
    body = f"""
    class ModelNew(nn.Module):
        def forward(self, x):
            {forward}
    """
    assert findings(body) == [("torch_compute_op", detail)]


def test_torch_nn_classes_and_init_stay_allowed():
    body = """
    class ModelNew(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.parameter.Parameter(torch.empty(4))
            torch.nn.init.normal_(self.w)
            self.lin = torch.nn.modules.linear.Linear(4, 4)

        def forward(self, x):
            return ext.f(x)
    """
    assert findings(body) == []


def test_a_name_imported_from_functional_is_flagged_where_used():
    body = """
    from torch.nn.functional import relu

    class ModelNew(nn.Module):
        def forward(self, x):
            return relu(x)
    """
    assert findings(body) == [("torch_compute_op", "uses torch.nn.functional.relu")]


def test_helpers_reached_from_modelnew_are_judged_transitively():
    body = """
    def _inner(x):
        return F.softmax(x, dim=-1)

    def _outer(x):
        return _inner(x) + torch.matmul(x, x)

    class ModelNew(nn.Module):
        def forward(self, x):
            return _outer(x)
    """
    assert sorted(findings(body)) == [
        ("torch_compute_op", "calls torch.matmul"),
        ("torch_compute_op", "uses torch.nn.functional.softmax"),
    ]


def test_a_class_reached_from_modelnew_has_all_its_methods_judged():
    body = """
    class Impl:
        def run(self, x):
            return torch.mm(x, x)

    class ModelNew(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(4, 4))
            self.impl = Impl()

        def forward(self, x):
            return self.impl.run(x)
    """
    assert findings(body) == [("torch_compute_op", "calls torch.mm")]  # torch.randn in __init__ is allowed


def test_unreached_definitions_are_not_judged_until_modelnew_uses_them():
    helpers = """
    class Model(nn.Module):
        def forward(self, x):
            return torch.softmax(F.relu(x), dim=-1)

    def get_inputs():
        return [torch.rand(16, 16)]

    def get_init_inputs():
        return []
    """
    assert findings(helpers, PLAIN_MODELNEW) == []
    uses_reference = """
    class ModelNew(nn.Module):
        def forward(self, x):
            return Model()(get_inputs()[0])
    """
    assert sorted(flags(helpers, uses_reference)) == ["torch_compute_op"] * 3


def test_code_that_runs_at_import_is_always_judged():
    assert findings("fast = torch.compile(lambda x: x * 2)\n", PLAIN_MODELNEW) == [
        ("torch_compile", "calls torch.compile")
    ]
    assert flags("torch.compile(ext.f)\n", PLAIN_MODELNEW) == ["torch_compile"]
    assert flags("table = torch.matmul(torch.ones(2, 2), torch.ones(2, 2))\n", PLAIN_MODELNEW) == [
        "torch_compute_op"
    ]
    warm_up = """
    def _warm():
        torch.matmul(torch.ones(2, 2), torch.ones(2, 2))

    _warm()
    """
    assert flags(warm_up, PLAIN_MODELNEW) == ["torch_compute_op"]
    default_value = "def get_inputs(x=torch.randn(3)):\n    return [x]\n"
    assert flags(default_value, PLAIN_MODELNEW) == ["torch_compute_op"]
    class_body = "class Model(nn.Module):\n    cached = torch.exp(torch.ones(3))\n"
    assert flags(class_body, PLAIN_MODELNEW) == ["torch_compute_op"]


MAIN_BLOCK = """
if __name__ == "__main__":
    import subprocess
    subprocess.run(["true"])
    print(F.relu(torch.matmul(torch.ones(2, 2), torch.ones(2, 2))))
    open("/tmp/out", "w").write(str(eval("1")))
"""


def test_the_main_block_is_not_judged_but_its_else_branch_is():
    assert findings(PLAIN_MODELNEW + MAIN_BLOCK) == []
    assert (
        findings(PLAIN_MODELNEW + MAIN_BLOCK.replace('__name__ == "__main__"', '"__main__" == __name__'))
        == []
    )
    with_else = PLAIN_MODELNEW + MAIN_BLOCK + "else:\n    import subprocess\n"
    assert findings(with_else) == [("forbidden_import", "imports subprocess")]
    not_a_guard = PLAIN_MODELNEW + MAIN_BLOCK.replace("==", "!=")
    assert "forbidden_import" in flags(not_a_guard)


@pytest.mark.parametrize(
    "rebind",
    [
        '__name__ = "__main__"',
        '(__name__ := "__main__")',
        'for __name__ in ["__main__"]:\n    pass',
        "from os import sep as __name__",
        'def _set():\n    global __name__\n    __name__ = "__main__"',
    ],
)
def test_a_file_that_rebinds_name_has_its_main_block_judged(rebind):
    assert "forbidden_import" in flags(rebind + "\n" + PLAIN_MODELNEW + MAIN_BLOCK)


def test_subclassing_the_reference_is_flagged_when_modelnew_reaches_it():
    reference = "class Model(nn.Module):\n    def forward(self, x):\n        return x\n"
    assert flags(reference + "class ModelNew(Model):\n    pass\n") == ["subclasses_reference"]
    assert flags(reference + "class ModelNew(nn.Module, Model):\n    pass\n") == ["subclasses_reference"]
    unused_subclass = "class Checked(Model):\n    pass\n"
    assert flags(reference + unused_subclass, PLAIN_MODELNEW) == []
    assert flags(reference + unused_subclass + "ModelNew = Checked\n") == ["subclasses_reference"]
    assert flags(reference + "ModelNew = Model\n") == ["subclasses_reference"]


def test_decorated_functions_are_judged_since_the_decorator_can_hand_them_on():
    body = """
    TABLE = {}

    def register(fn):
        TABLE["impl"] = fn
        return fn

    @register
    def _fallback(x):
        return torch.add(x, 1)

    class ModelNew(nn.Module):
        def forward(self, x):
            return TABLE["impl"](x)
    """
    assert findings(body) == [("torch_compute_op", "calls torch.add")]


def test_a_method_behind_staticmethod_waits_for_its_class():
    body = """
    class Unused:
        @staticmethod
        def run(x):
            return torch.mm(x, x)
    """
    assert findings(body, PLAIN_MODELNEW) == []
    assert flags(
        body, "class ModelNew(nn.Module):\n    def forward(self, x):\n        return Unused.run(x)\n"
    ) == ["torch_compute_op"]


@pytest.mark.parametrize(
    "call", ["me._fallback(x)", 'getattr(me, "_fallback")(x)', 'me.__dict__["_fallback"](x)']
)
def test_reaching_a_helper_through_the_module_itself_counts(call):
    body = f"""
    import solbench_candidate as me

    def _fallback(x):
        return torch.add(x, 1)

    class ModelNew(nn.Module):
        def forward(self, x):
            return {call}
    """
    assert "torch_compute_op" in flags(body)


def test_attrgetter_with_a_computed_name_is_refused():
    body = """
    import operator

    class ModelNew(nn.Module):
        def forward(self, x):
            return operator.attrgetter("mat" + "mul")(torch)(x, x)
    """
    assert findings(body) == [("forbidden_call", "operator.attrgetter with a computed name")]
    assert findings(body.replace('"mat" + "mul"', '"shape"')) == []


def test_a_module_getattr_is_judged_since_python_calls_it_unnamed():
    body = "def __getattr__(name):\n    return torch.matmul\n"
    assert findings(body, PLAIN_MODELNEW) == []  # a reference is not a call
    body = "def __getattr__(name):\n    return torch.matmul(torch.ones(1), torch.ones(1))\n"
    assert flags(body, PLAIN_MODELNEW) == ["torch_compute_op"]


def test_a_top_level_try_still_counts_and_an_unreached_one_does_not():
    guarded_import = "try:\n    import triton\nexcept ImportError:\n    triton = None\n"
    assert flags(guarded_import, PLAIN_MODELNEW) == ["try_fallback"]
    unreached = "def _bench():\n    try:\n        return 1\n    except Exception:\n        return 0\n"
    assert flags(unreached, PLAIN_MODELNEW) == []


@pytest.mark.parametrize("name", sorted(KB_STYLE))
def test_kernelbench_style_answers_pass_the_harness(name, fast_eval):
    verdict = evaluate(load_task(KB_STYLE[name]), (HONEST / f"{name}.py").read_text(), fast_eval)
    assert verdict.status is Status.PASS, verdict.error
    assert verdict.flags == ()


def test_the_main_block_never_runs_in_the_harness(fast_eval):
    """The harness imports the candidate under another name; a main block that would fail the import
    (and would be flagged, were it judged) leaves the verdict a clean pass."""
    code = (HONEST / "cpu_kb_style_scale_shift.py").read_text()
    code += MAIN_BLOCK + '    raise SystemExit("the __main__ block ran")\n'
    assert analyze(code) == []
    verdict = evaluate(load_task(KB_STYLE["cpu_kb_style_scale_shift"]), code, fast_eval)
    assert verdict.status is Status.PASS, verdict.error
    assert verdict.flags == ()


def test_benchmark_check_passes_a_kernelbench_style_answer(build_cache):
    name = "cpu_kb_style_scale_shift"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmark.check",
            "--task",
            str(KB_STYLE[name]),
            "--candidate",
            str(HONEST / f"{name}.py"),
            "--device",
            "cpu",
            "--json",
            "--trials",
            "2",
            "--no-timing",
        ],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=600,
        env={**os.environ, "SOLBENCH_CACHE": str(build_cache)},
    )
    assert out.returncode == 0, out.stderr
    verdict = json.loads(out.stdout.strip().splitlines()[-1])
    assert (verdict["verdict"], verdict["flags"]) == ("pass", []), verdict["error"]
