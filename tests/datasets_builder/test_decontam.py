"""Decontamination: near-duplicates of suite tasks planted among generated tasks are caught at the
documented thresholds, generated tasks are not, and the audit counts what was removed and why.
Deduplication by normalized AST is checked alongside (it is the strict form of the same comparison)."""

from __future__ import annotations

import ast
import random

import pytest

from benchmark.suite import load_suite
from datasets_builder import synth_blocks, synth_compose
from datasets_builder.decontam import MODEL_THRESHOLD, PROGRAM_THRESHOLD, SuiteIndex, screen
from datasets_builder.dedup import deduplicate
from datasets_builder.normalize import fingerprint, model_tokens, normalized_tokens
from datasets_builder.sizing import SizeConfig
from datasets_builder.task_source import render

KEEP_NAMES = {
    "self",
    "torch",
    "nn",
    "F",
    "math",
    "super",
    "range",
    "len",
    "Model",
    "get_inputs",
    "get_init_inputs",
    "get_alt_inputs",
    "SOLBENCH",
    "float",
    "int",
    "tuple",
    "list",
    "min",
    "max",
    "sum",
    "abs",
}


class _Rename(ast.NodeTransformer):
    def __init__(self):
        self.names: dict[str, str] = {}

    def new(self, name: str) -> str:
        return name if name in KEEP_NAMES else self.names.setdefault(name, f"renamed_{len(self.names)}")

    def visit_Name(self, node):
        node.id = self.new(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.new(node.arg)
        return node


class _Numbers(ast.NodeTransformer):
    def visit_Constant(self, node):
        if isinstance(node.value, int) and not isinstance(node.value, bool) and node.value > 2:
            node.value = node.value * 2 - 1
        elif isinstance(node.value, float):
            node.value *= 1.7
        return node


class _ExtraOp(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        last = node.body[-1]
        if node.name == "forward" and isinstance(last, ast.Return) and not isinstance(last.value, ast.Tuple):
            last.value = ast.BinOp(
                ast.Call(ast.parse("torch.tanh", mode="eval").body, [last.value], []),
                ast.Mult(),
                ast.Constant(1.5),
            )
        return node


def _imports_only_modules(src: str) -> bool:
    """Renaming is only a faithful edit when no imported function is called by its bare name."""
    return not any(
        isinstance(n, ast.ImportFrom) and n.module not in ("__future__",) for n in ast.parse(src).body
    )


def rename(src: str) -> str:
    return ast.unparse(_Rename().visit(ast.parse(src)))


def numbers(src: str) -> str:
    return ast.unparse(_Numbers().visit(ast.parse(src)))


def reformat(src: str) -> str:
    tree = ast.parse(src)
    if tree.body and isinstance(tree.body[0], ast.Expr):
        tree.body[0] = ast.Expr(ast.Constant("A description rewritten by the planter."))
    return "# planted copy\n" + ast.unparse(tree).replace("\n\n", "\n\n\n")


def dtype(src: str) -> str:
    return src.replace("bfloat16", "TMP").replace("float32", "bfloat16").replace("TMP", "float32")


def extra_op(src: str) -> str:
    return ast.unparse(_ExtraOp().visit(ast.parse(src)))


def everything(src: str) -> str:
    return extra_op(dtype(numbers(rename(reformat(src)))))


PLANTS = {
    "rename": rename,
    "numbers": numbers,
    "reformat": reformat,
    "dtype": dtype,
    "extra_op": extra_op,
    "everything": everything,
}


@pytest.fixture(scope="module")
def suite():
    return load_suite()


@pytest.fixture(scope="module")
def index(suite):
    return SuiteIndex((t.task_id, t.source) for t in suite.tasks)


@pytest.fixture(scope="module")
def generated():
    size = SizeConfig()
    specs = synth_compose.generate(
        synth_compose.ComposeConfig(count=60, seed=11), size
    ) + synth_blocks.generate(
        synth_blocks.BlockConfig(count=12, seed=11, kinds=("mlp", "attention", "norm_chain")), size
    )
    return [(s.name, render(s)) for s in specs]


@pytest.fixture(scope="module")
def generated_flagged(index, generated):
    """Generated tasks the suite already covers (a composition that is just linear -> GELU is the
    suite's GEMM+GELU task): the screen removes them too, and they are few."""
    matches, _ = screen(generated, index)
    flagged = {m.item_id for m in matches if m.contaminated}
    assert len(flagged) <= len(generated) // 10
    assert all(m.reason == "model" for m in matches if m.contaminated)
    return flagged


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_near_duplicates_are_caught(plant, suite, index, generated, generated_flagged):
    rng = random.Random(plant)
    originals = [t for t in suite.tasks if _imports_only_modules(t.source)]
    chosen = rng.sample(originals, 25)
    planted = [(f"planted/{t.task_id}", PLANTS[plant](t.source)) for t in chosen]
    items = generated + planted
    rng.shuffle(items)
    matches, audit = screen(items, index)
    flagged = {m.item_id for m in matches if m.contaminated}
    assert {p for p, _ in planted} <= flagged, sorted({p for p, _ in planted} - flagged)
    assert flagged - {p for p, _ in planted} == generated_flagged
    assert audit.candidates == len(items) and audit.removed == len(planted) + len(generated_flagged)
    assert audit.removed == audit.removed_program + audit.removed_model


def test_audit_records_thresholds_and_closest_pairs(index):
    src = load_suite().tasks[0].source
    matches, audit = screen([("copy", src), ("bad", "def (")], index)
    assert audit.program_threshold == PROGRAM_THRESHOLD and audit.model_threshold == MODEL_THRESHOLD
    assert audit.program_ngram == 5 and audit.model_ngram == 3 and audit.suite_tasks == len(index)
    assert audit.unparsable == 1 and audit.removed == 1
    assert (
        audit.removed_examples[0]["id"] == "copy" and audit.removed_examples[0]["program_similarity"] == 1.0
    )
    with pytest.raises(ValueError, match="threshold"):
        screen([], index, program_threshold=0.0)


def test_a_single_operator_the_suite_has_is_caught_in_the_model_view(index):
    src = (
        '"""Synthesized GELU variant."""\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n'
        "N, D = 4096, 2048\n\n\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
        "    def forward(self, inp: torch.Tensor):\n        out = F.gelu(inp)\n        return out\n\n\n"
        "def _inputs(n, d):\n    return [torch.randn(n, d, dtype=torch.bfloat16) * 2.0]\n\n\n"
        "def get_inputs():\n    return _inputs(N, D)\n\n\ndef get_init_inputs():\n    return []\n"
    )
    (match,), _ = screen([("gelu", src)], index)
    assert match.contaminated and match.reason == "model" and match.model_similarity == 1.0


def test_normalization_ignores_names_format_docs_and_dtype_but_not_operators():
    a = "import torch\nclass Model:\n    def forward(self, x):\n        '''doc'''\n        y = torch.relu(x * 2.0)\n        return y\n"
    b = "import torch as T\n\n\nclass Model:\n    def forward(self, inp):   # comment\n        out = T.relu(inp * 3.5)\n        return out\n"
    c = a.replace("relu", "sigmoid")
    assert normalized_tokens(a) == normalized_tokens(b)
    assert normalized_tokens(a) != normalized_tokens(c)
    assert model_tokens(a) == model_tokens(
        a.replace("y = torch.relu(x * 2.0)\n        return y", "return torch.relu(x * 2.0)")
    )
    assert "torch" in normalized_tokens("import torch\nx = torch.bfloat16") and ".DTYPE" in normalized_tokens(
        "import torch\nx = torch.bfloat16"
    )


def test_dedup_keeps_shape_variants_but_drops_renamed_copies(generated):
    name, src = generated[0]
    renamed = rename(src)
    reshaped = numbers(src)
    result = deduplicate([(name, src), ("renamed", renamed), ("reshaped", reshaped), ("broken", "def (")])
    assert result.kept == [name, "reshaped"]
    assert result.duplicates == {"renamed": name} and result.unparsable == ["broken"]
    assert fingerprint(src) == fingerprint(renamed) != fingerprint(reshaped)
    assert fingerprint(src, keep_numbers=False) == fingerprint(reshaped, keep_numbers=False)
