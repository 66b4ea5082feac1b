"""Turn a benchmark run directory into a leaderboard submission file.

    python -m leaderboard.submit RUN_DIR --name "My model" [--org "Lab"] [--notes "..."]

The run is validated and, if sound, written to leaderboard/submissions/SLUG.json (or under --out)
together with the source of every passing candidate, read from the run folder's completions.jsonl
(the raw completions, when the run kept them) or else from the benchmark's cache the run used
($SOLBENCH_CACHE or ~/.cache/solbench, or --cache-dir), so `python -m leaderboard.verify` can re-run
it later. Each source is checked against the verdict's code hash. Without completions.jsonl, submit
from the machine (or with the cache folder) the run was made on, or pass --without-code."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import sys
from pathlib import Path

from benchmark import metrics
from benchmark.extract import extract_code
from benchmark.flags import add_out
from benchmark.host import default_cache_dir, slugify, source_path
from benchmark.task import sha256_text
from leaderboard.run_checks import ValidatedRun, ValidationError, validate_run_dir
from leaderboard.submission import NO_CODE, SUBMISSIONS_DIR, Submission
from leaderboard.suites import SUITE_VERSIONS_PATH, SuiteRegistry

log = logging.getLogger(__name__)


def completion_sources(run_dir: Path) -> dict[str, str]:
    """Code extracted from the run directory's completions.jsonl (when the runner kept one), by hash."""
    path = run_dir / "completions.jsonl"
    if not path.is_file():
        return {}
    sources = {}
    for line in path.read_text().splitlines():
        try:
            text = json.loads(line).get("text")
        except (json.JSONDecodeError, AttributeError):
            continue  # the validator reads results.jsonl; a damaged completion only costs its code
        code = extract_code(text).code if isinstance(text, str) else None
        if code:
            sources[sha256_text(code)] = code
    return sources


def collect_code(validated: ValidatedRun, cache_dir: Path) -> dict[str, str]:
    """Source of each passing sample, by code hash: from the run's completions.jsonl, else from the
    harness cache (benchmark.host.source_path); refuses if one cannot be found."""
    found = completion_sources(validated.path)
    code: dict[str, str] = {}
    problems = []
    for v in metrics.final_turns(validated.verdicts):
        if not v.correct or v.code_hash in code:
            continue
        if v.code_hash in found:
            code[v.code_hash] = found[v.code_hash]
            continue
        path = source_path(v.code_hash, cache_dir)
        if not path.is_file():
            problems.append(
                f"candidate code of {v.task_id} sample {v.sample} is neither in completions.jsonl "
                f"nor in the cache ({path})"
            )
            continue
        source = path.read_text()
        if sha256_text(source) != v.code_hash:
            problems.append(f"{path} does not hash to the code_hash of {v.task_id} sample {v.sample}")
            continue
        code[v.code_hash] = source
    if problems:
        problems.append(
            f"pass --cache-dir with the harness cache the run used (now {cache_dir}), "
            "or --without-code to submit without sources (the entry cannot be verified)"
        )
        raise ValidationError(validated.path, problems)
    return code


def make_submission(
    run_dir: str | Path,
    name: str,
    *,
    org: str = "",
    notes: str = "",
    labels: tuple[str, ...] = (),
    partial: bool = False,
    include_code: bool = True,
    cache_dir: Path | None = None,
    registry: SuiteRegistry | None = None,
) -> Submission:
    validated = validate_run_dir(run_dir, registry, partial=partial)
    code = collect_code(validated, cache_dir or default_cache_dir()) if include_code else {}
    all_labels = [*validated.labels, *labels] + ([] if include_code else [NO_CODE])
    return Submission(
        slug=slugify(name),
        name=name,
        org=org,
        notes=notes,
        labels=list(dict.fromkeys(all_labels)),
        submitted=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        run=validated.run,
        summary=validated.summary,
        verdicts=validated.verdicts,
        tasks={
            t: {"level": validated.suite.tasks[t].level, "tags": list(validated.suite.tasks[t].tags)}
            for t in validated.tasks
        },
        code=code,
    )


def submit(
    run_dir: str | Path, name: str, out_dir: Path = SUBMISSIONS_DIR, replace: bool = False, **kwargs
) -> Path:
    """Validate and write the submission file; return its path."""
    sub = make_submission(run_dir, name, **kwargs)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{sub.slug}.json"
    if path.exists() and not replace:
        raise FileExistsError(f"{path} exists; pick another --name or pass --replace")
    return sub.save(path)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m leaderboard.submit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("run_dir", type=Path, help="the --out folder of `python -m benchmark.run`")
    g = p.add_argument_group("the entry")
    g.add_argument("--name", required=True, help="model name shown on the leaderboard (also the file name)")
    g.add_argument("--org", default="", help="organisation or author")
    g.add_argument("--notes", default="", help="how the run was produced: prompt, decoding, anything unusual")
    g.add_argument(
        "--label", action="append", default=[], help="extra label shown beside the name (repeatable)"
    )
    g = p.add_argument_group("validation")
    g.add_argument(
        "--partial",
        action="store_true",
        help="cover only the tasks the run selected instead of whole levels (labelled 'partial')",
    )
    g.add_argument(
        "--suite-versions", type=Path, default=SUITE_VERSIONS_PATH, help="known suite versions file"
    )
    g = p.add_argument_group("candidate code")
    g.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="harness cache of the run (default: $SOLBENCH_CACHE or ~/.cache/solbench)",
    )
    g.add_argument(
        "--without-code", action="store_true", help="submit without candidate sources (cannot be verified)"
    )
    g = p.add_argument_group("output")
    add_out(
        g,
        "submissions folder (default: leaderboard/submissions)",
        default=SUBMISSIONS_DIR,
        old=("--out-dir",),
    )
    g.add_argument("--replace", action="store_true", help="overwrite an existing submission of the same name")
    return p


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        path = submit(
            args.run_dir,
            args.name,
            out_dir=args.out,
            replace=args.replace,
            org=args.org,
            notes=args.notes,
            labels=tuple(args.label),
            partial=args.partial,
            include_code=not args.without_code,
            cache_dir=args.cache_dir,
            registry=SuiteRegistry.load(args.suite_versions),
        )
    except (ValidationError, FileExistsError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"submission written: {path}")
    folder = (
        "" if Path(args.out).resolve() == Path(SUBMISSIONS_DIR).resolve() else f" --submissions {args.out}"
    )
    print(f"rebuild the site with: python -m leaderboard.build{folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
