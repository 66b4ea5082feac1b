"""--merge: one report of several calls' rl_demo.json, without a GPU. RL calls with the same seed and
RL settings keep each arm against its own call's before-RL evaluation, and say whether all started
from one SFT model (only then do arms of different calls compare); --sft-arms calls pool their runs
by (arm, training seed) and compare the arms over all of them."""

from __future__ import annotations

import json
from pathlib import Path

from experiments.rl_demo.differences import compare_sft_arms
from experiments.rl_demo.state import RL_MERGE_SETTINGS, SETTINGS_BEFORE, SFT_POOLED_SETTINGS


def sft_entry(sft: dict | None) -> tuple[str, str] | None:
    """A call's SFT model as the cache entry it is (key, creation time); None where the call trained
    a model of its own that no other call can share (no --sft-cache, or not written)."""
    cache = (sft or {}).get("cache") or {}
    return (cache["key"], cache["created"]) if cache.get("created") else None


def shared_sft_model(calls: list[dict]) -> str | None:
    """How every call's arms started from one SFT model: "one call", "entry" (all from one cache
    entry) or "weights" (models of one `weights_digest`: reproducible training on fresh machines);
    None where they did not."""
    if len(calls) == 1:
        return "one call"
    entries = [sft_entry(c.get("sft")) for c in calls]
    weights = [(c.get("sft") or {}).get("weights") for c in calls]
    for how, values in (("entry", entries), ("weights", weights)):
        if values[0] is not None and all(v == values[0] for v in values):
            return how
    return None


def one_sft_model(calls: list[dict]) -> bool:
    """Whether every call's arms started from one SFT model (`shared_sft_model`)."""
    return shared_sft_model(calls) is not None


def setting(results: dict, key: str):
    """A call's setting as its rl_demo.json records it, or what it was before the setting existed."""
    return results["settings"].get(key, SETTINGS_BEFORE.get(key))


def gpu_of(results: dict) -> str | None:
    """The GPU a call ran on (None in files from before it was recorded, and on the CPU)."""
    return results.get("environment", {}).get("gpu")


def merge(files: list[Path]) -> dict:
    """One report of the arms of several calls with the same seed and tasks. An arm keeps the
    differences against its own call's "before" (its "call" says which); an arm that ran in one call
    and was skipped or failed in another counts where it ran. Each call's "sft" says where its SFT
    model came from, and "one_sft_model" whether all calls used one (the same --sft-cache entry):
    only then do arms of different calls compare. --sft-arms calls pool their runs instead
    (`merge_sft_arms`)."""
    loaded = [json.loads(Path(f).read_text()) for f in files]
    first = loaded[0]
    sft = ["sft_arms" in r for r in loaded]
    if any(sft) and not all(sft):
        kinds = ", ".join(f"{f} ({'--sft-arms' if s else 'RL'})" for f, s in zip(files, sft, strict=True))
        raise SystemExit(f"--merge takes calls of one kind; these mix --sft-arms and RL calls: {kinds}")
    for f, r in zip(files, loaded, strict=True):
        if r["settings"]["seed"] != first["settings"]["seed"] or r.get("data") != first.get("data"):
            raise SystemExit(f"{f} ran another seed or task split than {files[0]}: not comparable")
        if gpu_of(r) != gpu_of(first):  # speedups, hence rewards and verdicts of speed, are the GPU's
            raise SystemExit(f"{f} ran on {gpu_of(r)}, {files[0]} on {gpu_of(first)}: not comparable")
    if all(sft):
        return merge_sft_arms(files, loaded)
    for f, r in zip(files, loaded, strict=True):
        changed = [k for k in RL_MERGE_SETTINGS if setting(r, k) != setting(first, k)]
        if changed:
            raise SystemExit(
                f"{f} ran RL with another {', '.join(changed)} than {files[0]}: its arms do not compare"
            )
    arms: dict[str, dict] = {}
    for i, r in enumerate(loaded, 1):
        for name, arm in r.get("arms", {}).items():
            if "after" in arms.get(name, {}):
                if "after" in arm:
                    raise SystemExit(f"arm {name} ran in two of the files; merge one run of it")
                continue
            arms[name] = {**arm, "call": i}
    calls = [
        {"file": str(f), "before": r.get("before"), "sft": r.get("sft")}
        for f, r in zip(files, loaded, strict=True)
    ]
    return {
        "settings": first["settings"],
        "data": first.get("data"),
        "calls": calls,
        "one_sft_model": one_sft_model(calls),
        "arms": arms,
    }


def sft_runs(results: dict) -> dict[str, dict[str, dict]]:
    """Each SFT arm's runs by training seed; a file from before --sft-seeds (one run per arm, at
    --seed) reads as a run at --seed."""
    seed = str(results["settings"]["seed"])
    return {
        name: arm["runs"] if "runs" in arm else {seed: {k: v for k, v in arm.items() if k != "differences"}}
        for name, arm in results["sft_arms"].items()
    }


def merge_sft_arms(files: list[Path], loaded: list[dict]) -> dict:
    """The --sft-arms runs of several calls pooled by (arm, training seed), each run marked with its
    call, and the arms compared over all of them (`compare_sft_arms`). Calls must share every
    SFT_POOLED_SETTINGS value; a run evaluated in two calls is refused, while one skipped or failed
    in a call counts where it ran."""
    first = loaded[0]
    for f, r in zip(files, loaded, strict=True):
        for key in SFT_POOLED_SETTINGS:
            mine, theirs = setting(r, key), setting(first, key)
            if mine != theirs:
                raise SystemExit(
                    f"{f} ran with {key} {mine!r}, {files[0]} with {theirs!r}: their SFT runs do not pool "
                    "(the calls need the same --seed and task, training and evaluation settings)"
                )
    arms: dict[str, dict] = {}
    for i, r in enumerate(loaded, 1):
        for name, runs in sft_runs(r).items():
            pooled = arms.setdefault(name, {"runs": {}})["runs"]
            for seed, run in runs.items():
                if "eval" in pooled.get(seed, {}):
                    if "eval" in run:
                        raise SystemExit(
                            f"SFT arm {name}, training seed {seed} ran in two of the files; merge one run of it"
                        )
                    continue
                pooled[seed] = {**run, "call": i}
    arms = dict(sorted(arms.items(), key=lambda kv: kv[0] != "plain"))
    for arm in arms.values():
        arm["runs"] = dict(sorted(arm["runs"].items(), key=lambda kv: int(kv[0])))
    compare_sft_arms(arms)
    seeds = sorted({int(seed) for arm in arms.values() for seed in arm["runs"]})
    return {
        "settings": {**first["settings"], "sft_arms": list(arms), "sft_seeds": seeds},
        "data": first.get("data"),
        "calls": [{"file": str(f)} for f in files],
        "sft_arms": arms,
    }
