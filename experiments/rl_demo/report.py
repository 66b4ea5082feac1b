"""rl_demo.md and learning_curves.svg: before and after RL per arm, each arm's paired differences with
what they allow to claim, where the SFT model came from, and the learning curves; for --sft-arms, each
run, each arm over its training seeds and its difference from plain SFT."""

from __future__ import annotations

import math
from pathlib import Path

from experiments.rl_demo.merge import sft_entry, shared_sft_model
from leaderboard import chart


def fmt(v, pct=False) -> str:
    """A table cell: a share as a whole percentage (pct), else two decimals; "-" for None."""
    if v is None:
        return "-"
    return f"{100 * v:.0f}%" if pct else f"{v:.2f}"


def fmt_difference(d: dict | None, pct: bool) -> str:
    """A difference cell: value [lo, hi] (percentage points where pct) and what the interval shows."""
    if not d or d["value"] is None:
        return "-"
    scale, digits, unit = (100, 0, " pp") if pct else (1, 2, "")
    value = f"{scale * d['value']:+.{digits}f}{unit}"
    if d["interval"] is None:
        return f"{value} (no interval)"
    lo, hi = (f"{scale * x:+.{digits}f}" for x in d["interval"])
    mark = "improved" if d["improved"] else "worse" if d["worse"] else "no change shown"
    return f"{value} [{lo}, {hi}] {mark}"


def difference_row(label: str, test: dict) -> str:
    """A row of a differences table: test pass, speedup and fast_1, each with its interval."""
    return (
        f"| {label} | {fmt_difference(test.get('pass_rate'), True)} "
        f"| {fmt_difference(test.get('speedup_geomean'), False)} | {fmt_difference(test.get('fast_1'), True)} |"
    )


def why_not_run(arm: dict) -> str:
    """Why an arm or SFT run has no results: its error, or that it was skipped and why."""
    return arm.get("error") or (f"skipped ({arm['skipped']})" if "skipped" in arm else "not run")


def arm_label(name: str, arm: dict) -> str:
    """An arm's name, with the call it ran in where a merged report holds several."""
    return f"{name} (call {arm['call']})" if "call" in arm else name


CLAIM_RULE = "A change (improved, worse) is claimed only where the 95% interval excludes zero; "


TASKS_ONLY = "over tasks only: training variance not included"
FAST_1_RULE = (
    "fast_1 is the benchmark's fast_p at p = 1 (benchmark.metrics): passing and faster than eager by more "
    "than the timing's noise margin, for these samples (no spread recorded) above 1.1x. Files written "
    'before it (no "metrics" rules in rl_demo.json) counted above 1.0x, and a merged report shows their '
    "recorded figures as they are."
)


def seeds_cell(n_arm: int, n_plain: int) -> str:
    """The seeds (arm / plain) behind a difference, and what its interval leaves out."""
    if n_arm == n_plain == 1:
        return f"1 / 1 ({TASKS_ONLY})"
    note = " (one seed on a side: its training variance not included)" if 1 in (n_arm, n_plain) else ""
    return f"{n_arm} / {n_plain}{note}"


def sft_tables(results: dict) -> str:
    """rl_demo.md of --sft-arms: each run's loss and test metrics, each arm's over its seeds (with
    the range of pass, the training variance), then its difference from plain over seeds and tasks."""
    arms = results["sft_arms"]
    lines = [
        "| arm | training seed | SFT steps | final loss | test pass | test speedup | test fast_1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, arm in arms.items():
        for seed, run in arm["runs"].items():
            label = f"{seed} (call {run['call']})" if "call" in run else seed
            if "eval" not in run:
                lines.append(f"| {name} | {label} | {why_not_run(run)} | | | | |")
                continue
            sft, test = run["sft"], run["eval"]["test"]
            loss = sft["loss_last"] if sft["nll_last"] is None else sft["nll_last"]
            lines.append(
                f"| {name} | {label} | {sft['steps']}{' *' if sft['stopped_by_deadline'] else ''} | {loss:.4f} "
                f"| {fmt(test['pass_rate'], True)} | {fmt(test['speedup_geomean'])} | {fmt(test['fast_1'], True)} |"
            )
    lines += [
        "",
        "Final loss: the unweighted NLL of the last logging window (a CuSeT arm's logged loss is weighted).",
    ]
    if any(r.get("sft", {}).get("stopped_by_deadline") for a in arms.values() for r in a["runs"].values()):
        lines.append("(*) stopped at the time budget before its last step.")
    lines += [
        "",
        "Over training seeds: pass and fast_1 the mean of the seeds', speedup the geometric mean over "
        "every timed pass; min-max: the spread of test pass between the arm's training runs.",
        "",
        "| arm | seeds | test pass | test pass min-max | test speedup | test fast_1 |",
        "|---|---|---|---|---|---|",
    ]
    for name, arm in arms.items():
        if "over_seeds" in arm:
            o = arm["over_seeds"]
            lo, hi = o["pass_rate_range"]
            lines.append(
                f"| {name} | {len(o['seeds'])} | {fmt(o['pass_rate'], True)} | {fmt(lo, True)}-{fmt(hi, True)} "
                f"| {fmt(o['speedup_geomean'])} | {fmt(o['fast_1'], True)} |"
            )
    n_tasks = (results.get("data") or {}).get("test", "?")
    lines += [
        "",
        f"arm - plain SFT (two-level paired bootstrap 95% over training seeds and {n_tasks} test tasks)",
        "",
        "| arm | seeds (arm / plain) | test pass | test speedup | test fast_1 |",
        "|---|---|---|---|---|",
    ]
    n_plain = len(arms.get("plain", {}).get("over_seeds", {}).get("seeds", []))
    for name, arm in arms.items():
        if "differences" in arm:
            seeds = seeds_cell(len(arm["over_seeds"]["seeds"]), n_plain)
            lines.append(difference_row(f"{name} | {seeds}", arm["differences"]["test"]))
    lines += [
        "",
        "Each resample draws each arm's training seeds with replacement, independently for the two arms, "
        "then the test tasks with replacement, the same tasks for both arms (paired over tasks), and takes "
        "the difference of the arms' metrics over the drawn seeds and tasks. With one seed an arm draws "
        f"nothing; with one on both sides the interval is {TASKS_ONLY}, though one GPU training run of "
        "a recipe can score far from another (docs/sft.md).",
        CLAIM_RULE + '"no change shown" means the interval contains zero, not that the arms are equal. '
        "Pass and fast_1 in percentage points, speedup as the difference of geometric means.",
        FAST_1_RULE,
    ]
    if "calls" in results:
        lines.append(
            "Merged from calls with the same --seed and task settings: runs pooled by (arm, training seed)."
        )
        lines += [f"- call {i}: {c['file']}" for i, c in enumerate(results["calls"], 1)]
    return "\n".join(lines) + "\n"


def sft_origin(sft: dict | None) -> str:
    """Where a call's SFT model came from (trained or a cache entry) and what its gate decided."""
    if not sft or "gate" not in sft:
        return "trained in the call (no gate or cache recorded)"
    cache = sft.get("cache")
    if cache is None:
        where = "trained in the call, not cached (no --sft-cache)"
    elif cache["reused"]:
        where = f"cache entry {cache['key']} (created {cache['created']}), reused"
        if cache.get("evaluated_again"):
            where += f", evaluated again ({cache['evaluated_again']})"
    elif cache["created"]:
        where = f"trained in the call, stored as cache entry {cache['key']} (created {cache['created']})"
    else:
        where = f"trained in the call, not cached ({cache['not_written']})"
    gate = (
        f"gate {sft['gate']} (minimum {fmt(sft['min_pass'], True)} of the RL split): attempt "
        f"{sft['attempt']} of {sft['attempts_made']} kept, training seed {sft['seed']}, RL pass "
        f"{fmt(sft['rl_pass_rate'], True)}"
    )
    weights = f"; weights {sft['weights']}" if sft.get("weights") else ""
    return f"{where}; {gate}" + (f"; {sft['stopped']}" if sft["gate"] == "failed" else "") + weights


def tables(results: dict) -> str:
    """rl_demo.md: before and after RL per arm, each arm's paired differences, the learning curves; a
    merged report (`merge`) has one before-RL row per call; a --sft-arms run, its SFT tables alone."""
    if "sft_arms" in results:
        return sft_tables(results)
    arms = results.get("arms", {})
    merged = "calls" in results
    befores = [c.get("before") for c in results["calls"]] if merged else [results.get("before")]
    lines = [
        "| arm | RL steps (generations) | RL tasks pass | test pass | test speedup | test fast_1 | masked (MirrorPop) | BDR replays |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, before in enumerate(befores, 1):
        if before:
            lines.append(
                f"| SFT (before RL{f', call {i}' if merged else ''}) | 0 | {fmt(before['rl']['pass_rate'], True)} "
                f"| {fmt(before['test']['pass_rate'], True)} | {fmt(before['test']['speedup_geomean'])} "
                f"| {fmt(before['test']['fast_1'], True)} | - | - |"
            )
    for name, arm in arms.items():
        if "after" not in arm:
            lines.append(f"| {arm_label(name, arm)} | {why_not_run(arm)} | | | | | | |")
            continue
        masked = [c["mirrorpop/masked_fraction"] for c in arm["curve"] if "mirrorpop/masked_fraction" in c]
        lines.append(
            f"| {arm_label(name, arm)} | {arm['steps']} ({arm['generations']}){' *' if arm['stopped_by_deadline'] else ''} "
            f"| {fmt(arm['after']['rl']['pass_rate'], True)} | {fmt(arm['after']['test']['pass_rate'], True)} "
            f"| {fmt(arm['after']['test']['speedup_geomean'])} | {fmt(arm['after']['test']['fast_1'], True)} "
            f"| {fmt(sum(masked) / len(masked), True) if masked else '-'} | {arm['bdr']['replayed']} |"
        )
    stopped = any(a.get("stopped_by_deadline") for a in arms.values())
    note = "\n(*) stopped at the time budget before its last step.\n" if stopped else "\n"
    if not merged:
        note += f"\nSFT model: {sft_origin(results.get('sft'))}.\n"
    else:
        calls = results["calls"]
        note += "\nSFT model of each call:\n\n" + "".join(
            f"- call {i}: {sft_origin(c.get('sft'))}\n" for i, c in enumerate(calls, 1)
        )
        shared = shared_sft_model(calls)
        if shared == "one call":
            note += "\nOne call: every arm started from its SFT model.\n"
        elif shared == "entry":
            key, created = sft_entry(calls[0]["sft"])
            note += (
                f"\nAll calls started from one SFT model (cache entry {key}, created {created}): "
                "their arms compare.\n"
            )
        elif shared == "weights":
            note += (
                f"\nAll calls started from one SFT model (weights {calls[0]['sft']['weights']} in every "
                "call, trained alike): their arms compare.\n"
            )
        else:
            note += (
                "\nNot one SFT model: the calls trained models of different weights or used different "
                "cache entries, so "
                "each arm compares only with its own call's before-RL row, and arms of different calls do "
                "not compare (one SFT recipe passed 94%, 19% and 9% of the test split in three H200 runs).\n"
            )
    diff_lines = [
        "",
        f"after - before RL (paired bootstrap 95% over {(results.get('data') or {}).get('test', '?')} tasks)",
        "",
        "| arm | test pass | test speedup | test fast_1 |",
        "|---|---|---|---|",
    ]
    for name, arm in arms.items():
        if "after" in arm:
            diff_lines.append(
                difference_row(arm_label(name, arm), arm.get("differences", {}).get("test", {}))
            )
    diff_lines += [
        "",
        CLAIM_RULE + '"no change shown" means the interval contains zero, not that RL changed nothing. '
        "Pass and fast_1 in percentage points, speedup as the difference of geometric means.",
        FAST_1_RULE,
    ]
    if merged:
        diff_lines.append(
            "Merged from separate calls with the same seed: each arm's difference is against the "
            "before-RL evaluation of its own call."
        )
        diff_lines += [f"- call {i}: {c['file']}" for i, c in enumerate(results["calls"], 1)]
    curve_lines = [
        "",
        "| arm | generation | reward | pass rate (turn 1) | pass rate (any turn) | zero-variance groups |",
        "|---|---|---|---|---|---|",
    ]
    for name, arm in arms.items():
        gens = [c for c in arm.get("curve", []) if "kernel/pass_rate" in c]
        for i, c in enumerate(gens, 1):
            curve_lines.append(
                f"| {arm_label(name, arm)} | {i} | {fmt(c.get('reward'))} | {fmt(c['kernel/pass_rate'], True)} "
                f"| {fmt(c.get('primeecho/pass_rate_any_turn'), True)} | {fmt(c.get('frac_reward_zero_std'), True)} |"
            )
    return "\n".join(lines) + note + "\n".join(diff_lines) + "\n" + "\n".join(curve_lines) + "\n"


def svg_curves(results: dict, key: str = "kernel/pass_rate", width: int = 640, height: int = 320) -> str:
    """Learning curves (one line per arm) as an SVG file: the leaderboard's line chart."""
    series = {
        name: [c[key] for c in arm.get("curve", []) if key in c]
        for name, arm in results.get("arms", {}).items()
    }
    longest = max((len(v) for v in series.values()), default=1)
    x_max = max(1, longest - 1)
    curves = [(name, name, list(enumerate(values))) for name, values in series.items() if values]
    return chart.svg(
        chart.line_chart(
            curves,
            x_max,
            max(1, math.ceil(x_max / 10)),
            "generation",
            f"{key} (0 to 1)",
            aria_label="learning curves",
            width=width,
            height=height,
        )
    )


def write_report(out: Path, results: dict) -> str:
    """rl_demo.md and learning_curves.svg in out; returns the tables."""
    report = tables(results)
    (out / "rl_demo.md").write_text(report)
    (out / "learning_curves.svg").write_text(svg_curves(results))
    return report
