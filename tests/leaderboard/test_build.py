"""leaderboard.build: the static site holds every table, chart, page and asset, with no network."""

from __future__ import annotations

import re
from dataclasses import replace

import leaderboard_fakes as fakes
import pytest
from leaderboard_fakes import SUITE_VERSION, make_submission

from leaderboard import build, standings
from leaderboard.examples import EXAMPLES_DIR
from leaderboard.submission import CPU_RUN, EXAMPLE, SUBMISSIONS_DIR, Submission, load_all
from leaderboard.suites import SuiteRegistry, SuiteVersion

OLDER_VERSION = "feedc0de00000000"  # a version of the fake suite recorded before SUITE_VERSION


def board_registry() -> SuiteRegistry:
    """The recorded versions (the examples ran some), the fake suite's, and an older fake one."""
    fake = fakes.registry().get(SUITE_VERSION)
    older = SuiteVersion(
        OLDER_VERSION, "builtin", "2026-10-01", dict(list(fake.tasks.items())[:2]), "two tasks"
    )
    versions = SuiteRegistry.load(include_builtin=False).versions
    return SuiteRegistry({**versions, SUITE_VERSION: fake, OLDER_VERSION: older})


def build_site(subs: list[Submission], out, current: str = SUITE_VERSION):
    """The site as the board builds it, with the fake suite's version as the current one."""
    return build.build_site(subs, out, registry=board_registry(), current=current)


def section(html: str, scope: str, version: str = SUITE_VERSION) -> str:
    start = html.index(f'<section class="scope" id="scope-{version}-{scope}">')
    return html[start : html.index("</section>", start)]


def suite_section(html: str, version: str) -> str:
    start = html.index(f'<section class="suite" id="suite-{version}"')
    end = html.find('<section class="suite"', start + 1)
    return html[start : end if end != -1 else html.index('<section class="notes">')]


def on_version(sub: Submission, version: str) -> Submission:
    return replace(sub, run=dict(sub.run, suite_version=version))


@pytest.fixture
def site(tmp_path, three_submissions):
    build_site(three_submissions, tmp_path / "site")
    return tmp_path / "site"


def test_index_has_a_ranked_table_and_chart_per_scope(site):
    html = (site / "index.html").read_text()
    for scope in ("overall", "level1", "level2"):
        part = section(html, scope)
        assert re.findall(r'<tr data-model="([^"]+)"', part) == ["fast-model", "medium-model", "slow-model"]
        assert len(re.findall(r'<polyline class="curve" data-model=', part)) == 3
        assert len(re.findall(r'<polygon class="band" data-model=', part)) == 3  # each line's interval
    overall = section(html, "overall")
    assert "NVIDIA H200" in overall and "Pass@k" in overall and "Faster vs compile" in overall
    assert 'data-sort="0.8333333333333334"' in overall  # Pass@1 = 5/6, sortable by its exact value


def test_submission_pages_have_results_filters_and_metadata(site):
    page = (site / "submissions" / "fast-model.html").read_text()
    assert page.count("<tr data-level=") == 6
    assert (
        '<option value="gemm">gemm</option>' in page
        and '<option value="incorrect">incorrect</option>' in page
    )
    assert "python -m benchmark.run --model fast --samples 2" in page and "notes for Fast Model" in page
    assert (site / "submissions" / "fast-model.json").is_file()


def test_site_is_self_contained(site):
    files = [p for p in site.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"index.html", "style.css", "leaderboard.js"}
    for p in files:
        if p.suffix in (".html", ".css", ".js"):
            text = p.read_text()
            assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I), (
                f"{p} refers to the network"
            )
            for ref in re.findall(r'(?:href|src)="([^"#]+)"', text):
                assert (p.parent / ref).resolve().is_file(), f"{p.name} links to missing {ref}"


def test_rebuild_replaces_pages_of_removed_submissions(tmp_path, three_submissions):
    build_site(three_submissions, tmp_path / "site")
    build_site(three_submissions[:1], tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site" / "submissions").glob("*.html")) == ["slow-model.html"]


def test_duplicate_slugs_are_refused(tmp_path, three_submissions):
    twin = make_submission("Slow Model", three_submissions[1].verdicts)
    with pytest.raises(ValueError, match="share the slug"):
        build_site([*three_submissions, twin], tmp_path / "site")


def test_empty_leaderboard_builds(tmp_path):
    build_site([], tmp_path / "site")
    assert "No submissions yet" in (tmp_path / "site" / "index.html").read_text()


def test_cli_builds_from_a_folder(tmp_path, three_submissions, capsys):
    (tmp_path / "subs").mkdir()
    for sub in three_submissions:
        sub.save(tmp_path / "subs" / f"{sub.slug}.json")
    assert build.main(["--submissions", str(tmp_path / "subs"), "--out", str(tmp_path / "out")]) == 0
    assert "3 submissions" in capsys.readouterr().out
    (tmp_path / "subs" / "broken.json").write_text("{")
    assert build.main(["--submissions", str(tmp_path / "subs"), "--out", str(tmp_path / "out")]) == 2
    assert "broken.json: not valid JSON" in capsys.readouterr().err


def test_the_real_board_holds_no_example_or_cpu_entry():
    for sub in load_all(SUBMISSIONS_DIR):
        assert EXAMPLE not in sub.labels and sub.device != "cpu", f"{sub.slug} belongs with the examples"


def test_example_submissions_build_apart_from_the_ranking(tmp_path, three_submissions):
    examples = load_all(EXAMPLES_DIR)
    assert examples and all(EXAMPLE in sub.labels for sub in examples)
    known = SuiteRegistry.load(include_builtin=False)
    for sub in examples:
        assert (CPU_RUN in sub.labels) == (sub.device == "cpu"), sub.slug
        assert known.get(sub.run["suite_version"]) is not None, f"{sub.slug}: suite version not recorded"
    build_site([*examples, *three_submissions], tmp_path / "site")
    assert len(list((tmp_path / "site" / "submissions").glob("*.html"))) == len(examples) + 3
    html = (tmp_path / "site" / "index.html").read_text()
    ranked = set(re.findall(r'<tr data-model="([^"]+)"', html))
    assert ranked == {"fast-model", "medium-model", "slow-model"}
    listed = html[html.index('<section class="examples"') :]
    for sub in examples:
        assert f'href="submissions/{sub.slug}.html"' in listed[: listed.index("</section>")]


def test_a_board_of_examples_only_ranks_nothing(tmp_path):
    build_site(load_all(EXAMPLES_DIR), tmp_path / "site")
    html = (tmp_path / "site" / "index.html").read_text()
    assert "No submissions yet" in html and "Examples (not ranked)" in html


def test_untimed_submission_builds_ranked_last_with_blank_speed_cells(tmp_path, three_submissions):
    untimed = make_submission(
        "Untimed",
        [
            replace(v, speedup=None, candidate_time=None, sol_fraction=None)
            for v in three_submissions[0].verdicts
        ],
    )
    build_site([untimed, *three_submissions], tmp_path / "site")
    overall = section((tmp_path / "site" / "index.html").read_text(), "overall")
    assert re.findall(r'<tr data-model="([^"]+)"', overall)[-1] == "untimed"
    row = overall[overall.index('<tr data-model="untimed"') :]
    row = row[: row.index("</tr>")]
    assert row.count('data-sort="">–</td>') == 6  # fast_1, faster, faster vs compile, geomean, SOL, over best
    assert (tmp_path / "site" / "submissions" / "untimed.html").is_file()


def test_ranks_tie_on_equal_intervals_and_every_rate_shows_its_interval(tmp_path, three_submissions):
    fast = three_submissions[1]
    twin = make_submission("Fast Twin", [replace(v, model="twin") for v in fast.verdicts])
    build_site([*three_submissions, twin], tmp_path / "site")
    html = (tmp_path / "site" / "index.html").read_text()
    overall = section(html, "overall")
    ranks = dict(re.findall(r'<tr data-model="([^"]+)" data-rank="(\d+)"', overall))
    assert ranks["fast-model"] == ranks["fast-twin"] == "1"  # the same verdicts: the same interval
    ci = standings.standings([fast])["overall"][0].metrics.fast_p_ci[1.0]
    assert (
        f'<span class="ci" title="95% bootstrap interval over tasks">[{ci.lo:.2f}, {ci.hi:.2f}]</span>'
        in overall
    )
    assert "percentile-bootstrap interval" in html and "1000 resamples" in html


def test_each_table_states_its_ranking_and_sol_fraction_beside_it(site):
    html = (site / "index.html").read_text()
    for scope in ("overall", "level1", "level2"):
        part = section(html, scope)
        note = part[part.index("</table>") : part.index('<figure class="chart"')]
        assert "Ranked by Pass@1, then fast_1" in note and "share a rank" in note, scope
        assert "clearly ahead of the next entry" in note and "speed-of-light floor time" in note, scope
    page = (site / "submissions" / "fast-model.html").read_text()
    results = page[page.index("<h2>Per-task results</h2>") : page.index('<table class="sortable results"')]
    assert "SOL fraction</strong>: the task's speed-of-light floor time" in results  # above the table


def test_a_sol_fraction_above_the_floor_is_flagged(tmp_path, three_submissions):
    fast = three_submissions[1]
    over = [replace(v, sol_fraction=1.21) if v.correct else v for v in fast.verdicts]
    build_site([replace(fast, verdicts=over)], tmp_path / "site")
    page = (tmp_path / "site" / "submissions" / "fast-model.html").read_text()
    flagged = re.findall(
        r'<td class="num over-floor" data-sort="([^"]+)"[^>]*>([^<]+)<sup>†</sup></td>', page
    )
    # the mean of each scope (overall, levels 1 and 2), then each of the five correct samples, its
    # value kept and marked
    assert flagged == [("1.21", "121.0%")] * (3 + 5)
    assert "a time below that floor: the floor model is loose" in page


def test_an_entry_keeps_its_colour_in_every_scope(site):
    html = (site / "index.html").read_text()
    colours: dict[str, set[str]] = {}
    for scope in ("overall", "level1", "level2"):
        part = section(html, scope)
        for slug, colour in re.findall(
            r'<polyline class="curve" data-model="([^"]+)" points="[^"]*" stroke="([^"]+)"', part
        ):
            colours.setdefault(slug, set()).add(colour)
        for slug, colour in re.findall(
            r'<tr data-model="([^"]+)".*?<span class="swatch" style="background: ([^"]+)"', part, re.S
        ):
            colours[slug].add(colour)
    assert sorted(colours) == ["fast-model", "medium-model", "slow-model"]
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len({c.pop() for c in colours.values()}) == 3


def test_the_producing_command_is_shown_once_with_relative_paths(tmp_path, three_submissions):
    fast = three_submissions[1]
    command = "python -m benchmark.run --model replay:/home/me/c.jsonl --out /home/me/runs/fast"
    run = dict(
        fast.run, command=command, resumed=[{"command": command, "started": f"t{i}"} for i in range(3)]
    )
    build_site([replace(fast, run=run)], tmp_path / "site")
    page = (tmp_path / "site" / "submissions" / "fast-model.html").read_text()
    assert page.count("python -m benchmark.run") == 1
    assert "python -m benchmark.run --model replay:c.jsonl --out fast" in page and "/home/me" not in page
    assert "Resumed 3 time(s) with the same command, starting t0, t1, t2." in page


def test_entries_of_two_suite_versions_are_ranked_apart(tmp_path, three_submissions):
    """An entry that ran an older suite version is shown with that version's label, marked, and
    ranked only against entries of its own version, in a table of its own after the current one."""
    slow, fast, medium = three_submissions
    older = on_version(replace(slow, name="Old Fast", slug="old-fast", verdicts=fast.verdicts), OLDER_VERSION)
    build_site([older, fast, medium], tmp_path / "site")
    html = (tmp_path / "site" / "index.html").read_text()
    assert html.index(f'id="suite-{SUITE_VERSION}"') < html.index(f'id="suite-{OLDER_VERSION}"')
    current, previous = suite_section(html, SUITE_VERSION), suite_section(html, OLDER_VERSION)
    assert "3 tasks, 2026-11-01" in current and "2 tasks, 2026-10-01: two tasks" in previous
    for scope in ("overall", "level1"):
        ranks = dict(re.findall(r'<tr data-model="([^"]+)" data-rank="(\d+)"', section(html, scope)))
        assert ranks == {"fast-model": "1", "medium-model": "1"}, scope
        older_ranks = re.findall(
            r'<tr data-model="([^"]+)" data-rank="(\d+)"', section(html, scope, OLDER_VERSION)
        )
        assert older_ranks == [("old-fast", "1")], (
            scope
        )  # alone in its version: never ranked against the others
    for table in re.findall(r"<table class=\"sortable standings\".*?</table>", html, re.S):
        assert (
            len(set(re.findall(r'<tr data-model="[^"]+" data-rank="\d+" data-suite="([^"]+)"', table))) == 1
        )
    assert previous.count('<span class="label label-older-suite"') == 1 + 3  # the heading, each scope's row
    assert "label-older-suite" not in current
    assert f"suite {SUITE_VERSION[:8]}" in current and f"suite {OLDER_VERSION[:8]}" in previous
    notes = html[html.index('<section class="notes">') :]
    assert f"<code>{SUITE_VERSION}</code>: 3 tasks, 2026-11-01 (current)" in notes
    assert f"<code>{OLDER_VERSION}</code>: 2 tasks, 2026-10-01: two tasks (older suite)" in notes
    page = (tmp_path / "site" / "submissions" / "old-fast.html").read_text()
    assert f"version <code>{OLDER_VERSION}</code> (2 tasks, 2026-10-01: two tasks)" in page
    assert f"The current suite is <code>{SUITE_VERSION}</code>" in page
    assert "label-older-suite" not in (tmp_path / "site" / "submissions" / "fast-model.html").read_text()


def test_a_board_with_no_entry_on_the_current_suite_says_so(tmp_path, three_submissions):
    build_site(three_submissions, tmp_path / "site", current="0123456789abcdef")
    html = (tmp_path / "site" / "index.html").read_text()
    assert "No entry has run the current suite yet" in html
    assert "<code>0123456789abcdef</code>: not recorded" in html and ", no entry yet" in html
    ranks = re.findall(r'data-rank="(\d+)"', section(html, "overall"))
    assert ranks == ["1", "1", "3"]  # the three are still ranked, against each other
    assert suite_section(html, SUITE_VERSION).count("label-other-suite") == 1 + 3 * 3


def test_every_real_entry_ran_a_recorded_suite_version():
    """The built-in suite moves on; an entry's suite version must stay recorded with its tasks."""
    known = SuiteRegistry.load(include_builtin=False)
    for sub in load_all(SUBMISSIONS_DIR):
        version = known.get(sub.run["suite_version"])
        assert version is not None, f"{sub.slug}: suite version {sub.run['suite_version']} not recorded"
        assert version.name and set(sub.tasks) <= set(version.tasks), sub.slug
