"""Publishing a dataset folder to the Hugging Face Hub through huggingface_hub's HfApi: create the
dataset repository (if needed), then upload the folder in one commit. A dry run prints exactly what
would be uploaded (the repository, every file with its size, the configurations the card declares
and the files each reads, and the card itself) and changes nothing. A card whose configurations
name files the folder does not have is refused, dry run or not. Offline (HF_HUB_OFFLINE=1)
publishing stops with a clear error before any request is attempted.

    python -m datasets_builder publish OUT/dataset --repo ORG/NAME [--private] [--dry-run]"""

from __future__ import annotations

import fnmatch
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from huggingface_hub import DatasetCard

from benchmark.suite.dataset import hub_offline

log = logging.getLogger(__name__)
IGNORE = ["state/**", "cache/**", "*.tmp", "**/.cache/**"]


class PublishError(RuntimeError):
    """The folder cannot be published as asked; the message says why and what to do."""


@dataclass(frozen=True)
class ConfigFiles:
    """A configuration the card declares, one split of it, and the folder's files it reads."""

    config: str
    split: str
    pattern: str
    files: list[str]
    default: bool = False


@dataclass(frozen=True)
class PublishResult:
    repo_id: str
    files: list[tuple[str, int]]  # (path in the repository, bytes)
    dry_run: bool
    url: str | None = None
    commit: str | None = None
    configs: list[ConfigFiles] = field(default_factory=list)
    card: str = ""  # the README.md uploaded

    def summary(self) -> str:
        total = sum(n for _, n in self.files)
        head = "would upload" if self.dry_run else "uploaded"
        lines = [
            f"{head} {len(self.files)} files ({total:,} bytes) to the dataset repository {self.repo_id} "
            f"(https://huggingface.co/datasets/{self.repo_id})"
        ]
        width = max((len(p) for p, _ in self.files), default=0)
        lines += [f"  {p:<{width}}  {n:>12,} bytes" for p, n in self.files]
        if self.configs:
            lines.append("configurations (load_dataset(REPO, CONFIG, split=SPLIT) reads these files):")
            lines += [
                f"  {c.config}{' (default)' if c.default else ''}  split {c.split}  {c.pattern}  -> "
                + ", ".join(c.files)
                for c in self.configs
            ]
        if self.url:
            lines.append(f"commit: {self.url}")
        if self.dry_run and self.card:
            lines += ["card (README.md):", self.card.rstrip("\n")]
        return "\n".join(lines)


def layout(folder: Path, files: list[tuple[str, int]]) -> list[ConfigFiles]:
    """The configurations the card declares and the files each split reads; a split whose pattern
    matches no file is an error (load_dataset would fail on the Hub)."""
    card = DatasetCard.load(Path(folder) / "README.md")
    names = [p for p, _ in files]
    out = []
    for entry in card.data.to_dict().get("configs") or []:
        for data in entry.get("data_files") or []:
            if isinstance(data, str):
                data = {"split": "train", "path": data}
            patterns = data["path"] if isinstance(data["path"], list) else [data["path"]]
            for pattern in patterns:
                matched = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
                if not matched:
                    raise PublishError(
                        f"the card's configuration {entry['config_name']!r} (split {data['split']}) reads "
                        f"{pattern!r}, which matches no file in {folder}; rebuild the folder"
                    )
                out.append(
                    ConfigFiles(
                        entry["config_name"], data["split"], pattern, matched, bool(entry.get("default"))
                    )
                )
    return out


def check_folder(folder: Path) -> list[tuple[str, int]]:
    folder = Path(folder)
    if not folder.is_dir():
        raise PublishError(
            f"{folder} is not a folder; build a dataset first (python -m datasets_builder build)"
        )
    if not (folder / "README.md").is_file():
        raise PublishError(
            f"{folder} has no README.md (dataset card); is this a dataset folder from a build?"
        )
    parquet = sorted(folder.glob("data/**/*.parquet"))
    if not parquet:
        raise PublishError(f"{folder} has no parquet files under data/")
    files = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if (
            p.is_file()
            and not any(Path(rel).match(pat) for pat in IGNORE)
            and not rel.startswith(("state/", "cache/"))
        ):
            files.append((rel, p.stat().st_size))
    return files


def publish(
    folder: str | Path,
    repo_id: str,
    private: bool = False,
    dry_run: bool = False,
    token: str | None = None,
    commit_message: str = "Upload dataset built by datasets_builder",
    api=None,
) -> PublishResult:
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo_id):
        raise PublishError(f"--repo must be ORG/NAME, not {repo_id!r}")
    files = check_folder(Path(folder))
    configs = layout(Path(folder), files)
    card = (Path(folder) / "README.md").read_text()
    if dry_run:
        return PublishResult(repo_id, files, dry_run=True, configs=configs, card=card)
    if hub_offline():
        raise PublishError(
            "HF_HUB_OFFLINE=1 is set, so nothing can be uploaded to the Hub; unset it (and log in with "
            "`huggingface-cli login` or HF_TOKEN) to publish, or use --dry-run to see what would be uploaded"
        )
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi(token=token)
    try:
        repo = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        commit = api.upload_folder(
            folder_path=str(folder),
            repo_id=repo_id,
            repo_type="dataset",
            commit_message=commit_message,
            ignore_patterns=IGNORE,
            delete_patterns=["data/**.parquet"],  # data files of an earlier build
        )
    except Exception as e:  # noqa: BLE001 - Hub errors (auth, network, offline) become one clear message
        name = type(e).__name__
        if "Offline" in name:
            raise PublishError("huggingface_hub is in offline mode; unset HF_HUB_OFFLINE to publish") from e
        raise PublishError(f"publishing to {repo_id} failed: {name}: {e}") from e
    url = getattr(commit, "commit_url", None) or (str(commit) if commit else None)
    oid = getattr(commit, "oid", None)
    log.info("published %s (%s)", repo_id, getattr(repo, "url", repo))
    return PublishResult(repo_id, files, dry_run=False, url=url, commit=oid, configs=configs)
