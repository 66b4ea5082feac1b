"""The licence policy of imported sources: which declared licences and licence texts are accepted,
which are refused (with the source and the clause named), the review that lets an unlisted licence
in, and what an accepted source records."""

from __future__ import annotations

import subprocess

import pytest
from builder_support import MIT, SOURCE_REVISION, SOURCE_URL, licensed_source

from datasets_builder.importer import ImportConfig, import_folder
from datasets_builder.licenses import LicenseError, find_clauses, judge

RECIPROCITY = MIT.replace(
    "THE SOFTWARE IS PROVIDED",
    "Any model trained or fine-tuned on the Software must be released, with its weights, under this "
    "same license.\n\nTHE SOFTWARE IS PROVIDED",
)


@pytest.mark.parametrize(
    "declared", ["MIT", "apache-2.0", "BSD-3-Clause", "CC0-1.0", "MIT OR GPL-3.0-only", "(Apache-2.0 OR MIT)"]
)
def test_permissive_licences_are_allowed(declared):
    allowed, why = judge(declared)
    assert allowed and "allow list" in why


@pytest.mark.parametrize(
    "declared, clause",
    [
        ("CC-BY-NC-4.0", "non-commercial"),
        ("CC-BY-NC-SA-4.0", "non-commercial"),
        ("CC-BY-ND-4.0", "no derivatives"),
        ("CC-BY-SA-4.0", "share-alike"),
        ("GPL-3.0-only", "copyleft"),
        ("AGPL-3.0-or-later", "copyleft"),
        ("openrail-m", "trained on the tasks"),
        ("llama3.1", "trained on the tasks"),
        ("proprietary", "no redistribution"),
        ("NOASSERTION", "no licence"),
    ],
)
def test_denied_licences_are_refused_with_their_clause(tmp_path, declared, clause):
    allowed, why = judge(declared)
    assert not allowed and clause in why
    source = licensed_source(tmp_path / "src", license=declared, allow_unlisted_license="reviewed")
    with pytest.raises(LicenseError, match=rf"imported source 'ext' \(.*src\) refused: .*{clause}"):
        import_folder(source)  # a review cannot let a denied licence in


def test_a_training_reciprocity_clause_is_refused_even_under_a_permissive_id(tmp_path):
    source = licensed_source(tmp_path / "src", license_text=RECIPROCITY)
    with pytest.raises(LicenseError) as refused:
        import_folder(source)
    message = str(refused.value)
    assert "imported source 'ext'" in message and "reciprocity for anyone who trains on it" in message
    assert "Any model trained or fine-tuned on the Software must be released" in message
    assert [c.clause for c in find_clauses(MIT)] == []  # the plain MIT text states no such clause


@pytest.mark.parametrize(
    "text, clause",
    [
        ("Attribution-NonCommercial 4.0 International", "non-commercial"),
        ("You may use these files for non-commercial purposes only.", "non-commercial"),
        ("Attribution-NoDerivatives 4.0 International", "no derivatives"),
        ("If you fine-tune a model on these kernels, you shall publish that model.", "reciprocity"),
    ],
)
def test_clauses_found_in_licence_texts(text, clause):
    assert [c.clause for c in find_clauses(text)][0].startswith(clause)


def test_unlisted_or_missing_licences_need_a_review(tmp_path):
    unlisted = licensed_source(tmp_path / "a", license="LicenseRef-Kernel-Terms")
    with pytest.raises(
        LicenseError, match="LicenseRef-Kernel-Terms is not on the allow list.*allow_unlisted"
    ):
        import_folder(unlisted)
    reviewed = ImportConfig(**{**unlisted.__dict__, "allow_unlisted_license": "terms read on 2026-11-02"})
    record = import_folder(reviewed).record
    assert record.review == "terms read on 2026-11-02" and "allowed by review" in record.decision

    missing = licensed_source(tmp_path / "b", license=None)
    (tmp_path / "b" / "LICENSE").unlink()
    with pytest.raises(LicenseError, match="'ext'.*no licence was declared or found"):
        import_folder(missing)


def test_the_spdx_line_of_the_licence_file_declares_the_licence(tmp_path):
    source = licensed_source(
        tmp_path / "src", license_text="SPDX-License-Identifier: BSD-2-Clause\n", license=None
    )
    record = import_folder(source).record
    assert record.license == "BSD-2-Clause" and record.license_file == str(tmp_path / "src" / "LICENSE")


def test_an_accepted_source_records_where_it_came_from(tmp_path):
    result = import_folder(licensed_source(tmp_path / "src"))
    r = result.record
    assert (r.name, r.license, r.url, r.revision, r.tasks) == ("ext", "MIT", SOURCE_URL, SOURCE_REVISION, 1)
    assert [t.name for t in result.tasks] == ["ext_level1_scale_shift"]
    no_revision = licensed_source(tmp_path / "other", revision=None)
    with pytest.raises(LicenseError, match="'ext'.*url and revision"):
        import_folder(no_revision)


def test_a_git_checkout_gives_its_remote_and_commit(tmp_path):
    repo = tmp_path / "repo"
    source = licensed_source(repo / "tasks", url=None, revision=None)
    (repo / "tasks" / "LICENSE").rename(repo / "LICENSE")  # the licence at the repository's root
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    try:
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not available")
    subprocess.run([*git, "remote", "add", "origin", SOURCE_URL], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "tasks"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    r = import_folder(source).record
    assert (r.url, r.revision, r.license_file) == (SOURCE_URL, head, str(repo / "LICENSE"))
