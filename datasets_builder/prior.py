"""An earlier revision of the published training dataset, read back: its tasks (the `tasks`
configuration) as a task source, and its verified solutions (the `rft` pool) as candidates that a
new build verifies again beside its own teacher's. This is how rejection fine-tuning grows the pool
(MusaCoder's RFT): a new revision over the same training tasks, whose pool holds the earlier
teacher's solutions and the trained model's verified answers, drawn for diversity by rft.py.

A revision is a folder as `export.write_train_folder` writes it (or a download of the Hub
repository), read with `datasets.load_dataset` like any user would."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PRIOR_VARIANT = "prior"  # Candidate.variant of a solution carried from an earlier revision


@dataclass(frozen=True)
class DatasetSource:
    """Tasks of an earlier revision: `path`, a dataset folder with a `tasks` configuration."""

    path: str


@dataclass(frozen=True)
class PriorTask:
    task_id: str  # "levelN/name", as in the earlier revision
    code: str
    family: str


@dataclass(frozen=True)
class PriorSolution:
    task_id: str
    teacher: str
    code: str
    candidate_id: str  # its id in the earlier revision


def _rows(path: str | Path, config: str) -> list[dict]:
    import datasets

    folder = Path(path)
    if not (folder / "data" / config).is_dir():
        raise FileNotFoundError(
            f"{folder}: no '{config}' configuration (data/{config}/); give the folder of a published "
            "training dataset (python -m datasets_builder build writes one under OUT/dataset)"
        )
    return datasets.load_dataset(str(folder), config, split="train").to_list()


def revision(path: str | Path) -> str:
    """What names the earlier revision in the new one's records: its folder's name and the content
    fingerprint its solution pool's file carries (export.py names files by it)."""
    folder = Path(path).resolve()
    files = sorted((folder / "data" / "rft").glob("train-*.parquet"))
    fingerprint = files[0].name.split("-")[1] if files else None
    return f"{folder.name}@{fingerprint}" if fingerprint else folder.name


def prior_tasks(source: DatasetSource) -> list[PriorTask]:
    """The earlier revision's tasks, each with the family its solutions were filed under."""
    tasks = _rows(source.path, "tasks")
    families = {r["task_id"]: r["family"] for r in _rows(source.path, "rft")}
    return [PriorTask(r["task_id"], r["code"], families.get(r["task_id"], "dataset")) for r in tasks]


def prior_solutions(path: str | Path) -> dict[str, list[PriorSolution]]:
    """The earlier revision's verified solutions by task (its whole `rft` pool, drawn or not)."""
    out: dict[str, list[PriorSolution]] = {}
    for r in _rows(path, "rft"):
        if r["verified"] and r["solution"]:
            out.setdefault(r["task_id"], []).append(
                PriorSolution(r["task_id"], r["teacher"], r["solution"], r["candidate_id"])
            )
    return out
