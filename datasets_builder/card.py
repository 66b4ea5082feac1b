"""Dataset cards: the README.md of each published folder, with the YAML metadata the Hub reads
(license, tags, the configs that name each split's files) and the statistics of the build that
made it: tasks per level and family, the teacher, pass rates, skip reasons, the speedup
distribution of the timed solutions, the decontamination audit, and the time taken."""

from __future__ import annotations

import yaml

from datasets_builder.schema import SPLITS
from datasets_builder.schema import __doc__ as SCHEMA_DOC

# The data files of a folder are named <split>-<fingerprint>-00000-of-00001.parquet, and the card's
# configs name them by that fingerprint: datasets caches a local folder under a key made from its
# card, so two builds written to folders of the same name must not share one.


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "n>1M"


def front_matter(pretty_name: str, license: str, configs: list[dict], rows: int, tags: list[str],
                 infos: list[dict] | None = None) -> str:
    meta = {
        "pretty_name": pretty_name,
        "license": license,
        "language": ["en"],
        "task_categories": ["text-generation"],
        "tags": tags,
        "size_categories": [_size_category(rows)],
        "configs": configs,
    }
    if infos:
        meta["dataset_info"] = infos
    return "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n"


def _table(head: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join("" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v) for v in r) + " |"
            for r in rows]
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
    out.append("## Build\n\n" + _table(["", "value"], [
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
    ]) + "\n")
    if stats.get("budget", {}).get("stopped_early"):
        out.append(f"The build stopped scheduling new tasks early: {stats['budget'].get('reason')}.\n")
    out.append("### Tasks per level\n\n" + _counts_table(sol.get("by_level", {}), "level") + "\n")
    out.append("### Tasks per family\n\n" + _counts_table(sol.get("by_family", {}), "family") + "\n")
    out.append("### Tasks per dtype\n\n" + _counts_table(sol.get("by_dtype", {}), "dtype") + "\n")
    out.append("## Teacher\n\n" + "\n".join(f"- {k}: {v}" for k, v in teacher.items()) + "\n")
    out.append("Verdicts of all candidates: " + ", ".join(
        f"{k} {v}" for k, v in sorted(sol.get("candidates_by_status", {}).items())) + ".\n")
    skips = sol.get("teacher_skips", {})
    if skips:
        out.append("Tasks the teacher could not answer, by reason: " + ", ".join(
            f"{k} {v}" for k, v in sorted(skips.items(), key=lambda kv: -kv[1])) + ". "
            "`extern_kernel`: the graph still calls a library kernel (cuBLAS/cuDNN) that the strict anti-cheat "
            "refuses; `fallback_op`: an ATen op Inductor does not lower to Triton; others are named after the "
            "step that failed.\n")
    out.append("## Speedup of the timed solutions\n")
    if speed.get("timed"):
        out.append(
            f"A random subset of {speed['timed']} kept solutions was re-verified with timing (eager PyTorch "
            "baseline, the benchmark's timing protocol). "
            f"Median speedup {speed['median']:.3g}x, geometric mean {speed['geomean']:.3g}x, "
            f"10th-90th percentile {speed['p10']:.3g}-{speed['p90']:.3g}x; "
            f"{speed['faster_than_eager']:.0%} faster than eager, {speed['faster_1_1x']:.0%} faster by more than 1.1x.\n\n"
            + _table(["speedup", "solutions"], [[k, v] for k, v in speed.get("histogram", {}).items()]) + "\n")
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
        + _table(["compared", "candidates", "removed", "by whole file", "by Model class"], [
            ["tasks", audit_t.get("candidates"), audit_t.get("removed"), audit_t.get("removed_program"),
             audit_t.get("removed_model")],
            ["solutions", audit_s.get("candidates"), audit_s.get("removed"), audit_s.get("removed_program"),
             audit_s.get("removed_model")],
        ]) + "\n")
    examples = audit_t.get("removed_examples") or []
    if examples:
        out.append("Closest removed tasks:\n\n" + _table(
            ["task", "suite task", "file similarity", "Model similarity"],
            [[e["id"], e["suite_task"], e["program_similarity"], e["model_similarity"]] for e in examples]) + "\n")
    return out


def stats_markdown(stats: dict) -> str:
    return "\n".join(["# Build statistics\n", *stats_sections(stats)])


def train_card(stats: dict, split_rows: dict[str, int], name: str, license: str, repo: str | None,
               configs: list[dict], infos: list[dict] | None = None) -> str:
    total = sum(split_rows.values())
    repo_id = repo or "ORG/NAME"
    parts = [front_matter(name, license, configs, total, ["code", "gpu-kernels", "triton", "pytorch", "synthetic"],
                          infos)]
    parts.append(f"# {name}\n")
    parts.append(
        "Training data for language models that write GPU kernels: synthesized PyTorch tasks, each with "
        "solutions verified by the SOLBench strict verifier (correct on fresh seeds, alternate shapes and "
        "large-magnitude inputs; no PyTorch compute, library calls, side streams or caching), "
        "decontaminated against the SOLBench evaluation suite.\n"
    )
    parts.append("## Loading\n\n```python\nfrom datasets import load_dataset\n\n"
                 f"sft = load_dataset(\"{repo_id}\", split=\"sft\")            # chat messages for SFT\n"
                 f"pool = load_dataset(\"{repo_id}\", split=\"rft\")           # the verified pool, clustered\n"
                 f"repair = load_dataset(\"{repo_id}\", split=\"repair\")      # failed attempt, feedback, fix\n"
                 f"prompts = load_dataset(\"{repo_id}\", split=\"rl_prompts\")  # task prompts for RL\n"
                 f"tasks = load_dataset(\"{repo_id}\", \"tasks\", split=\"train\")  # the task programs\n```\n")
    parts.append("## Splits\n\n" + _table(["split", "rows"], [[s, split_rows.get(s, 0)] for s in (*SPLITS, "tasks")])
                 + "\n\nA split without rows in this build has no data file and is not listed in the configuration.\n")
    parts.append(
        "- `sft`: one chat sample per drawn target: the benchmark's prompt with the task's tensor metadata, "
        "and a verified solution. Targets are drawn per task at random from clusters of the verified pool "
        f"(diversity-preserving RFT), up to {stats.get('rft', {}).get('m', '?')} per task.\n"
        "- `rft`: the whole verified pool, with each solution's cluster, the pool size and whether it was drawn.\n"
        "- `repair`: multi-turn samples: a failed attempt, the verifier's feedback, a verified fix "
        "(`source` says whether the failed attempt was a model's or a mutation of a verified solution).\n"
        "- `rl_prompts`: one prompt per valid task, solved or not, with the teacher's pass rate on it.\n"
        "- `tasks` (configuration): the task programs in the KernelBench-compatible suite format.\n"
    )
    parts.extend(stats_sections(stats))
    parts.append("## Schema\n\n```\n" + (SCHEMA_DOC or "").split("\n\n", 1)[-1].strip() + "\n```\n")
    parts.append(
        "## License and provenance\n\n"
        f"The task programs and this card are released under {license}. Solutions written by TorchInductor "
        "(teacher `inductor`) are generated code from PyTorch (BSD-3-Clause), including copies of its Triton "
        "helper functions; solutions from a language model teacher are subject to that model's terms.\n"
    )
    return "\n".join(parts)


def suite_card(n_tasks: int, version: str, license: str, configs: list[dict], infos: list[dict] | None = None,
               name: str = "SOLBench suite") -> str:
    head = front_matter(name, license, configs, n_tasks, ["code", "gpu-kernels", "benchmark", "pytorch"], infos)
    body = (
        f"# {name}\n\n"
        f"The SOLBench evaluation suite (version {version}): {n_tasks} PyTorch reference programs in the "
        "KernelBench format, one split per level (`level_1`, ...), with KernelBench's columns (code, level, "
        "name, problem_id) and SOLBench's (task id, tags, dtype, tolerances, FLOPs, bytes, eager and "
        "speed-of-light times per GPU).\n\n"
        "```python\nfrom datasets import load_dataset\n\nlevel1 = load_dataset(\"ORG/NAME\", split=\"level_1\")\n```\n\n"
        "Run it with `python -m benchmark.run --suite hf:ORG/NAME ...`. Do not train on it: the SOLBench training "
        "data is decontaminated against exactly these programs.\n"
    )
    return head + "\n" + body
