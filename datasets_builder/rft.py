"""The diversity-preserving RFT pool (MusaCoder's rejection fine-tuning, as we implement it).

Per task, the verified solutions are clustered by normalized code features, and the training
targets are drawn at random from the pool rather than always taking the fastest: clusters are
visited in a random order and one random member is drawn from each, round after round, until m
targets are drawn or the pool is exhausted. So with m >= the number of clusters every distinct
approach is represented, and which member stands for a cluster is left to chance.

Features: the normalized token 4-grams of the solution (names, numbers, formatting and comments
removed; normalize.py), plus coarse structural marks (kernel count, whether it uses tl.dot, loops,
atomics, reductions). Two solutions share a cluster when the Jaccard similarity of their features
with the cluster's first member (its leader) reaches `threshold`; leaders are taken in a fixed order
(by candidate id), so clustering is deterministic and the only randomness is the seeded draw."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from datasets_builder.normalize import jaccard, normalized_tokens, shingles, stable_hash

FEATURE_NGRAM = 4
DEFAULT_THRESHOLD = 0.7
_MARKS = {
    "dot": re.compile(r"\btl\.dot\b"),
    "loop": re.compile(r"^\s+for .* in (tl\.)?(static_)?range\(", re.MULTILINE),
    "atomic": re.compile(r"\btl\.atomic_"),
    "reduce": re.compile(r"\btl\.(sum|max|min|reduce|argmax|argmin|associative_scan|cumsum)\b"),
    "cuda": re.compile(r"load_inline|__global__"),
}


@dataclass(frozen=True)
class Solution:
    candidate_id: str
    task_id: str
    code: str
    speedup: float | None = None


@dataclass(frozen=True)
class PoolEntry:
    solution: Solution
    cluster: int  # index of the cluster within its task, 0-based in leader order
    clusters: int  # number of clusters of the task
    pool_size: int  # verified solutions of the task
    selected: bool  # drawn as a training target
    draw_rank: int | None  # order in which it was drawn (0 first), None when not drawn


def features(code: str) -> set[int]:
    try:
        tokens = normalized_tokens(code)
    except SyntaxError:
        tokens = code.split()
    feats = shingles(tokens, FEATURE_NGRAM)
    kernels = len(re.findall(r"@triton\.jit|__global__", code))
    feats.add(stable_hash(f"kernels={min(kernels, 6)}"))
    for name, pattern in _MARKS.items():
        if pattern.search(code):
            feats.add(stable_hash(f"mark={name}"))
    return feats


def cluster(solutions: list[Solution], threshold: float = DEFAULT_THRESHOLD) -> list[int]:
    """Cluster index of each solution (leader clustering in candidate-id order)."""
    order = sorted(range(len(solutions)), key=lambda i: solutions[i].candidate_id)
    feats = {i: features(solutions[i].code) for i in order}
    leaders: list[int] = []
    labels = [0] * len(solutions)
    for i in order:
        for c, leader in enumerate(leaders):
            if jaccard(feats[i], feats[leader]) >= threshold:
                labels[i] = c
                break
        else:
            labels[i] = len(leaders)
            leaders.append(i)
    return labels


def draw(labels: list[int], m: int, rng: random.Random) -> list[int]:
    """Indices of up to m targets: round-robin over the clusters in random order, a random member each."""
    members: dict[int, list[int]] = {}
    for i, c in enumerate(labels):
        members.setdefault(c, []).append(i)
    for c in members:
        rng.shuffle(members[c])
    chosen: list[int] = []
    while len(chosen) < m and any(members.values()):
        order = [c for c in members if members[c]]
        rng.shuffle(order)
        for c in order:
            if len(chosen) == m:
                break
            chosen.append(members[c].pop())
    return chosen


def build_pool(
    solutions: Iterable[Solution], m: int, seed: int = 0, threshold: float = DEFAULT_THRESHOLD
) -> list[PoolEntry]:
    """The pool of every task, with cluster labels and the drawn targets marked."""
    if m < 1:
        raise ValueError("the RFT pool needs m >= 1 targets per task")
    by_task: dict[str, list[Solution]] = {}
    for s in solutions:
        by_task.setdefault(s.task_id, []).append(s)
    entries = []
    for task_id in sorted(by_task):
        sols = sorted(by_task[task_id], key=lambda s: s.candidate_id)
        labels = cluster(sols, threshold)
        rng = random.Random(f"rft:{seed}:{task_id}")
        picked = draw(labels, m, rng)
        rank = {i: r for r, i in enumerate(picked)}
        n_clusters = len(set(labels))
        for i, s in enumerate(sols):
            entries.append(PoolEntry(s, labels[i], n_clusters, len(sols), i in rank, rank.get(i)))
    return entries
