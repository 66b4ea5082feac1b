"""Re-run some of a submission's passing kernels on this machine and record whether they hold up.

    python -m leaderboard.verify leaderboard/submissions/SLUG.json --sample 5 [--device cuda]

Draws N passing samples at random (seeded), evaluates each one's stored candidate source with the
benchmark's own checks against the same task file (checked by hash) under the run's baseline and
strictness, and appends a verification record to the submission file: each sample agrees when it
passes again and, on the same hardware, its speedup is not below the claimed one by more than the
tolerance. A submission is "verified" when every checked sample agrees. Timing is compared only
when the local GPU (or CPU) is the one the run used; on other hardware only correctness counts.
Exit status: 0 verified, 1 disagreements, 2 could not verify."""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from benchmark import metrics
from benchmark.environment import host_environment
from benchmark.evaluate.harness import EvalConfig, TaskError, evaluate
from benchmark.evaluate.timing import TimingConfig
from benchmark.flags import add_device, add_quiet
from benchmark.host import default_cache_dir, default_device
from benchmark.models import is_trusted
from benchmark.suite import load_suite
from benchmark.verdict import Status, Verdict
from leaderboard.submission import Submission, SubmissionFormatError, load_submission

log = logging.getLogger(__name__)


class VerifyError(RuntimeError):
    """The submission cannot be verified here (no code, wrong device, changed tasks)."""


@dataclass(frozen=True)
class VerifyConfig:
    sample: int = 5  # passing samples to re-run
    device: str | None = None  # default: cuda when available
    seed: int = 0  # which samples are drawn
    speedup_tolerance: float = 0.25  # observed may fall below claimed / (1 + tolerance) before it disagrees
    suite: str | None = None  # task folder (default: the built-in suite)
    timeout_s: float = EvalConfig.timeout_s
    trials: int = EvalConfig.trials  # correctness trials per sample, as in benchmark.run
    timing: TimingConfig = field(default_factory=TimingConfig)
    cache_dir: Path = field(default_factory=default_cache_dir)


def choose(sub: Submission, n: int, seed: int) -> list[Verdict]:
    """N passing samples (final turns) whose source the submission carries, drawn with a seed."""
    passing = sorted(
        (v for v in metrics.final_turns(sub.verdicts) if v.correct and v.code_hash in sub.code),
        key=lambda v: (v.task_id, v.sample),
    )
    if not passing:
        raise VerifyError(f"{sub.slug}: no passing sample with stored code to verify")
    return random.Random(seed).sample(passing, min(n, len(passing)))


def _same_hardware(sub: Submission, device: str, local_gpu: str | None) -> bool:
    if device == "cpu":
        return sub.device == "cpu"
    return bool(local_gpu) and local_gpu == (sub.run.get("environment") or {}).get("gpu")


def compare(
    claimed: Verdict, observed: Verdict, timing_comparable: bool, tolerance: float
) -> tuple[bool, str]:
    if observed.status is not Status.PASS:
        first = (observed.error or "").strip().splitlines()[:1]
        return False, f"{claimed.task_id}#{claimed.sample}: {observed.status.value} on re-run" + (
            f" ({first[0][:160]})" if first else ""
        )
    if not timing_comparable or claimed.speedup is None or observed.speedup is None:
        return True, "" if timing_comparable else "correct; timing not compared on different hardware"
    floor = claimed.speedup / (1 + tolerance)
    if observed.speedup < floor:
        return False, (
            f"{claimed.task_id}#{claimed.sample}: speedup {observed.speedup:.2f}x on re-run, "
            f"claimed {claimed.speedup:.2f}x (tolerance {tolerance:.0%})"
        )
    return True, ""


def verify(sub: Submission, config: VerifyConfig = VerifyConfig(), progress: bool = True) -> dict:
    """Re-run, append the record to `sub.verification` and return it (the caller saves the file)."""
    device = config.device or default_device()
    if (device == "cpu") != (sub.device == "cpu"):
        raise VerifyError(
            f"{sub.slug} was run on {sub.device}; verify it on a {sub.device} device, not {device}"
        )
    chosen = choose(sub, config.sample, config.seed)
    suite = {t.task_id: t for t in load_suite(config.suite).tasks}
    for v in chosen:
        task = suite.get(v.task_id)
        if task is None:
            raise VerifyError(
                f"task {v.task_id} is not in the local suite; pass --suite with the run's task folder"
            )
        if v.task_hash and task.hash != v.task_hash:
            raise VerifyError(
                f"task {v.task_id} changed since the run (hash {task.hash[:12]}, run {v.task_hash[:12]}); "
                f"pass --suite with the files of suite version {sub.run.get('suite_version')}"
            )
    env = host_environment()
    timing_comparable = _same_hardware(sub, device, env.get("gpu"))
    eval_cfg = EvalConfig(
        device=device,
        baseline=sub.run.get("baseline", "eager"),
        strict=bool(sub.run.get("strict", True)),
        timeout_s=config.timeout_s,
        trials=config.trials,
        timing=config.timing,
        cache_dir=config.cache_dir,
    )
    trusted = is_trusted(sub.run.get("model", ""))  # the reference baseline, as benchmark.run treats it
    checked = []
    for v in tqdm(chosen, desc=f"verify {sub.slug}", unit="sample", disable=not progress):
        try:
            observed = evaluate(
                suite[v.task_id],
                sub.code[v.code_hash],
                eval_cfg,
                sample=v.sample,
                model=v.model,
                sol_ms=v.sol_ms,
                trusted=trusted,
            )
        except TaskError as e:
            raise VerifyError(f"task {v.task_id} fails on this machine: {e}") from e
        agree, reason = compare(v, observed, timing_comparable, config.speedup_tolerance)
        log.info("%s#%d: %s", v.task_id, v.sample, "agrees" if agree else reason)
        checked.append(
            {
                "task_id": v.task_id,
                "sample": v.sample,
                "code_hash": v.code_hash,
                "claimed_status": v.status.value,
                "claimed_speedup": v.speedup,
                "status": observed.status.value,
                "speedup": observed.speedup,
                "flags": list(observed.flags),
                "agree": agree,
                "reason": reason,
            }
        )
    record = {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "device": device,
        "gpu": env.get("gpu"),
        "environment": env,
        "requested": config.sample,
        "seed": config.seed,
        "speedup_tolerance": config.speedup_tolerance,
        "timing_compared": timing_comparable,
        "checked": checked,
        "verified": all(c["agree"] for c in checked),
    }
    sub.verification.append(record)
    return record


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m leaderboard.verify",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("submission", type=Path, help="a submission file (leaderboard/submissions/SLUG.json)")
    p.add_argument("--sample", type=int, default=5, help="passing samples to re-run (default 5)")
    add_device(p)
    p.add_argument("--seed", type=int, default=0, help="seed for drawing the samples")
    p.add_argument(
        "--speedup-tolerance",
        type=float,
        default=0.25,
        help="relative shortfall of the re-run speedup tolerated on the same hardware (default 0.25)",
    )
    p.add_argument("--suite", default=None, help="task folder of the run's suite version (default: built-in)")
    p.add_argument(
        "--timeout", type=float, default=EvalConfig.timeout_s, help="seconds per sample, build included"
    )
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="harness cache (default: $SOLBENCH_CACHE or ~/.cache/solbench)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="report without writing the record into the submission"
    )
    add_quiet(p)
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.sample < 1:
        p.error("--sample must be at least 1")
    config = VerifyConfig(
        sample=args.sample,
        device=args.device,
        seed=args.seed,
        speedup_tolerance=args.speedup_tolerance,
        suite=args.suite,
        timeout_s=args.timeout,
        cache_dir=args.cache_dir or default_cache_dir(),
    )
    try:
        sub = load_submission(args.submission)
        record = verify(sub, config, progress=not args.quiet)
    except (SubmissionFormatError, VerifyError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not args.dry_run:
        sub.save()
    agreed = sum(c["agree"] for c in record["checked"])
    print(
        f"{sub.slug}: {agreed}/{len(record['checked'])} samples agree; "
        f"{'verified' if record['verified'] else 'disagreements recorded'}"
        + ("" if args.dry_run else f" in {sub.path}")
    )
    for c in record["checked"]:
        if not c["agree"]:
            print(f"  {c['reason']}")
    return 0 if record["verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
