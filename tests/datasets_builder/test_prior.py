"""A build over an earlier revision: its tasks as the task source, its verified solutions verified
again beside the new teacher's, both in the new RFT pool (rejection fine-tuning's next revision)."""

from __future__ import annotations

from dataclasses import replace

import datasets
import pytest
from builder_support import FakeTeacher, FakeVerifier, plain_candidate, run_build, tiny_config

from datasets_builder.build import Builder
from datasets_builder.config import ConfigError, OutputConfig, SynthesisConfig, TeacherConfig
from datasets_builder.prior import PRIOR_VARIANT, DatasetSource, prior_solutions, prior_tasks, revision
from datasets_builder.teachers.base import Candidate


def _rows(folder, config: str) -> list[dict]:
    return datasets.load_dataset(str(folder), config, split="train").to_list()


@pytest.fixture(scope="module")
def next_revision(built, tmp_path_factory):
    """Build B over build A's dataset: no synthesis, A's tasks, A's solutions carried, a teacher of its own."""
    _, first, _ = built
    cfg = tiny_config(
        synthesis=SynthesisConfig(datasets=(DatasetSource(str(first.dataset)),)),
        teacher=TeacherConfig(kind="none", prior=str(first.dataset)),
        output=OutputConfig(export_suite=False),
    )
    verifier = FakeVerifier()
    out = tmp_path_factory.mktemp("next")
    return first, run_build(out, cfg=cfg, teacher=FakeTeacher(), verifier=verifier), verifier


def test_the_earlier_revisions_tasks_are_the_new_builds_tasks(next_revision):
    first, second, _ = next_revision
    before = {r["task_id"]: r["code"] for r in _rows(first.dataset, "tasks")}
    after = {r["task_id"]: r["code"] for r in _rows(second.dataset, "tasks")}
    assert before and after == before
    assert second.stats["tasks"]["from_datasets"] == len(before)
    assert second.stats["tasks"]["synthesized"] == 0


def test_the_earlier_solutions_are_verified_again_and_join_the_new_teachers_in_the_pool(next_revision):
    first, second, verifier = next_revision
    earlier = {(r["task_id"], r["solution"]) for r in _rows(first.dataset, "rft") if r["verified"]}
    assert earlier
    assert earlier <= set(verifier.calls), "every earlier solution went through this build's verifier"
    pool = _rows(second.dataset, "rft")
    carried = [r for r in pool if r["source"] == f"prior:{revision(first.dataset)}"]
    new = [r for r in pool if r["source"].startswith("generation:")]
    assert {(r["task_id"], r["solution"]) for r in carried} == earlier
    assert new and len(carried) + len(new) == len(pool)
    both = {r["task_id"] for r in carried} & {r["task_id"] for r in new}  # solved by both teachers
    assert both and all(r["pool_size"] == 2 for r in pool if r["task_id"] in both)
    assert "solutions of an earlier revision, verified again" in second.stats["teacher"]


class _ModelAnswers:
    """A model teacher that answers every request with the task's own PyTorch as ModelNew."""

    name = "model:fake"

    def __init__(self):
        self.asked: list[str] = []

    def generate(self, requests, parents=None):
        for r in requests:
            self.asked.append(r.task.task_id)
            yield Candidate(
                r.task.task_id, self.name, plain_candidate(r.task.source), sample=r.sample, turn=r.turn
            )


def test_a_model_teacher_answers_only_its_levels_and_every_task_keeps_its_earlier_solutions(built, tmp_path):
    _, first, _ = built
    model = _ModelAnswers()
    cfg = tiny_config(
        synthesis=SynthesisConfig(datasets=(DatasetSource(str(first.dataset)),)),
        teacher=TeacherConfig(
            kind="model", model="fake", samples=2, turns=1, levels=(1,), prior=str(first.dataset)
        ),
        output=OutputConfig(export_suite=False),
    )
    result = Builder(
        cfg,
        tmp_path,
        model_teacher=model,
        verifier=FakeVerifier(),
        timing_verifier=FakeVerifier(measure=True),
        progress=False,
    ).run()
    tasks = {r["task_id"]: r["level"] for r in _rows(result.dataset, "tasks")}
    assert set(model.asked) == {t for t, level in tasks.items() if level == 1}
    assert len(model.asked) == 2 * len(set(model.asked))  # two samples each
    pool = _rows(result.dataset, "rft")
    assert {r["task_id"] for r in pool if r["source"].startswith("generation:")} == set(model.asked)
    others = {t for t, level in tasks.items() if level != 1}
    earlier = {r["task_id"] for r in _rows(first.dataset, "rft") if r["verified"]} & others
    assert earlier and earlier <= {r["task_id"] for r in pool if r["source"].startswith("prior:")}


def test_prior_reads_a_revision_and_names_it(built):
    _, first, _ = built
    tasks = prior_tasks(DatasetSource(str(first.dataset)))
    solutions = prior_solutions(first.dataset)
    assert {t.task_id for t in tasks} >= set(solutions)
    assert all(s.code and s.teacher for group in solutions.values() for s in group)
    assert revision(first.dataset).startswith(first.dataset.resolve().name + "@")
    assert PRIOR_VARIANT == "prior"


def test_a_folder_without_the_configuration_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no 'tasks' configuration"):
        prior_tasks(DatasetSource(str(tmp_path)))
    with pytest.raises(FileNotFoundError, match="no 'rft' configuration"):
        prior_solutions(tmp_path)


def test_the_rft_config_loads():
    from datasets_builder.config import load_config

    cfg = load_config("configs/datasets/rft_smollm2.yaml")
    assert cfg.teacher.kind == "model" and cfg.teacher.samples == 8
    assert cfg.teacher.prior == cfg.synthesis.datasets[0].path


def test_a_build_config_names_its_earlier_revision_in_yaml(tmp_path):
    from datasets_builder.config import load_config

    path = tmp_path / "b.yaml"
    path.write_text(
        "device: cpu\nsynthesis:\n  datasets: [{path: data/solbench-kernels}]\n"
        "teacher: {kind: model, model: reference, prior: data/solbench-kernels}\n"
    )
    cfg = load_config(path)
    assert cfg.synthesis.datasets == (DatasetSource("data/solbench-kernels"),)
    assert cfg.teacher.prior == "data/solbench-kernels"
    bad = tmp_path / "bad.yaml"
    bad.write_text("device: cpu\nsynthesis:\n  datasets: [{folder: x}]\n")
    with pytest.raises(Exception, match="folder"):
        load_config(bad)
    assert replace(cfg.teacher, prior=None).prior is None
    with pytest.raises(ConfigError, match="teacher.dtype must be one of auto"):
        replace(cfg.teacher, dtype="bf16")
