"""The SFT data schema: loading from every supported source, final-turn labels, and bad input."""

from __future__ import annotations

import json

import pytest

from trainers.data import (
    IGNORE_INDEX,
    TokenizeOptions,
    load_sft_dataset,
    tokenize_dataset,
    tokenize_sample,
)

REPAIR = [
    {"role": "user", "content": "Write a relu kernel."},
    {"role": "assistant", "content": "FIRST ATTEMPT y[i] = x[i];"},
    {"role": "user", "content": "incorrect: max abs error 1.0"},
    {"role": "assistant", "content": "if (i < n) { y[i] = fmaxf(x[i], 0.0f); } __syncthreads();"},
]


def _label_text(tokenizer, row) -> str:
    return tokenizer.decode(
        [t for t, lab in zip(row["input_ids"], row["labels"], strict=True) if lab != IGNORE_INDEX]
    )


def test_repair_sample_trains_on_the_final_assistant_turn_only(tokenizer):
    row = tokenize_sample(REPAIR, tokenizer, TokenizeOptions())
    assert _label_text(tokenizer, row) == REPAIR[-1]["content"] + "<|im_end|>\n"
    prompt_text = tokenizer.decode(
        [t for t, lab in zip(row["input_ids"], row["labels"], strict=True) if lab == -100]
    )
    assert "FIRST ATTEMPT" in prompt_text and "incorrect" in prompt_text
    # Labels form one block at the end: the answer, then the end-of-turn tokens.
    first = row["labels"].index(next(lab for lab in row["labels"] if lab != IGNORE_INDEX))
    assert all(lab != IGNORE_INDEX for lab in row["labels"][first:])


def test_turns_after_the_last_assistant_turn_are_dropped(tokenizer):
    trailing = [*REPAIR, {"role": "user", "content": "TRAILING QUESTION"}]
    row = tokenize_sample(trailing, tokenizer, TokenizeOptions())
    assert "TRAILING" not in tokenizer.decode(row["input_ids"])
    assert row == tokenize_sample(REPAIR, tokenizer, TokenizeOptions())


def test_sensitive_tokens_lie_in_the_answer_and_cover_the_tagged_code(tokenizer):
    row = tokenize_sample(REPAIR, tokenizer, TokenizeOptions())
    assert len(row["sensitive"]) == len(row["input_ids"])
    assert all(lab != IGNORE_INDEX for s, lab in zip(row["sensitive"], row["labels"], strict=True) if s)
    tagged = tokenizer.decode([t for t, s in zip(row["input_ids"], row["sensitive"], strict=True) if s])
    assert "__syncthreads()" in tagged
    untagged = tokenize_sample(REPAIR, tokenizer, TokenizeOptions(tag_sensitive=False))
    assert not any(untagged["sensitive"])
    assert untagged["labels"] == row["labels"]


def test_overlong_samples_are_truncated_or_dropped(tokenizer, dataset):
    full = tokenize_dataset(dataset, tokenizer, TokenizeOptions(max_length=None))
    longest = max(len(ids) for ids in full["input_ids"])
    cap = longest - 1
    truncated = tokenize_dataset(dataset, tokenizer, TokenizeOptions(max_length=cap))
    assert len(truncated) == len(dataset)
    assert max(len(ids) for ids in truncated["input_ids"]) == cap
    assert all(
        len(a) == len(b) == len(c)
        for a, b, c in zip(*(truncated[k] for k in ("input_ids", "labels", "sensitive")), strict=True)
    )
    dropped = tokenize_dataset(dataset, tokenizer, TokenizeOptions(max_length=cap, overlong="drop"))
    assert len(dropped) == sum(len(ids) <= cap for ids in full["input_ids"]) < len(dataset)
    with pytest.raises(ValueError, match="no sample left"):
        tokenize_dataset(dataset, tokenizer, TokenizeOptions(max_length=4, overlong="drop"))


@pytest.mark.parametrize("form", ["jsonl", "parquet", "save_to_disk", "save_to_disk_dict", "folder"])
def test_load_from_local_sources(dataset, tmp_path, form):
    from datasets import DatasetDict

    if form == "jsonl":
        path = tmp_path / "train.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in dataset))
    elif form == "parquet":
        path = tmp_path / "train.parquet"
        dataset.to_parquet(str(path))
    elif form == "save_to_disk":
        path = tmp_path / "saved"
        dataset.save_to_disk(str(path))
    elif form == "save_to_disk_dict":
        path = tmp_path / "saved_dict"
        DatasetDict({"train": dataset}).save_to_disk(str(path))
    else:
        path = tmp_path / "folder"
        path.mkdir()
        dataset.to_parquet(str(path / "train-00000.parquet"))
    loaded = load_sft_dataset(str(path))
    assert len(loaded) == len(dataset)
    assert loaded[3]["messages"] == dataset[3]["messages"]
    assert loaded[3]["task_id"] == dataset[3]["task_id"]


def test_hub_ids_go_to_load_dataset(monkeypatch, dataset):
    import datasets

    calls = []

    def fake_load_dataset(name, config=None, split=None, **kwargs):
        calls.append((name, config, split))
        return dataset

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    assert load_sft_dataset("solbench/kernels-sft", split="train", config_name="cuda") is dataset
    assert calls == [("solbench/kernels-sft", "cuda", "train")]


def test_load_errors_are_specific(tmp_path, dataset):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_sft_dataset(str(tmp_path / "missing.jsonl"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_sft_dataset("runs/nowhere/train.jsonl")
    bad = tmp_path / "train.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="unsupported file type"):
        load_sft_dataset(str(bad))
    saved = tmp_path / "saved"
    from datasets import DatasetDict

    DatasetDict({"train": dataset}).save_to_disk(str(saved))
    with pytest.raises(ValueError, match="no split 'test'"):
        load_sft_dataset(str(saved), split="test")
    no_messages = tmp_path / "prompts.jsonl"
    no_messages.write_text(json.dumps({"prompt": "p", "completion": "c"}) + "\n")
    with pytest.raises(ValueError, match="no 'messages' column"):
        load_sft_dataset(str(no_messages))


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([{"role": "user", "content": "hi"}], "row 0: no assistant turn"),
        ([], "non-empty list"),
        ([{"role": "user"}], "'role' and 'content'"),
        ([{"role": "robot", "content": "x"}], "role 'robot'"),
        ([{"role": "assistant", "content": 3}], "must be a string"),
    ],
)
def test_bad_samples_raise_clear_errors(tokenizer, messages, message):
    with pytest.raises(ValueError, match=message):
        tokenize_sample(messages, tokenizer, TokenizeOptions(), where="row 0")


def test_dataset_errors_name_the_row(tokenizer):
    from datasets import Dataset

    rows = Dataset.from_list(
        [{"messages": REPAIR}, {"messages": [{"role": "user", "content": "only a question"}]}]
    )
    with pytest.raises(ValueError, match="train row 1: no assistant turn"):
        tokenize_dataset(rows, tokenizer, TokenizeOptions())
