"""Render the leaderboard as a self-contained static site.

    python -m leaderboard.build [--submissions leaderboard/submissions] [--out site/]

The output folder holds index.html (tables per suite version and scope, sortable, and fast_p
charts; entries are ranked only against entries that ran the same suite version, the built-in
suite's current version first; submissions labelled "example" are listed apart, unranked), one page per
submission (metadata, how it was produced, per-task results with filters), a copy of each submission
file, and assets/ (CSS and a small vanilla script). Nothing is fetched from the network and every
link is relative, so the folder can be opened from disk or served from any path (GitHub Pages,
`python -m http.server`, an object store)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import shutil
import sys
from pathlib import Path

import jinja2
import markupsafe

from benchmark import metrics
from benchmark.flags import add_out
from benchmark.stats import Interval
from leaderboard import chart, standings
from leaderboard.provenance import provenance
from leaderboard.submission import (
    CPU_RUN,
    EXAMPLE,
    NO_CODE,
    PARTIAL,
    SUBMISSIONS_DIR,
    Submission,
    SubmissionFormatError,
    load_all,
)
from leaderboard.suites import SuiteRegistry, builtin_version

TEMPLATES = Path(__file__).parent / "templates"
ASSETS = Path(__file__).parent / "assets"
log = logging.getLogger(__name__)

LABEL_HELP = {
    CPU_RUN: "evaluated on a CPU; its timings say nothing about GPU kernels",
    EXAMPLE: "produced by the project to show the format, not a model's entry",
    PARTIAL: "covers only the tasks its run selected, not whole levels",
    NO_CODE: "submitted without candidate sources; it cannot be verified",
    standings.OLDER_SUITE: (
        "ran an earlier version of the built-in suite; ranked only against entries of that version"
    ),
    standings.OTHER_SUITE: (
        "ran a custom suite, or a version not recorded in leaderboard/suite_versions.json; "
        "ranked only against entries of that version"
    ),
}


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _speed(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def _interval(ci: Interval | None, how: str = "fmt") -> str:
    if ci is None:
        return ""
    show = {"fmt": lambda x: f"{x:.2f}", "pct": lambda x: f"{100 * x:.0f}%", "speed": lambda x: f"{x:.2f}×"}[
        how
    ]
    return f"[{show(ci.lo)}, {show(ci.hi)}]"


def _breakable(text: str) -> markupsafe.Markup:
    """A long identifier that may wrap after its '/' and '_' (<wbr>: copied text stays whole)."""
    escaped = str(markupsafe.escape(text))
    return markupsafe.Markup(escaped.replace("/", "/<wbr>").replace("_", "_<wbr>"))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        fmt=_fmt,
        pct=_pct,
        speed=_speed,
        interval=_interval,
        breakable=_breakable,
        scope_title=standings.scope_title,
        tojson_pretty=lambda d: json.dumps(d, indent=2, sort_keys=True),
    )
    return env


def _charts(groups: list[standings.SuiteGroup], colors: dict[str, str]) -> dict[str, chart.Chart]:
    """One fast_p chart per suite version and scope, keyed "VERSION-SCOPE"."""
    out = {}
    for group in groups:
        for scope, c in _scope_charts(group.table, colors).items():
            out[f"{group.version}-{scope}"] = c
    return out


def _scope_charts(table: dict[str, list[standings.Entry]], colors: dict[str, str]) -> dict[str, chart.Chart]:
    out = {}
    for scope, entries in table.items():
        verdicts = [standings.scope_verdicts(e.submission, scope) for e in entries]
        curves = [
            (e.submission.name, e.submission.slug, standings.fast_p_points(vs))
            for e, vs in zip(entries, verdicts, strict=True)
        ]
        bands = [[(p, ci.lo, ci.hi) for p, ci in standings.fast_p_band_points(vs)] for vs in verdicts]
        out[scope] = chart.fast_p_chart(curves, p_max=standings.FAST_P_MAX, bands=bands, colors=colors)
    return out


def build_site(
    subs: list[Submission],
    out: Path,
    *,
    registry: SuiteRegistry | None = None,
    current: str | None = None,
) -> Path:
    """Write the site into `out` (replacing what a previous build left there); return index.html.
    `registry` names the suite versions (default: leaderboard/suite_versions.json and the built-in
    suite); `current` is the version the board leads with (default: the built-in suite's now)."""
    slugs = [s.slug for s in subs]
    dupes = sorted({s for s in slugs if slugs.count(s) > 1})
    if dupes:
        raise ValueError(f"two submissions share the slug(s) {', '.join(dupes)}")
    registry = registry if registry is not None else SuiteRegistry.load()
    current = current if current is not None else builtin_version()
    env = _environment()
    examples = [s for s in subs if EXAMPLE in s.labels]  # listed apart, never ranked
    computed = {s.slug: standings.submission_metrics(s) for s in subs}  # once: the bootstrap is slow
    ranked = [s for s in subs if EXAMPLE not in s.labels]
    groups = standings.by_suite_version(ranked, current, registry, computed)
    suite_of = {  # each submission's suite version, examples' included: its page and its mark
        s.slug: standings.suite_group(str(s.run.get("suite_version", "")), current, registry) for s in subs
    }
    built = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    labels = sorted({lab for s in subs for lab in s.labels} | {g.mark for g in suite_of.values() if g.mark})
    if out.exists():
        for sub_path in ("index.html", "submissions", "assets"):
            target = out / sub_path
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    (out / "submissions").mkdir(parents=True)
    shutil.copytree(ASSETS, out / "assets")
    colors = chart.entry_colors(slugs)  # one colour per entry in every scope's chart and table
    common = dict(
        built=built,
        label_help=LABEL_HELP,
        rules=metrics.rules(),
        current=current,
        current_label=registry.label(current),
        suite_of=suite_of,
    )
    index = out / "index.html"
    index.write_text(
        env.get_template("index.html.j2").render(
            root=".",
            groups=groups,
            charts=_charts(groups, colors),
            colors=colors,
            submissions=subs,
            examples=examples,
            labels=labels,
            **common,
        )
    )
    page = env.get_template("submission.html.j2")
    for sub in subs:
        rows = standings.result_rows(sub)
        scopes = {
            scope: m
            for scope, m in sorted(computed[sub.slug].items(), key=lambda kv: standings.scope_sort_key(kv[0]))
        }
        (out / "submissions" / f"{sub.slug}.html").write_text(
            page.render(
                root="..",
                sub=sub,
                prov=provenance(sub),
                scopes=scopes,
                rows=rows,
                levels=sorted({r.verdict.level for r in rows if r.verdict.level is not None}),
                families=sorted({t for r in rows for t in r.tags}),
                statuses=sorted({r.verdict.status.value for r in rows}),
                **common,
            )
        )
        (out / "submissions" / f"{sub.slug}.json").write_text(
            json.dumps(sub.to_dict(), indent=1, sort_keys=True)
        )
    log.info("built %d submission page(s) into %s", len(subs), out)
    return index


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m leaderboard.build",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--submissions", type=Path, default=SUBMISSIONS_DIR, help="folder of submission files")
    add_out(p, "output folder (default: site/)", default=Path("site"))
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        subs = load_all(args.submissions)
        index = build_site(subs, args.out)
    except (SubmissionFormatError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"site written: {index} ({len(subs)} submissions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
