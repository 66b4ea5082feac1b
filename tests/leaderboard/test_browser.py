"""The built site in headless Chromium: the table renders with the right rows, a header click sorts it,
the chart has one line per model, the filters work, nothing is fetched from the network, no script
fails, and the real board reads at 1400 px without horizontal scrolling (the standings tables fit;
an entry page's per-task speed columns are in view); a screenshot of each page is saved
($SOLBENCH_ARTIFACTS, else the test's tmp folder).

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages
separated by NUL bytes on file descriptors 3 and 4), so no websocket or driver package is needed.
Skipped when Debian's `chromium` is not installed (`apt-get install -y chromium`)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from leaderboard_fakes import SUITE_VERSION

from leaderboard import build

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="headless Chromium not installed (apt-get install -y chromium)"
    ),
]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
]


class Browser:
    """A headless Chromium with one page, driven over the DevTools protocol pipe."""

    def __init__(self, profile: Path, timeout: float = 60.0):
        self.timeout = timeout
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds():  # the protocol's fixed descriptors: 3 for commands in, 4 for replies out
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=wire_fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.resize(1360, 900)

    def resize(self, width: int, height: int) -> None:
        """The page's viewport in CSS pixels (no scrollbars: the browser hides them)."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium exited (status {self.proc.poll()})")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: bool = False, **params) -> dict:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def js(self, expression: str):
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str) -> None:
        self.call("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + self.timeout
        while self.js("document.readyState") != "complete" or self.js("location.href") != url:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not finish loading")
            time.sleep(0.05)

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the element (scrolled into view first)."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                session=True,
                type=kind,
                x=box[0],
                y=box[1],
                button="left",
                clickCount=1,
            )

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=True)[
            "data"
        ]
        path.write_bytes(base64.b64decode(data))
        return path

    def requested_urls(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def script_errors(self) -> list[dict]:
        return [e["params"] for e in self.events if e.get("method") == "Runtime.exceptionThrown"]

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    import leaderboard_fakes as fakes

    out = tmp_path_factory.mktemp("site")
    build.build_site(fakes.three_submissions(), out, registry=fakes.registry(), current=fakes.SUITE_VERSION)
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    path = Path(os.environ.get("SOLBENCH_ARTIFACTS") or tmp_path_factory.mktemp("screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


OVERALL = f"#scope-{SUITE_VERSION}-overall"  # the fake board's one suite version, its overall table
ROWS = f"Array.from(document.querySelectorAll('{OVERALL} table tbody tr')).map(r => r.dataset.model)"


def test_index_renders_sorts_and_charts(site, browser, artifacts):
    browser.open((site / "index.html").as_uri())
    assert browser.js(ROWS) == ["fast-model", "medium-model", "slow-model"]
    assert (
        browser.js(f"document.querySelectorAll('{OVERALL} table tbody tr td').length") == 3 * 14
    )  # 14 columns
    # one polyline per model, each with points inside the plot
    curves = browser.js(
        f"Array.from(document.querySelectorAll('#chart-{SUITE_VERSION}-overall polyline.curve'))"
        ".map(p => [p.dataset.model, p.points.numberOfItems, p.getBBox().width > 0])"
    )
    assert sorted(c[0] for c in curves) == ["fast-model", "medium-model", "slow-model"]
    assert all(n == 151 and wide for _, n, wide in curves)
    # each line's interval band is drawn, and each rate's interval shows under it
    bands = browser.js(
        f"Array.from(document.querySelectorAll('#chart-{SUITE_VERSION}-overall polygon.band'))"
        ".map(p => [p.dataset.model, p.getBBox().width > 0 && p.getBBox().height > 0])"
    )
    assert sorted(bands) == [["fast-model", True], ["medium-model", True], ["slow-model", True]]
    ci = f"document.querySelector('{OVERALL} tr[data-model=\"fast-model\"] td .ci')"
    assert browser.js(f"{ci}.textContent") == "[0.50, 1.00]"  # Pass@1 over three tasks
    assert browser.js(f"getComputedStyle({ci}).display") == "block"
    ranks = f"Array.from(document.querySelectorAll('{OVERALL} tbody tr')).map(r => r.dataset.rank)"
    assert browser.js(ranks) == ["1", "1", "3"]  # fast and medium overlap; slow lies below both
    # the stylesheet applied (a local file, no network)
    assert browser.js("getComputedStyle(document.querySelector('th')).cursor") == "pointer"

    column = f"{OVERALL} table thead th:nth-child(2)"  # Model: first click sorts descending by name
    browser.click(column)
    assert browser.js(ROWS) == ["slow-model", "medium-model", "fast-model"]
    browser.click(column)
    assert browser.js(ROWS) == ["fast-model", "medium-model", "slow-model"]
    assert browser.js(f"document.querySelector('{column}').getAttribute('aria-sort')") == "ascending"

    geomean = f"{OVERALL} table thead th:nth-child(5)"
    assert browser.js(f"document.querySelector('{geomean}').textContent") == "Geomean speedup"
    browser.click(geomean)
    browser.click(geomean)  # ascending: slowest first
    assert browser.js(ROWS) == ["slow-model", "medium-model", "fast-model"]

    shot = browser.screenshot(artifacts / "leaderboard-index.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    assert not browser.script_errors()


def test_submission_page_filters(site, browser, artifacts):
    browser.open((site / "submissions" / "fast-model.html").as_uri())
    visible = "document.querySelectorAll('#results tbody tr:not([hidden])').length"
    assert browser.js(visible) == 6
    assert browser.js("document.querySelector('form.filters .count').textContent") == "showing 6 of 6"

    def choose(name: str, value: str) -> None:
        browser.js(
            f"(() => {{ const s = document.querySelector('select[data-filter={name}]'); s.value = "
            f"{json.dumps(value)}; s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"
        )

    choose("level", "1")
    assert browser.js(visible) == 4
    choose("family", "reduction")
    assert browser.js(visible) == 2
    choose("status", "incorrect")
    assert browser.js(visible) == 1
    choose("level", "2")
    assert browser.js(visible) == 0
    for name in ("level", "family", "status"):
        choose(name, "")
    assert browser.js(visible) == 6
    browser.screenshot(artifacts / "leaderboard-submission.png")
    assert not browser.script_errors()


def test_nothing_is_fetched_from_the_network(browser):
    urls = browser.requested_urls()
    assert urls, "no requests were recorded"
    assert all(u.startswith(("file://", "data:", "about:")) for u in urls), urls


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """The real board (leaderboard/submissions) built into a temporary folder."""
    from leaderboard.submission import EXAMPLE, load_all

    subs = [s for s in load_all() if EXAMPLE not in s.labels]
    out = tmp_path_factory.mktemp("published")
    build.build_site(subs, out)
    return subs, out


def test_the_published_board_renders_its_entries_with_intervals(browser, artifacts, published):
    """The real board: at least three H200 entries, every one a row of its suite version's table,
    ranked as the standings rank them, each fast_1 with its interval and its suite version named,
    and the eager reference against itself near zero, not "faster"."""
    from leaderboard import standings
    from leaderboard.suites import SuiteRegistry, builtin_version

    subs, site = published
    assert len(subs) >= 3 and all(s.gpu == "NVIDIA H200" for s in subs), [(s.slug, s.gpu) for s in subs]
    groups = standings.by_suite_version(subs, builtin_version(), SuiteRegistry.load())
    browser.open((site / "index.html").as_uri())
    for group in groups:
        expected = group.table["overall"]
        rows = browser.js(
            f"Array.from(document.querySelectorAll('#scope-{group.version}-overall table tbody tr'))"
            ".map(r => [r.dataset.model, Number(r.dataset.rank), r.querySelector('.suite').textContent])"
        )
        assert rows == [[e.submission.slug, e.rank, f"suite {group.version[:8]}"] for e in expected]
        for e in expected:
            low, high = e.metrics.fast_p_ci[1.0].lo, e.metrics.fast_p_ci[1.0].hi
            assert browser.js(
                f"document.querySelector('tr[data-model=\"{e.submission.slug}\"]').textContent"
            ).count(f"[{low:.2f}, {high:.2f}]"), f"{e.submission.slug}: fast_1's interval is not shown"
    reference = next(
        e for g in groups for e in g.table["overall"] if e.submission.run["model"] == "reference"
    )
    assert reference.metrics.fast_p[1.0] < 0.05 and reference.metrics.fast_p_ci[1.0].lo == 0.0
    browser.screenshot(artifacts / "leaderboard-published.png")
    assert not browser.script_errors()


# Where an element lies against the viewport and against the scrolling box that holds it.
BOX = """(sel => {
  const e = document.querySelector(sel), r = e.getBoundingClientRect();
  const wrap = e.closest('.table-wrap');
  return {left: r.left, right: r.right, width: r.width, view: window.innerWidth,
          page: document.documentElement.scrollWidth,
          wrap: wrap ? [wrap.scrollWidth, wrap.clientWidth, wrap.getBoundingClientRect().right] : null};
})"""


def test_the_published_board_reads_at_1400_px_without_horizontal_scroll(browser, artifacts, published):
    """At a 1400 px wide window the index's metrics tables are no wider than the viewport, and on
    every entry page the per-task Speedup header is in view with no horizontal scroll."""
    subs, site = published
    browser.resize(1400, 900)
    try:
        browser.open((site / "index.html").as_uri())
        tables = browser.js(
            "Array.from(document.querySelectorAll('table.standings'))"
            ".map(t => [t.dataset.suite, t.dataset.scope])"
        )
        assert "overall" in {scope for _, scope in tables} and len(tables) >= 2
        for suite, scope in tables:
            box = browser.js(f'{BOX}(\'table.standings[data-suite="{suite}"][data-scope="{scope}"]\')')
            assert box["view"] == 1400 and box["page"] <= 1400, box
            assert box["width"] <= box["view"] and box["right"] <= box["view"], (scope, box)
            assert box["wrap"][0] <= box["wrap"][1], (scope, box)  # its box has nothing to scroll
        browser.screenshot(artifacts / "leaderboard-index-1400.png")
        for sub in subs:
            browser.open((site / "submissions" / f"{sub.slug}.html").as_uri())
            speedup = browser.js(
                "(() => { const th = Array.from(document.querySelectorAll('#results thead th'))"
                ".find(h => h.textContent.trim() === 'Speedup'); th.id = 'speedup-header'; return th.cellIndex; })()"
            )
            assert speedup is not None
            box = browser.js(f"{BOX}('#speedup-header')")
            assert 0 <= box["left"] and box["right"] <= min(box["view"], box["wrap"][2]), (sub.slug, box)
            assert box["wrap"][0] <= box["wrap"][1] and box["page"] <= box["view"], (sub.slug, box)
            metrics = browser.js(f"{BOX}('table.metrics')")
            assert metrics["width"] <= metrics["view"] and metrics["wrap"][0] <= metrics["wrap"][1], metrics
        browser.screenshot(artifacts / "leaderboard-entry-1400.png")
        assert not browser.script_errors()
    finally:
        browser.resize(1360, 900)
