"""`--model replay:FILE.jsonl`: completions recorded earlier, evaluated as if just generated.

Each line is a JSON object with `task_id` (or `task`, matched against the task's id or file name),
`completion` (or `code`), and optionally `sample` and `turn`. Samples of a task without an explicit
index are numbered in file order."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

from benchmark.models.base import Backend, Completion, GenerationRequest, register_backend


class ReplayError(ValueError):
    pass


def read_replay(path: Path) -> dict[tuple[str, int, int], str]:
    if not path.is_file():
        raise ReplayError(f"replay file {path} does not exist")
    table: dict[tuple[str, int, int], str] = {}
    counters: dict[str, int] = defaultdict(int)
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise ReplayError(f"{path}:{lineno}: not valid JSON ({e.msg})") from e
        if not isinstance(rec, dict):
            raise ReplayError(f"{path}:{lineno}: expected a JSON object")
        task = rec.get("task_id", rec.get("task"))
        text = rec.get("completion", rec.get("code"))
        if not isinstance(task, str) or not isinstance(text, str):
            raise ReplayError(f"{path}:{lineno}: needs string fields 'task_id' and 'completion'")
        sample = rec.get("sample")
        if sample is None:
            sample = counters[task]
        counters[task] = max(counters[task], int(sample) + 1)
        table[(task, int(sample), int(rec.get("turn", 1)))] = text
    if not table:
        raise ReplayError(f"replay file {path} holds no completions")
    return table


class ReplayBackend(Backend):
    name = "replay"
    uses_prompts = False

    def __init__(self, path: str):
        self.path = Path(path)
        self.table = read_replay(self.path)

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[Completion]:
        for req in requests:
            key = next(
                (
                    (name, req.sample, req.turn)
                    for name in (req.task.task_id, req.task.name)
                    if (name, req.sample, req.turn) in self.table
                ),
                None,
            )
            if key is None:
                yield Completion(
                    req, "", error=f"no recorded completion for {req.task.task_id} sample {req.sample}"
                )
            else:
                yield Completion(req, self.table[key])

    def describe(self) -> dict:
        return {"backend": self.name, "file": str(self.path)}

    def unused_records(self, task_ids: Sequence[str], task_names: Sequence[str]) -> list[str]:
        known = {*task_ids, *task_names}
        return sorted({task for task, _, _ in self.table if task not in known})


@register_backend("replay")
def _make(arg: str, **options) -> Backend:
    if not arg:
        raise ReplayError("replay needs a file: --model replay:FILE.jsonl")
    return ReplayBackend(arg)
