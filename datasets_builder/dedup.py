"""Deduplication by normalized AST: two programs that differ only in names, formatting, comments,
docstrings and metadata are one program, and only the first is kept.

Numbers are kept in the fingerprint, so the same operator at another shape or scale stays a task
of its own (shape variants are wanted); decontamination (decontam.py) is the looser comparison."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from datasets_builder.normalize import fingerprint


@dataclass(frozen=True)
class DedupResult:
    kept: list[str]  # ids, in input order
    duplicates: dict[str, str]  # dropped id -> the kept id it duplicates
    unparsable: list[str]  # ids whose source does not parse (dropped)


def deduplicate(items: Iterable[tuple[str, str]], keep_numbers: bool = True) -> DedupResult:
    """`items` are (id, source) pairs; the first of each normalized-AST class is kept."""
    seen: dict[str, str] = {}
    kept, dups, bad = [], {}, []
    for item_id, source in items:
        try:
            key = fingerprint(source, keep_numbers=keep_numbers)
        except SyntaxError:
            bad.append(item_id)
            continue
        if key in seen:
            dups[item_id] = seen[key]
        else:
            seen[key] = item_id
            kept.append(item_id)
    return DedupResult(kept, dups, bad)
