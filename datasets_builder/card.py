"""Dataset cards: the README.md of each published folder, rendered from our Jinja templates
(train_card.md.j2, suite_card.md.j2) into huggingface_hub's DatasetCard. The YAML metadata is a
DatasetCardData (license, language, tags, task categories, size category, pretty name), with the
configurations and their sizes written into it by datasets' own MetadataConfigs and DatasetInfosDict,
as push_to_hub writes them. The training card's body says what a reader needs to trust the data
(REQUIRED_SECTIONS): what each configuration and split is for, how the rows were made and filtered,
the verifier's settings, the build's statistics (the speedup distribution by benchmark.stats, the
task tables by the code that writes docs/suite.md), the decontamination audit with the suite version,
every source with its licence, and the known limitations. Nothing here touches the network."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import datasets
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from datasets_builder.schema import __doc__ as SCHEMA_DOC

TEMPLATES = Path(__file__).parent
# The sections every training card has (tests check each on the README.md a build writes).
REQUIRED_SECTIONS = (
    "## Loading",
    "## Configurations and splits",
    "## How the rows were made",
    "## Verifier settings",
    "## Build",
    "## Teacher",
    "## Speedup of the timed solutions",
    "## Decontamination audit",
    "## The tasks",
    "## Sources and licences",
    "## Known limitations",
    "## Schema",
)
# The build's stages in the order they run (build.Builder.run), for the time-per-stage line.
STAGES = ("synthesize", "screen", "process_tasks", "teach", "repair", "time_subset", "assemble")
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
    rows = [
        [k, *[v.get(c, 0) for c in cols], v.get("kept", 0) / v["candidates"] if v.get("candidates") else None]
        for k, v in table.items()
    ]
    return _table(
        [key, "tasks", "valid", "with a kept solution", "candidates", "kept", "teacher pass rate"], rows
    )


def missing_sections(text: str) -> list[str]:
    """The REQUIRED_SECTIONS a card's text lacks."""
    heads = {line.strip() for line in text.splitlines() if line.startswith("#")}
    return [s for s in REQUIRED_SECTIONS if s not in heads]


def stats_sections(stats: dict) -> list[str]:
    """The statistics of a build, as markdown sections (the card's, and OUT/stats.md for docs/)."""
    sol = stats.get("solutions", {})
    suite = stats.get("suite", {})
    later = suite.get("solutions_version", suite.get("version"))
    later = f"; the solutions against version `{later}`" if later != suite.get("version") else ""
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
                ["builder runs (a stopped build continues)", stats.get("time", {}).get("runs")],
                ["tasks processed per minute", _per_minute(sol.get("tasks_processed"), stats)],
            ],
        )
        + "\n"
    )
    invalid = sol.get("invalid_reasons") or {}
    if invalid:
        out.append(
            "Tasks the suite validator rejected, by the check that failed first: "
            + ", ".join(f"{k} {v}" for k, v in sorted(invalid.items(), key=lambda kv: (-kv[1], kv[0])))
            + ".\n"
        )
    stages = stats.get("time", {}).get("stages_s") or {}
    if stages:
        order = {k: i for i, k in enumerate(STAGES)}
        out.append(
            "Time per stage in the last run (s): "
            + ", ".join(
                f"{k} {v:g}" for k, v in sorted(stages.items(), key=lambda kv: order.get(kv[0], len(order)))
            )
            + ".\n"
        )
    if stats.get("budget", {}).get("stopped_early"):
        out.append(f"The build stopped scheduling new tasks early: {stop_reason(stats)}.\n")
    out.append("### Build outcome per level\n\n" + _counts_table(sol.get("by_level", {}), "level") + "\n")
    out.append("### Build outcome per family\n\n" + _counts_table(sol.get("by_family", {}), "family") + "\n")
    out.append("### Build outcome per dtype\n\n" + _counts_table(sol.get("by_dtype", {}), "dtype") + "\n")
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
            f"{speed['faster_than_eager']:.0%} faster than eager and {speed['faster_1_1x']:.0%} faster than 1.1x, "
            "each by more than its measured timing spread (benchmark.metrics.is_faster).\n\n"
            + _table(["speedup", "solutions"], [[k, v] for k, v in speed.get("histogram", {}).items()])
            + "\n"
        )
    else:
        out.append("No solution was timed in this build (correctness-only verification).\n")
    out.append("## Decontamination audit\n")
    out.append(
        "Every synthesized task and every kept solution was compared with the SOLBench evaluation suite "
        f"(version `{suite.get('version', '?')}`, {audit_t.get('suite_tasks', '?')} tasks{later}). "
        "Programs are normalized (names, formatting, comments, "
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


def stop_reason(stats: dict) -> str:
    """Why a build stopped scheduling new tasks, told from its figures: the tasks under way when it
    stopped still finished, so the count reached can exceed the target."""
    budget = stats.get("budget", {})
    target = budget.get("target_tasks")
    solved = stats.get("solutions", {}).get("tasks_with_solution") or 0
    if target and solved >= target:
        return (
            f"the target of {target} tasks with a kept solution was reached; the tasks already under way "
            f"were finished, and {budget.get('tasks_not_processed', 0)} screened tasks were not processed"
        )
    return (
        f"the time budget of {budget.get('minutes', 0):g} min was nearly spent; "
        f"{budget.get('tasks_not_processed', 0)} screened tasks were not processed"
    )


def _per_minute(n, stats: dict) -> float | None:
    seconds = stats.get("time", {}).get("total_s")
    return round(60 * n / seconds, 1) if n and seconds else None


def verifier_table(stats: dict) -> str:
    """The verifier's settings the build ran with (its config section, and the timing stage's)."""
    config = stats.get("config", {})
    v, timing = config.get("verify", {}), config.get("timing", {})
    return _table(
        ["setting", "value"],
        [
            ["device", stats.get("device")],
            ["strict rules (anti-cheat flags fail a candidate)", v.get("strict")],
            ["correctness trials (fresh seeds) per candidate", v.get("trials")],
            ["timed every candidate", v.get("measure")],
            ["timeout per candidate (s)", v.get("timeout_s")],
            [
                "solutions re-verified with timing (random subset)",
                stats.get("solutions", {}).get("speedup", {}).get("timed", 0),
            ],
            ["timing budget per model and sample (s)", timing.get("max_seconds")],
            ["timing baseline", timing.get("baseline")],
        ],
    )


def sources_table(stats: dict, license: str) -> str:
    """Every source of tasks with its licence: the builder's own synthesis, and each imported folder."""
    tasks = stats.get("tasks", {})
    rows = [
        [
            "synthesized by datasets_builder",
            tasks.get("synthesized"),
            license,
            "this repository's build",
            "",
            "",
        ]
    ]
    for s in stats.get("sources", []):
        file = (
            f"[{Path(s['license_file']).name}](licenses/{Path(s['license_file']).name})"
            if s.get("license_file")
            else ""
        )
        review = f" (review: {s['review']})" if s.get("review") else ""
        rows.append(
            [
                f"`{s['name']}`",
                s.get("tasks"),
                f"{s.get('license') or 'unlisted'}{review}",
                s["url"],
                f"`{s['revision']}`",
                file,
            ]
        )
    return _table(["source", "tasks (before screening)", "licence", "from", "revision", "licence file"], rows)


def limitations(stats: dict) -> list[str]:
    """What a user of this build should know it does not establish."""
    config = stats.get("config", {})
    v = config.get("verify", {})
    sol = stats.get("solutions", {})
    out = []
    if not v.get("strict", True):
        out.append(
            "**The verifier ran without strict rules**: solutions may compute with PyTorch itself. This build "
            "exercises the machinery; do not train on it."
        )
    if stats.get("device") == "cpu":
        out.append(
            "Built on a CPU: tasks were validated in fast mode (alternate shapes, no time or memory bounds) "
            "and no solution is a GPU kernel."
        )
    out.append(
        f"Passing the verifier is evidence, not proof: each solution was checked on {v.get('trials', '?')} "
        "fresh seeds, the alternate input shapes and large-magnitude inputs, not on every input."
    )
    timed = sol.get("speedup", {}).get("timed", 0)
    out.append(
        f"Speed was measured for {timed} randomly chosen solutions on {stats.get('device')}; the `speedup` "
        "column is null elsewhere, and speedups on other GPUs differ."
    )
    teacher = stats.get("teacher", {}).get("kind", "")
    if teacher.startswith("inductor"):
        out.append(
            "Every solution is TorchInductor's code: its style (fused regions, generated names, Inductor's "
            "launch configurations) is one compiler's, not a variety of hand-written kernels."
        )
    out.append(
        "Decontamination is lexical (token n-grams of normalized programs, two views): a task that computes "
        "what a suite task computes, written very differently, can pass it."
    )
    out.append(
        "Tasks come from a fixed catalogue of operators, compositions and blocks (and any imported folders); "
        "they are not drawn from real models' code."
    )
    if stats.get("budget", {}).get("stopped_early"):
        out.append(f"The build stopped early: {stop_reason(stats)}.")
    if not stats.get("splits", {}).get("repair"):
        out.append("This build has no repair rows.")
    return out


# The loading example's variable and comment for each configuration.
_LOADING = {
    "sft": ("sft", "chat messages for SFT"),
    "rft": ("pool", "the verified pool, clustered"),
    "repair": ("repair", "failed attempt, feedback, fix"),
    "rl_prompts": ("prompts", "task prompts for RL"),
    "tasks": ("tasks", "the task programs"),
}


def loading_example(folder: str, configs: Sequence[str]) -> str:
    """Python that loads each configuration of the folder with `datasets`, offline: the card's example
    (the tests run it against the folders the builder writes)."""
    calls = [
        (
            f'{_LOADING.get(c, (c, ""))[0]} = load_dataset(folder, "{c}", split="train")',
            _LOADING.get(c, ("", c))[1],
        )
        for c in configs
    ]
    width = max((len(call) for call, _ in calls), default=0)
    return "\n".join(
        [
            "from datasets import load_dataset",
            "",
            f"folder = {json.dumps(folder)}  # this folder: a build's OUT/dataset, or a clone of the Hub repository",
            *(f"{call:<{width}}  # {comment}" for call, comment in calls),
        ]
    )


def pool_note(stats: dict, counts: dict[str, int]) -> str:
    """What `rft` holds beside `sft` in this build; when every verified solution was drawn, the two are
    the same rows, and the card says so and why."""
    sft, rft = counts.get("sft", 0), counts.get("rft", 0)
    m = stats.get("rft", {}).get("m", "?")
    if not rft:
        return "This build has no verified solution, so neither `sft` nor `rft` has rows."
    if sft != rft:
        return f"`sft` is the {sft} rows of `rft` ({rft}) whose `selected` is true."
    teacher = stats.get("teacher", {})
    why = ""
    if str(teacher.get("kind", "")).startswith("inductor"):
        why = (
            f" (TorchInductor writes one candidate per task and variant; this build ran the variants: "
            f"{teacher.get('variants', '?')})"
        )
    if rft == stats.get("solutions", {}).get("tasks_with_solution"):
        return (
            f"**In this build `sft` and `rft` are the same {rft} rows, one verified solution per task**: the "
            f"teacher gave each task one solution that passed{why}, so every pool has one member, and it is "
            f"drawn. The two differ when a teacher gives a task several verified solutions (a model teacher "
            f"sampling several answers, or several Inductor variants): `sft` then holds up to {m} per task, "
            "drawn from different clusters, and `rft` all of them."
        )
    return (
        f"**In this build `sft` and `rft` are the same {rft} rows**: no task's pool had more than {m} verified "
        "solutions, so every one was drawn."
    )


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
    task_statistics: Sequence[str] = (),
    folder: str = "path/to/this/folder",
) -> DatasetCard:
    """The training data's card; `counts` are the rows of each configuration, empty ones included,
    `task_statistics` the suite page's tables of its tasks (benchmark.suite.docs.statistics), and
    `folder` where the loading example finds the folder."""
    data = card_data(name, license, sum(counts.values()), TRAIN_TAGS, configs, infos)
    return DatasetCard.from_template(
        data,
        template_path=str(TEMPLATES / "train_card.md.j2"),
        repo_id=repo,
        loading=loading_example(folder, list(configs)),
        pool_note=pool_note(stats, counts),
        counts=counts,
        stats=stats,
        rft_m=stats.get("rft", {}).get("m", "?"),
        statistics="\n".join(stats_sections(stats)),
        verifier=verifier_table(stats),
        task_tables="\n".join("#" + line if line.startswith("#") else line for line in task_statistics),
        sources=sources_table(stats, license),
        limitations=limitations(stats),
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
    task_statistics: Sequence[str] = (),
) -> DatasetCard:
    """The suite's card; `task_statistics` are docs/suite.md's tables (benchmark.suite.docs.statistics)."""
    data = card_data(name, license, n_tasks, SUITE_TAGS, configs, infos)
    return DatasetCard.from_template(
        data,
        template_path=str(TEMPLATES / "suite_card.md.j2"),
        repo_id=repo,
        n_tasks=n_tasks,
        version=version,
        splits=[c["split"] for c in configs.get("default", {}).get("data_files", [])],
        task_tables="\n".join(task_statistics),
    )
