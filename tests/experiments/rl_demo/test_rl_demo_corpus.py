"""experiments.rl_demo.corpus: the SFT rows and their repair dialogues."""

from __future__ import annotations

from benchmark.prompts import PromptBuilder, PromptConfig
from experiments.rl_demo import (
    corpus,
    family,
)


def test_wide_sft_corpus_has_a_row_per_task_and_its_mistakes_use_its_values(tmp_path):

    splits = family.family(0, 2, 2, "wide")
    tasks = family.write_tasks({"sft": splits["sft"][:40]}, tmp_path)
    builder = PromptBuilder(PromptConfig(backend="cuda-raw"))
    rows = corpus.sft_corpus(tasks, builder, "sft", corpus.SFT_ROWS_PER_TASK["wide"], 1.0, 0, "wide")
    assert sorted(r["task_id"] for r in rows) == sorted(tasks)
    wrong = [family.read_answer(r["messages"][-3]["content"].split("```python\n")[1]) for r in rows]
    off_grid = [a for _, a, b, _ in wrong if a not in family.A_VALUES] + [
        b for _, a, b, _ in wrong if b not in family.B_VALUES
    ]
    assert off_grid  # the repair dialogues' wrong constants come from the wide values too
