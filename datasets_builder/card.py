"""Dataset cards: the README.md of each published folder, rendered from our Jinja templates
(train_card.md.j2, suite_card.md.j2) into huggingface_hub's DatasetCard. The YAML metadata is a
DatasetCardData (license, language, tags, task categories, size category, pretty name), with the
configurations and their sizes written into it by datasets' own MetadataConfigs and DatasetInfosDict,
as push_to_hub writes them; the body holds the statistics of the build that made it: tasks per level
and family, the teacher, pass rates, skip reasons, the speedup distribution of the timed solutions,
the decontamination audit, and the time taken. Nothing here touches the network."""

from __future__ import annotations

from pathlib import Path

import datasets
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from datasets_builder.schema import __doc__ as SCHEMA_DOC

TEMPLATES = Path(__file__).parent
TRAIN_TAGS = ["code", "gpu-kernels", "triton", "pytorch", "synthetic"]
SUITE_TAGS = ["code", "gpu-kernels", "benchmark", "pytorch"]


def _size_category(n: int) -> str:
    for limit, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < limit:
            return label
    return "n>1M"


def card_data(
    pretty_name: str,
    license: str,
    rows: int,
    tags: list[str],
    configs: dict[str, dict],
    infos: dict[str, datasets.DatasetInfo],
) -> DatasetCardData:
    """The card's metadata: `configs` maps a configuration to its YAML entry (data_files, default),
    `infos` to its DatasetInfo (features, splits and their sizes)."""
    data = DatasetCardData(
        pretty_name=pretty_name,
        license=license,
        language=["en"],
        tags=tags,
        task_categories=["text-generation"],
        size_categories=[_size_category(rows)],
    )
    MetadataConfigs(configs).to_dataset_card_data(data)
    DatasetInfosDict(infos).to_dataset_card_data(data)
    return data


def _table(head: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += [
        "| "
        + " | ".join("" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v) for v in r)
        + " |"
        for r in rows
    ]
    return "\n".join(out)


def _counts_table(table: dict[str, dict], key: str) -> str:
    cols = ["processed", "valid", "solved", "candidates", "kept"]
    rows = [[k, *[v.get(c, 0) for c in cols]] for k, v in table.items()]
    return _table([key, "tasks", "valid", "with a kept solution", "candidates", "kept"], rows)


def stats_sections(stats: dict) -> list[str]:
    """The statistics of a build, as markdown sections (the card's, and OUT/stats.md for docs/)."""
    sol = stats.get("solutions", {})
    tasks = stats.get("tasks", {})
    teacher = stats.get("teacher", {})
    audit_t = stats.get("decontamination_tasks", {})
    audit_s = sol.get("decontamination_solutions", {})
    speed = sol.get("speedup", {})
    out: list[str] = []
    out.append(
        "## Build\n\n"
        + _table(
            ["", "value"],
            [
                ["tasks synthesized or imported", tasks.get("candidates")],
                ["removed as duplicates (normalized AST)", tasks.get("duplicates")],
                ["removed as contaminated (near-duplicates of suite tasks)", audit_t.get("removed")],
                ["processed (validated)", sol.get("tasks_processed")],
                ["valid under the suite validator", sol.get("tasks_valid")],
                ["with a kept solution", sol.get("tasks_with_solution")],
                ["candidates verified", sol.get("candidates")],
                ["kept solutions (strict pass)", sol.get("kept_solutions")],
                ["kept after decontaminating solutions", sol.get("kept_after_decontamination")],
                ["pass rate of candidates", sol.get("pass_rate")],
                ["device", stats.get("device")],
                ["time taken (s)", stats.get("time", {}).get("total_s")],
            ],
        )
        + "\n"
    )
    if stats.get("budget", {}).get("stopped_early"):
        out.append(f"The build stopped scheduling new tasks early: {stats['budget'].get('reason')}.\n")
    out.append("### Tasks per level\n\n" + _counts_table(sol.get("by_level", {}), "level") + "\n")
    out.append("### Tasks per family\n\n" + _counts_table(sol.get("by_family", {}), "family") + "\n")
    out.append("### Tasks per dtype\n\n" + _counts_table(sol.get("by_dtype", {}), "dtype") + "\n")
    out.append("## Teacher\n\n" + "\n".join(f"- {k}: {v}" for k, v in teacher.items()) + "\n")
    out.append(
        "Verdicts of all candidates: "
        + ", ".join(f"{k} {v}" for k, v in sorted(sol.get("candidates_by_status", {}).items()))
        + ".\n"
    )
    skips = sol.get("teacher_skips", {})
    if skips:
        out.append(
            "Tasks the teacher could not answer, by reason: "
            + ", ".join(f"{k} {v}" for k, v in sorted(skips.items(), key=lambda kv: -kv[1]))
            + ". "
            "`extern_kernel`: the graph still calls a library kernel (cuBLAS/cuDNN) that the strict anti-cheat "
            "refuses; `fallback_op`: an ATen op Inductor does not lower to Triton; others are named after the "
            "step that failed.\n"
        )
    out.append("## Speedup of the timed solutions\n")
    if speed.get("timed"):
        out.append(
            f"A random subset of {speed['timed']} kept solutions was re-verified with timing (eager PyTorch "
            "baseline, the benchmark's timing protocol). "
            f"Median speedup {speed['median']:.3g}x, geometric mean {speed['geomean']:.3g}x, "
            f"10th-90th percentile {speed['p10']:.3g}-{speed['p90']:.3g}x; "
            f"{speed['faster_than_eager']:.0%} faster than eager, {speed['faster_1_1x']:.0%} faster by more than 1.1x.\n\n"
            + _table(["speedup", "solutions"], [[k, v] for k, v in speed.get("histogram", {}).items()])
            + "\n"
        )
    else:
        out.append("No solution was timed in this build (correctness-only verification).\n")
    out.append("## Decontamination audit\n")
    out.append(
        "Every synthesized task and every kept solution was compared with the SOLBench evaluation suite "
        f"({audit_t.get('suite_tasks', '?')} tasks). Programs are normalized (names, formatting, comments, "
        "docstrings, imports, metadata, dtypes and numbers removed) and compared by the exact Jaccard index of "
        f"their token n-grams in two views: the whole file ({audit_t.get('program_ngram')}-grams, threshold "
        f"{audit_t.get('program_threshold')}) and the `Model` class alone ({audit_t.get('model_ngram')}-grams, "
        f"threshold {audit_t.get('model_threshold')}). Anything at or above either threshold was removed.\n\n"
        + _table(
            ["compared", "candidates", "removed", "by whole file", "by Model class"],
            [
                [
                    "tasks",
                    audit_t.get("candidates"),
                    audit_t.get("removed"),
                    audit_t.get("removed_program"),
                    audit_t.get("removed_model"),
                ],
                [
                    "solutions",
                    audit_s.get("candidates"),
                    audit_s.get("removed"),
                    audit_s.get("removed_program"),
                    audit_s.get("removed_model"),
                ],
            ],
        )
        + "\n"
    )
    examples = audit_t.get("removed_examples") or []
    if examples:
        out.append(
            "Closest removed tasks:\n\n"
            + _table(
                ["task", "suite task", "file similarity", "Model similarity"],
                [
                    [e["id"], e["suite_task"], e["program_similarity"], e["model_similarity"]]
                    for e in examples
                ],
            )
            + "\n"
        )
    return out


def stats_markdown(stats: dict) -> str:
    return "\n".join(["# Build statistics\n", *stats_sections(stats)])


def train_card(
    stats: dict,
    counts: dict[str, int],
    name: str,
    license: str,
    repo: str,
    configs: dict[str, dict],
    infos: dict[str, datasets.DatasetInfo],
) -> DatasetCard:
    """The training data's card; `counts` are the rows of each configuration, empty ones included."""
    data = card_data(name, license, sum(counts.values()), TRAIN_TAGS, configs, infos)
    return DatasetCard.from_template(
        data,
        template_path=str(TEMPLATES / "train_card.md.j2"),
        repo_id=repo,
        counts=counts,
        rft_m=stats.get("rft", {}).get("m", "?"),
        statistics="\n".join(stats_sections(stats)),
        schema=(SCHEMA_DOC or "").split("\n\n", 1)[-1].strip(),
    )


def suite_card(
    n_tasks: int,
    version: str,
    license: str,
    configs: dict[str, dict],
    infos: dict[str, datasets.DatasetInfo],
    name: str = "SOLBench suite",
    repo: str = "ORG/NAME",
) -> DatasetCard:
    data = card_data(name, license, n_tasks, SUITE_TAGS, configs, infos)
    return DatasetCard.from_template(
        data,
        template_path=str(TEMPLATES / "suite_card.md.j2"),
        repo_id=repo,
        n_tasks=n_tasks,
        version=version,
    )
