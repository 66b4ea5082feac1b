"""Publishing to the Hub through HfApi (patched: no network here), dry runs (on a folder the
builder writes: what they print, and a card that names missing files), and offline mode."""

from __future__ import annotations

import re
import shutil

import datasets
import pytest
from huggingface_hub import constants

from datasets_builder.__main__ import main
from datasets_builder.publish import PublishError, publish


@pytest.fixture
def folder(tmp_path):
    out = tmp_path / "dataset"
    (out / "data").mkdir(parents=True)
    datasets.Dataset.from_list([{"messages": [{"role": "user", "content": "x"}]}]).to_parquet(
        str(out / "data" / "sft-00000-of-00001.parquet")
    )
    (out / "README.md").write_text("---\nlicense: apache-2.0\n---\n# card\n")
    (out / "state").mkdir()
    (out / "state" / "tasks.jsonl").write_text("{}\n")
    return out


def online(monkeypatch):
    """The Hub reachable, whatever HF_HUB_OFFLINE was when huggingface_hub was imported."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


class FakeApi:
    def __init__(self):
        self.calls = []

    def create_repo(self, repo_id, **kw):
        self.calls.append(("create_repo", repo_id, kw))
        return f"https://huggingface.co/datasets/{repo_id}"

    def upload_folder(self, **kw):
        self.calls.append(("upload_folder", kw["repo_id"], kw))

        class Commit:
            commit_url = "https://huggingface.co/datasets/org/name/commit/abc"
            oid = "abc"

        return Commit()


def test_publish_creates_the_repo_and_uploads_the_folder(folder, monkeypatch):
    online(monkeypatch)
    api = FakeApi()
    result = publish(folder, "org/name", private=True, api=api)
    (c1, repo, kw1), (c2, repo2, kw2) = api.calls
    assert (c1, repo, kw1) == (
        "create_repo",
        "org/name",
        {"repo_type": "dataset", "private": True, "exist_ok": True},
    )
    assert c2 == "upload_folder" and repo2 == "org/name" and kw2["repo_type"] == "dataset"
    assert kw2["folder_path"] == str(folder) and "state/**" in kw2["ignore_patterns"]
    assert result.commit == "abc" and not result.dry_run
    assert [p for p, _ in result.files] == ["README.md", "data/sft-00000-of-00001.parquet"]


def test_publish_through_patched_hfapi_methods(folder, monkeypatch):
    import huggingface_hub

    online(monkeypatch)
    calls = []
    monkeypatch.setattr(
        huggingface_hub.HfApi,
        "create_repo",
        lambda self, repo_id, **kw: calls.append(("create", repo_id, kw)),
    )
    monkeypatch.setattr(
        huggingface_hub.HfApi, "upload_folder", lambda self, **kw: calls.append(("upload", kw))
    )
    publish(folder, "org/name")
    assert [c[0] for c in calls] == ["create", "upload"] and calls[0][2]["repo_type"] == "dataset"


def test_dry_run_uploads_nothing_even_offline(folder, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    api = FakeApi()
    result = publish(folder, "org/name", dry_run=True, api=api)
    assert api.calls == [] and result.dry_run and "would upload 2 files" in result.summary()
    assert main(["publish", str(folder), "--repo", "org/name", "--dry-run"]) == 0
    assert "would upload" in capsys.readouterr().out


def test_offline_mode_is_a_clear_error(folder, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    api = FakeApi()
    with pytest.raises(PublishError, match="HF_HUB_OFFLINE=1 is set"):
        publish(folder, "org/name", api=api)
    assert api.calls == []
    assert main(["publish", str(folder), "--repo", "org/name"]) == 2
    assert "HF_HUB_OFFLINE=1 is set" in capsys.readouterr().err


def test_bad_inputs_are_refused(folder, tmp_path, monkeypatch):
    online(monkeypatch)
    with pytest.raises(PublishError, match="ORG/NAME"):
        publish(folder, "not-a-repo", api=FakeApi())
    with pytest.raises(PublishError, match="not a folder"):
        publish(tmp_path / "missing", "org/name", api=FakeApi())
    (folder / "README.md").unlink()
    with pytest.raises(PublishError, match="README"):
        publish(folder, "org/name", api=FakeApi())


def test_hub_errors_are_reported(folder, monkeypatch):
    online(monkeypatch)

    class Denied(FakeApi):
        def create_repo(self, repo_id, **kw):
            raise PermissionError("401 Unauthorized")

    with pytest.raises(PublishError, match="401 Unauthorized"):
        publish(folder, "org/name", api=Denied())


def test_a_folder_with_one_subfolder_per_configuration_is_publishable(folder):
    (folder / "data" / "sft-00000-of-00001.parquet").rename(folder / "data" / "part.tmp")
    (folder / "data" / "sft").mkdir()
    (folder / "data" / "part.tmp").rename(folder / "data" / "sft" / "train-00000-of-00001.parquet")
    result = publish(folder, "org/name", dry_run=True)
    assert [p for p, _ in result.files] == ["README.md", "data/sft/train-00000-of-00001.parquet"]


def test_dry_run_on_a_built_folder_prints_the_repository_every_file_and_the_card(built, capsys):
    out, _, _ = built
    folder = out / "dataset"
    assert main(["publish", str(folder), "--repo", "solbench/kernels", "--dry-run"]) == 0
    printed = capsys.readouterr().out
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    total = sum(p.stat().st_size for p in files)
    head = printed.splitlines()[0]
    assert head == (
        f"would upload {len(files)} files ({total:,} bytes) to the dataset repository solbench/kernels "
        "(https://huggingface.co/datasets/solbench/kernels)"
    )
    for p in files:
        rel = p.relative_to(folder).as_posix()
        assert re.search(rf"^  {re.escape(rel)} +{p.stat().st_size:,} bytes$", printed, re.M), rel
    assert {"README.md", "build_stats.json", "licenses/ext-LICENSE"} <= {
        p.relative_to(folder).as_posix() for p in files
    }
    for config in ("sft", "rft", "rl_prompts", "tasks"):
        parquet = next((folder / "data" / config).glob("train-*.parquet")).relative_to(folder).as_posix()
        assert re.search(
            rf"^  {config}( \(default\))?  split train  .*-> {re.escape(parquet)}$", printed, re.M
        )
    assert printed.rstrip("\n").endswith((folder / "README.md").read_text().rstrip("\n"))
    assert "card (README.md):" in printed


def test_a_card_that_names_missing_files_is_refused(built, tmp_path):
    out, _, _ = built
    copy = tmp_path / "dataset"
    shutil.copytree(out / "dataset", copy)
    next((copy / "data" / "rft").glob("*.parquet")).unlink()
    with pytest.raises(PublishError, match=r"configuration 'rft' \(split train\) reads .* matches no file"):
        publish(copy, "solbench/kernels", dry_run=True)
