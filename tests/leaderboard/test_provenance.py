"""leaderboard.provenance: a page names the producing command once, with relative paths."""

from __future__ import annotations

from dataclasses import replace

import leaderboard_fakes as fakes
import pytest

from leaderboard.provenance import Resume, provenance, relative
from leaderboard.submission import SUBMISSIONS_DIR, load_all


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("--out /root/out/entry/run", "--out run"),
        ("--model replay:/root/out/trust/completions.jsonl", "--model replay:completions.jsonl"),
        ("--model hf:/tmp/m/Model.Q4_1.gguf --out=/tmp/runs/a/", "--model hf:Model.Q4_1.gguf --out=a"),
        ("--cache-dir ~/.cache/solbench", "--cache-dir solbench"),
        ("--base-url http://127.0.0.1:8000/v1 --model openai:org/name", None),  # URLs, ids: unchanged
        ("--out runs/my-model", None),
    ],
)
def test_absolute_paths_show_their_last_component(text, shown):
    assert relative(text) == (text if shown is None else shown)


def test_resumes_with_the_same_command_are_listed_by_date_only():
    sub = fakes.make_submission("Model", fakes.default_verdicts("model"))
    run = dict(
        sub.run,
        command="python -m benchmark.run --model replay:/a/c.jsonl --out /root/out/run",
        model="replay:/a/c.jsonl",
        backend={"backend": "replay", "file": "/a/c.jsonl", "batch_size": 8},
        resumed=[
            {
                "command": "python -m benchmark.run --model replay:/a/c.jsonl --out /root/out/run",
                "started": "t1",
            },
            {"command": "python -m benchmark.run --model replay:/b/c.jsonl --out /old/run", "started": "t2"},
            {
                "command": "python -m benchmark.run --model replay:/a/c.jsonl --out /other/run",
                "started": "t3",
            },
            {
                "command": "python -m benchmark.run --model replay:/a/c.jsonl --out /elsewhere",
                "started": "t4",
            },
        ],
    )
    p = provenance(replace(sub, run=run))
    assert p.command == "python -m benchmark.run --model replay:c.jsonl --out run"
    assert p.same_command_resumes == ["t1", "t2", "t3"]  # the same command once its paths are relative
    assert p.other_commands == [
        Resume("t4", "python -m benchmark.run --model replay:c.jsonl --out elsewhere")
    ]
    assert p.model == "replay:c.jsonl" and p.backend == {
        "backend": "replay",
        "file": "c.jsonl",
        "batch_size": 8,
    }


def test_the_published_entries_show_no_path_of_the_producers_machine():
    for sub in load_all(SUBMISSIONS_DIR):
        p = provenance(sub)
        shown = [p.command, p.model, str(p.backend), *(r.command for r in p.other_commands)]
        assert not any(token.startswith(("/", "~")) for text in shown for token in text.split()), shown
        assert "/root/" not in str(shown) and "/tmp/" not in str(shown), sub.slug
