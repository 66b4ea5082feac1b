"""Fixtures of the dataset builder tests (the helpers they use live in builder_support.py)."""

from __future__ import annotations

import pytest
from builder_support import TINY, FakeVerifier

from datasets_builder.sizing import SizeConfig


@pytest.fixture
def tiny() -> SizeConfig:
    return TINY


@pytest.fixture
def fake_verifier() -> FakeVerifier:
    return FakeVerifier()
