"""Decontamination against the benchmark suite: a generated task (or a solution) that is a near
duplicate of an evaluation task is excluded, and the audit says how many were, and why.

Two views of each program, both from normalize.py (names, formatting, comments, docstrings,
imports, metadata, dtypes and numbers normalized away):
- program: the whole file's token 5-grams. Catches a suite file copied and edited.
- model: the `Model` class alone (constructor and forward, single-use temporaries inlined), token
  3-grams. Catches the same computation wrapped in other boilerplate, e.g. a synthesized GELU
  variant of the suite's GELU task.
Similarity is the exact Jaccard index of the n-gram sets (no MinHash, so no sampling error),
computed against every suite task through inverted indexes. A candidate is removed when either
view reaches its threshold.

Thresholds, measured on the built-in suite (435 tasks) and checked by the tests:
- program 0.55: a suite task with renamed variables, other shapes and scales, a rewritten
  docstring and formatting, another dtype and one extra elementwise operation, all at once, still
  scores >= 0.56 (each edit alone >= 0.64); synthesized tasks score at most 0.49.
- model 0.8: a suite forward copied under other names or dtypes scores >= 0.63 in this view but is
  caught by the program view; synthesized single-operator variants of operators the suite already
  has (GELU, log-softmax, maximum, ...) score 1.0 here, compositions at most 0.69.
Shape variants of suite tasks are therefore removed, as intended: the benchmark must not be
trained on."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from datasets_builder.normalize import model_tokens, normalized_tokens, shingles

PROGRAM_THRESHOLD = 0.55
MODEL_THRESHOLD = 0.8
PROGRAM_NGRAM = 5
MODEL_NGRAM = 3
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Match:
    item_id: str
    suite_id: str | None  # the suite task of the higher-scoring view, or None when nothing overlaps
    program_similarity: float
    model_similarity: float
    contaminated: bool
    reason: str = ""  # "program", "model" or "" (clean)


@dataclass
class Audit:
    """What the card reports: candidates compared, removed, and the method's settings."""

    kind: str  # "tasks" or "solutions"
    suite_tasks: int
    program_threshold: float = PROGRAM_THRESHOLD
    model_threshold: float = MODEL_THRESHOLD
    program_ngram: int = PROGRAM_NGRAM
    model_ngram: int = MODEL_NGRAM
    candidates: int = 0
    removed: int = 0
    removed_program: int = 0
    removed_model: int = 0
    unparsable: int = 0
    removed_examples: list[dict] = field(default_factory=list)  # the closest removed pairs

    def to_dict(self) -> dict:
        return asdict(self)


class _View:
    def __init__(self, tokens: Callable[[str], list[str]], ngram: int):
        self.tokens = tokens
        self.ngram = ngram
        self.sets: dict[str, set[int]] = {}
        self.index: dict[int, list[str]] = defaultdict(list)

    def add(self, suite_id: str, source: str) -> None:
        s = shingles(self.tokens(source), self.ngram)
        self.sets[suite_id] = s
        for h in s:
            self.index[h].append(suite_id)

    def best(self, source: str) -> tuple[str | None, float]:
        s = shingles(self.tokens(source), self.ngram)
        if not s:
            return None, 0.0
        overlap: dict[str, int] = defaultdict(int)
        for h in s:
            for suite_id in self.index.get(h, ()):
                overlap[suite_id] += 1
        best_id, best_sim = None, 0.0
        for suite_id in sorted(overlap):
            inter = overlap[suite_id]
            sim = inter / (len(s) + len(self.sets[suite_id]) - inter)
            if sim > best_sim:
                best_id, best_sim = suite_id, sim
        return best_id, best_sim


class SuiteIndex:
    """Both views of the suite's programs, indexed for exact Jaccard lookups."""

    def __init__(
        self,
        programs: Iterable[tuple[str, str]],
        program_ngram: int = PROGRAM_NGRAM,
        model_ngram: int = MODEL_NGRAM,
    ):
        self.program = _View(normalized_tokens, program_ngram)
        self.model = _View(model_tokens, model_ngram)
        for suite_id, source in programs:
            try:
                self.program.add(suite_id, source)
                self.model.add(suite_id, source)
            except SyntaxError:
                log.warning("suite program %s does not parse; it is not indexed", suite_id)

    def __len__(self) -> int:
        return len(self.program.sets)

    def best(self, source: str) -> tuple[tuple[str | None, float], tuple[str | None, float]]:
        """(suite id, similarity) of the best match in the program view and in the model view."""
        return self.program.best(source), self.model.best(source)


def screen(
    items: Iterable[tuple[str, str]],
    index: SuiteIndex,
    program_threshold: float = PROGRAM_THRESHOLD,
    model_threshold: float = MODEL_THRESHOLD,
    kind: str = "tasks",
    examples: int = 10,
) -> tuple[list[Match], Audit]:
    """Compare each (id, source) with the suite; contaminated items reach either threshold."""
    for name, t in (("program", program_threshold), ("model", model_threshold)):
        if not 0 < t <= 1:
            raise ValueError(f"the {name} decontamination threshold must be in (0, 1], not {t}")
    audit = Audit(
        kind=kind,
        suite_tasks=len(index),
        program_threshold=program_threshold,
        model_threshold=model_threshold,
        program_ngram=index.program.ngram,
        model_ngram=index.model.ngram,
    )
    matches = []
    for item_id, source in items:
        audit.candidates += 1
        try:
            (p_id, p_sim), (m_id, m_sim) = index.best(source)
        except SyntaxError:
            audit.unparsable += 1
            matches.append(Match(item_id, None, 0.0, 0.0, False))
            continue
        reason = "program" if p_sim >= program_threshold else "model" if m_sim >= model_threshold else ""
        suite_id = p_id if reason == "program" or (not reason and p_sim >= m_sim) else m_id
        m = Match(item_id, suite_id, round(p_sim, 4), round(m_sim, 4), bool(reason), reason)
        matches.append(m)
        audit.removed += m.contaminated
        audit.removed_program += reason == "program"
        audit.removed_model += reason == "model"
    removed = sorted(
        (m for m in matches if m.contaminated), key=lambda m: -max(m.program_similarity, m.model_similarity)
    )
    audit.removed_examples = [
        {
            "id": m.item_id,
            "suite_task": m.suite_id,
            "program_similarity": m.program_similarity,
            "model_similarity": m.model_similarity,
            "reason": m.reason,
        }
        for m in removed[:examples]
    ]
    return matches, audit
