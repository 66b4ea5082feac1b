"""A training folder's card rendered again from the folder alone (rows and build_stats.json) is the
card the build wrote, for a tiny CPU build and for the committed H200 build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from datasets_builder.recard import main, recard

PUBLISHED = Path(__file__).resolve().parents[2] / "data" / "solbench-kernels"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_the_card_rendered_from_the_folder_is_the_builds_card(built, tmp_path):
    out, _, _ = built
    copy = tmp_path / "dataset"
    shutil.copytree(out / "dataset", copy)
    (copy / "README.md").write_text("stale")
    recard(copy)
    written = (out / "dataset" / "README.md").read_text().replace(str(out / "dataset"), str(copy))
    assert (copy / "README.md").read_text() == written


@pytest.mark.slow
@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=f"the H200 build is not committed ({PUBLISHED})")
def test_the_committed_card_is_what_the_card_code_renders_from_its_rows(tmp_path, monkeypatch):
    copy = tmp_path / "data" / PUBLISHED.name
    shutil.copytree(PUBLISHED, copy)
    monkeypatch.chdir(tmp_path)  # where the repository's root is for the copy
    recard(copy)
    assert (copy / "README.md").read_text() == (PUBLISHED / "README.md").read_text(), (
        "the committed card is stale: python -m datasets_builder.recard data/solbench-kernels"
    )


def test_a_folder_without_build_statistics_is_refused(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    assert "build_stats.json is missing" in capsys.readouterr().err
