"""The SFT data schema, loading it from anywhere, and tokenizing it with our own loss masks.

Schema (one row per training sample; `trainers/README.md` has the long form):

    messages  list of {"role": "system" | "user" | "assistant" | "tool", "content": str}   required
    task_id   str    optional: the task the sample solves
    level     int    optional: the task's level (1..4)
    source    str    optional: how the sample was made (generation, repair, review, profiling, ...)
    backend   str    optional: the kernel language of the answer (cuda, triton, ...)

The loss covers only the last assistant turn (its content and the template's end-of-turn tokens),
so in a multi-turn repair sample (attempt, harness feedback, fixed attempt) the failed attempt and
the feedback are context, as MusaCoder trains them. Turns after the last assistant turn are
dropped. We tokenize ourselves, rather than through TRL, because CuSeT needs a per-token
sensitivity mask aligned with the labels: the rendered chat text is tokenized once with offsets,
and the offsets place both the loss boundary and the tagger's spans on tokens.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainers.cuset import tag_answer, token_mask_from_spans

logger = logging.getLogger(__name__)

IGNORE_INDEX = -100
ROLES = ("system", "user", "assistant", "tool")
SCHEMA_HELP = (
    "an SFT dataset needs a 'messages' column: a list of {'role', 'content'} turns whose last "
    "assistant turn holds the answer (optional columns: task_id, level, source, backend)"
)


def load_sft_dataset(name_or_path: str, split: str = "train", config_name: str | None = None):
    """Load a dataset from a Hub id, a parquet or JSON(L) file, a folder of them, or a `save_to_disk` folder."""
    import datasets

    path = Path(os.path.expanduser(name_or_path))
    if path.is_file():
        kind = {".parquet": "parquet", ".jsonl": "json", ".json": "json"}.get(path.suffix.lower())
        if kind is None:
            raise ValueError(f"{path}: unsupported file type {path.suffix!r}; use .parquet, .jsonl or .json")
        dataset = datasets.load_dataset(kind, data_files=str(path), split="train")
    elif path.is_dir() and ((path / "state.json").exists() or (path / "dataset_dict.json").exists()):
        dataset = datasets.load_from_disk(str(path))
        if isinstance(dataset, datasets.DatasetDict):
            if split not in dataset:
                raise ValueError(f"{path}: no split {split!r} in the saved dataset (splits: {list(dataset)})")
            dataset = dataset[split]
    elif path.exists():
        dataset = datasets.load_dataset(str(path), config_name, split=split)
    elif _looks_local(name_or_path):
        raise FileNotFoundError(f"dataset path {name_or_path!r} does not exist")
    else:
        dataset = datasets.load_dataset(name_or_path, config_name, split=split)
    check_schema(dataset.column_names, name_or_path)
    return dataset


def _looks_local(name: str) -> bool:
    """A Hub id is `name` or `org/name`; a data-file suffix or a deeper path means a local path."""
    suffix = Path(name).suffix.lower()
    return (
        name.startswith((".", "/", "~")) or suffix in (".parquet", ".jsonl", ".json") or name.count("/") > 1
    )


def check_schema(columns: Iterable[str], where: str = "dataset") -> None:
    columns = list(columns)
    if "messages" not in columns:
        raise ValueError(f"{where}: no 'messages' column (columns: {columns}); {SCHEMA_HELP}")


def final_turn(messages: Any, where: str = "sample") -> int:
    """Index of the last assistant turn, after checking the turns' shape."""
    if not isinstance(messages, list | tuple) or not messages:
        raise ValueError(f"{where}: 'messages' must be a non-empty list of turns; {SCHEMA_HELP}")
    last = -1
    for i, turn in enumerate(messages):
        if not isinstance(turn, dict) or "role" not in turn or "content" not in turn:
            raise ValueError(f"{where}: turn {i} must be a dict with 'role' and 'content'; {SCHEMA_HELP}")
        if turn["role"] not in ROLES:
            raise ValueError(f"{where}: turn {i} has role {turn['role']!r}; roles are {list(ROLES)}")
        if not isinstance(turn["content"], str):
            raise ValueError(
                f"{where}: turn {i} content must be a string, got {type(turn['content']).__name__}"
            )
        if turn["role"] == "assistant":
            last = i
    if last < 0:
        raise ValueError(f"{where}: no assistant turn, so nothing to train on; {SCHEMA_HELP}")
    return last


@dataclass(frozen=True)
class TokenizeOptions:
    """How chat samples become training rows."""

    max_length: int | None = 4096  # longer samples are truncated (keep_start) or dropped
    overlong: str = "truncate"  # truncate | drop
    tag_sensitive: bool = True  # run the CuSeT tagger (else the 'sensitive' column is all zero)
    tag_kinds: tuple[str, ...] | None = None  # restrict the tagger to some kinds (None: all)
    chat_template_kwargs: dict | None = None  # extra variables for the chat template

    def __post_init__(self):
        if self.overlong not in ("truncate", "drop"):
            raise ValueError(f"overlong must be 'truncate' or 'drop', got {self.overlong!r}")


def tokenize_sample(messages: list[dict], tokenizer, options: TokenizeOptions, where: str = "sample") -> dict:
    """input_ids, labels (IGNORE_INDEX outside the final assistant turn) and the 0/1 `sensitive` mask."""
    last = final_turn(messages, where)
    kwargs = dict(options.chat_template_kwargs or {})
    # Extra keys (e.g. reasoning_content) reach the template; the None that Arrow fills in for a
    # key missing from some turns does not.
    turns = [{k: v for k, v in t.items() if v is not None} for t in messages[: last + 1]]
    try:
        prompt = tokenizer.apply_chat_template(
            turns[:-1], tokenize=False, add_generation_prompt=True, **kwargs
        )
        full = tokenizer.apply_chat_template(turns, tokenize=False, add_generation_prompt=False, **kwargs)
    except ValueError as err:
        raise ValueError(
            f"{where}: the tokenizer could not render the chat ({err}); set a chat template"
        ) from err
    boundary = len(os.path.commonprefix([prompt, full]))
    if boundary < len(prompt):
        logger.warning(
            "%s: the chat template renders the prompt differently when the answer follows; "
            "the loss starts where the two renderings diverge",
            where,
        )
    encoded = tokenizer(full, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = encoded["input_ids"], encoded["offset_mapping"]
    labels = [
        tok if start >= boundary else IGNORE_INDEX for tok, (start, _) in zip(ids, offsets, strict=True)
    ]
    if options.tag_sensitive:
        spans = tag_answer(full[boundary:], options.tag_kinds)
        sensitive = token_mask_from_spans(offsets, spans, shift=boundary, text_length=len(full))
        sensitive = [s if lab != IGNORE_INDEX else 0 for s, lab in zip(sensitive, labels, strict=True)]
    else:
        sensitive = [0] * len(ids)
    return {"input_ids": ids, "labels": labels, "sensitive": sensitive}


def tokenize_dataset(
    dataset, tokenizer, options: TokenizeOptions, num_proc: int | None = None, name: str = "train"
):
    """Tokenize a schema dataset into input_ids / labels / sensitive, applying the length policy."""
    check_schema(dataset.column_names, name)
    before = len(dataset)

    def _row(example, index):
        row = tokenize_sample(example["messages"], tokenizer, options, where=f"{name} row {index}")
        if options.max_length is not None and len(row["input_ids"]) > options.max_length:
            if options.overlong == "drop":
                return {**{k: [] for k in row}, "keep": False}
            row = {k: v[: options.max_length] for k, v in row.items()}
        return {**row, "keep": any(label != IGNORE_INDEX for label in row["labels"])}

    tokenized = dataset.map(
        _row,
        with_indices=True,
        remove_columns=dataset.column_names,
        num_proc=num_proc,
        desc=f"Tokenizing {name} with final-turn labels",
    )
    tokenized = tokenized.filter(lambda keep: keep, input_columns="keep", num_proc=num_proc)
    tokenized = tokenized.remove_columns("keep")
    if len(tokenized) < before:
        logger.warning(
            "%s: dropped %d of %d samples (longer than max_length=%s under overlong=%r, or no label token left)",
            name,
            before - len(tokenized),
            before,
            options.max_length,
            options.overlong,
        )
    if len(tokenized) == 0:
        raise ValueError(
            f"{name}: no sample left after tokenization; raise max_length or set overlong='truncate'"
        )
    return tokenized
