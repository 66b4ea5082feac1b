"""The diversity-preserving RFT pool: clustering by code features, seeded random draws that cover
every cluster when m allows, and targets that are not simply the fastest solution."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from datasets_builder.rft import Solution, build_pool, cluster, draw

ROWWISE = """import torch
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + row, tl.sum(x * {scale}, axis=0))


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape[0], device=x.device)
        k[(x.shape[0],)](x, y, x.shape[1], BLOCK={block})
        return y
"""
LOOPED = """import torch
import triton
import triton.language as tl


@triton.jit
def partial(x_ptr, p_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + pid * n + offs, mask=offs < n, other=0.0)
    tl.atomic_add(p_ptr + pid, tl.sum(acc, axis=0) * {scale})


class ModelNew(torch.nn.Module):
    def forward(self, x):
        p = torch.zeros(x.shape[0], device=x.device)
        partial[(x.shape[0],)](x, p, x.shape[1], BLOCK={block})
        return p
"""


def pool_for(task: str, n_each: int) -> list[Solution]:
    sols = []
    for i in range(n_each):
        sols.append(
            Solution(
                f"{task}-row{i}", task, ROWWISE.format(scale=1.0 + i, block=128 * (i + 1)), speedup=2.0 + i
            )
        )
        sols.append(
            Solution(f"{task}-loop{i}", task, LOOPED.format(scale=1.0 + i, block=64 * (i + 1)), speedup=0.5)
        )
    return sols


def test_clusters_follow_structure_not_constants():
    sols = pool_for("t", 3)
    labels = cluster(sols)
    groups = {}
    for s, label in zip(sols, labels, strict=True):
        groups.setdefault(label, set()).add(s.candidate_id.split("-")[1][:3])
    assert len(groups) == 2 and sorted(map(sorted, groups.values())) == [["loo"], ["row"]]


def test_draw_covers_every_cluster_when_m_allows():
    labels = [0, 0, 0, 1, 2, 2]
    for seed in range(20):
        picked = draw(labels, 3, random.Random(seed))
        assert sorted(labels[i] for i in picked) == [0, 1, 2]
    assert sorted(draw(labels, 10, random.Random(0))) == list(range(6))  # m larger than the pool: all of it


def test_draws_are_seeded_and_not_always_the_fastest():
    sols = [s for t in range(30) for s in pool_for(f"task{t}", 3)]
    a = build_pool(sols, m=1, seed=1)
    b = build_pool(sols, m=1, seed=1)
    c = build_pool(sols, m=1, seed=2)
    pick = lambda entries: [e.solution.candidate_id for e in entries if e.selected]  # noqa: E731
    assert pick(a) == pick(b) and pick(a) != pick(c)
    chosen = [e for e in a if e.selected]
    assert len(chosen) == 30  # one target per task
    fastest = sum(e.solution.speedup == 4.0 for e in chosen)
    looped = sum(e.solution.candidate_id.split("-")[1].startswith("loop") for e in chosen)
    assert 0 < fastest < 30 and 5 <= looped <= 25  # the slow cluster is drawn about half the time


def test_pool_entries_carry_cluster_and_draw_rank():
    entries = build_pool(pool_for("t", 2), m=2, seed=0)
    assert {e.pool_size for e in entries} == {4} and {e.clusters for e in entries} == {2}
    ranks = sorted(e.draw_rank for e in entries if e.selected)
    assert ranks == [0, 1]
    assert Counter(e.cluster for e in entries if e.selected) == Counter({0: 1, 1: 1})
    with pytest.raises(ValueError, match="m >= 1"):
        build_pool([], m=0)
