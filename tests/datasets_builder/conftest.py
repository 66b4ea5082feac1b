"""Fixtures of the dataset builder tests (the helpers they use live in builder_support.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from builder_support import TINY, FakeTeacher, FakeVerifier, licensed_source, run_build, tiny_config

from datasets_builder.sizing import SizeConfig


@pytest.fixture
def tiny() -> SizeConfig:
    return TINY


@pytest.fixture
def fake_verifier() -> FakeVerifier:
    return FakeVerifier()


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """One tiny CPU build, shared by the tests that read its output: eleven synthesized tasks and an
    imported MIT-licensed source, the suite exported too. Returns (OUT, BuildResult, teacher)."""
    source = licensed_source(tmp_path_factory.mktemp("ext"))
    cfg = tiny_config()
    cfg = replace(cfg, synthesis=replace(cfg.synthesis, imports=(source,)))
    teacher = FakeTeacher()
    out = tmp_path_factory.mktemp("build")
    return out, run_build(out, cfg=cfg, teacher=teacher), teacher
