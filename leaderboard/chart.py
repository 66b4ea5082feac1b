"""Line charts drawn as inline SVG (no charting library, no network): the geometry here, the
drawing in templates/chart.svg.j2, the one SVG chart of the project. The leaderboard's fast_p
chart (speedup threshold p on the x axis, fraction of samples correct and faster than p x eager on
the y axis, one polyline per model) is one; the RL demo's learning curves are another."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import jinja2

# Distinguishable on white and for the common colour-vision deficiencies, in this order (the first
# `DISTINCT` are the Okabe-Ito colours, the safest).
PALETTE = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#8c564b",
    "#000000",
    "#7f7f7f",
    "#bcbd22",
)
DISTINCT = 7
TEMPLATE = Path(__file__).parent / "templates" / "chart.svg.j2"


def entry_colors(slugs: Iterable[str]) -> dict[str, str]:
    """A colour per entry drawn from its slug, the same in every chart of a build: each slug's hash
    picks its palette slot and a slug whose slot is taken (by a slug earlier in name order) takes
    the next free one, so an entry's colour depends on itself and not on its place in a table. Up to
    `DISTINCT` entries share the Okabe-Ito colours; a larger board draws from the whole palette."""
    names = sorted(set(slugs))
    palette = PALETTE[:DISTINCT] if len(names) <= DISTINCT else PALETTE
    colors: dict[str, str] = {}
    for slug in names:
        start = int.from_bytes(hashlib.sha256(slug.encode()).digest()[:4], "big") % len(palette)
        free = [palette[(start + i) % len(palette)] for i in range(len(palette))]
        taken = set(colors.values())
        colors[slug] = next((c for c in free if c not in taken), free[0])
    return colors


@dataclass(frozen=True)
class Tick:
    pos: float  # pixel coordinate along the axis
    label: str


@dataclass(frozen=True)
class Series:
    label: str
    slug: str
    color: str
    points: str  # SVG polyline "x,y x,y ..."
    title: str  # the line's tooltip
    fast_1: float | None = None  # fast_p charts: the value at p = 1 (None: the entry was never timed)
    band: str = ""  # SVG polygon of the line's interval band ("": none)


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: int  # x pixel of the plot's right edge
    top: int
    bottom: int  # y pixel of the plot's bottom edge
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    p1_x: float | None  # where the dashed marker line falls (fast_p: p = 1); None: no marker
    series: list[Series]
    x_label: str = ""
    y_label: str = ""
    aria_label: str = "line chart"


def line_chart(
    curves: list[tuple[str, str, list[tuple[float, float]]]],
    x_max: float,
    x_step: float,
    x_label: str,
    y_label: str,
    marker_x: float | None = None,
    aria_label: str = "line chart",
    width: int = 720,
    height: int = 340,
    colors: Mapping[str, str] | None = None,
) -> Chart:
    """`curves`: (label, slug, [(x, fraction), ...]) per line, in legend order; x runs from 0 to
    `x_max` with a tick every `x_step`, the fraction from 0 to 1. `colors` (slug -> colour) fixes a
    line's colour; a line without one takes the palette's colour of its position."""
    left, right, top, bottom = 56, width - 16, 16, height - 44

    def x(v: float) -> float:
        return left + (right - left) * v / x_max

    def y(f: float) -> float:
        return bottom - (bottom - top) * f

    series = [
        Series(
            label=label,
            slug=slug,
            color=(colors or {}).get(slug) or PALETTE[i % len(PALETTE)],
            title=label,
            points=" ".join(f"{x(p):.1f},{y(f):.1f}" for p, f in pts),
        )
        for i, (label, slug, pts) in enumerate(curves)
    ]
    steps = round(x_max / x_step)
    return Chart(
        width=width,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        x_ticks=[Tick(x(i * x_step), f"{i * x_step:g}") for i in range(steps + 1)],
        y_ticks=[Tick(y(f), f"{f:.2f}") for f in (0.0, 0.25, 0.5, 0.75, 1.0)],
        p1_x=x(marker_x) if marker_x is not None else None,
        series=series,
        x_label=x_label,
        y_label=y_label,
        aria_label=aria_label,
    )


def band_polygon(chart: Chart, x_max: float, band: list[tuple[float, float, float]]) -> str:
    """The SVG polygon of a band known at (x, lo, hi) points of a non-increasing curve (fast_p):
    between two points it spans the right point's lo to the left point's hi, which holds the
    interval at every x in between, as each resample's curve falls with x."""

    def pt(x: float, f: float) -> str:
        return f"{chart.left + (chart.right - chart.left) * x / x_max:.1f},{chart.bottom - (chart.bottom - chart.top) * f:.1f}"

    lower = [(band[0][0], band[0][1])]
    upper = [(band[0][0], band[0][2])]
    for (x0, _, hi0), (x1, lo1, hi1) in zip(band, band[1:], strict=False):
        lower += [(x0, lo1), (x1, lo1)]
        upper += [(x1, hi0), (x1, hi1)]
    return " ".join(pt(x, f) for x, f in [*lower, *reversed(upper)])


def fast_p_chart(
    curves: list[tuple[str, str, list[tuple[float, float]]]],
    p_max: float = 3.0,
    width: int = 720,
    height: int = 340,
    bands: list[list[tuple[float, float, float]]] | None = None,
    colors: Mapping[str, str] | None = None,
) -> Chart:
    """`curves`: (label, slug, [(p, fraction), ...]) per model, in legend order; `bands`: per model,
    (p, lo, hi) of fast_p's interval, drawn as a shaded band behind its line; `colors`: slug ->
    colour (see `entry_colors`)."""
    c = line_chart(
        curves,
        p_max,
        0.5,
        "speedup threshold p (over eager PyTorch)",
        "fast_p: fraction of samples",
        marker_x=1.0,
        aria_label="fast_p curve",
        width=width,
        height=height,
        colors=colors,
    )
    series = []
    for i, (s, (_, _, pts)) in enumerate(zip(c.series, curves, strict=True)):
        at_1 = next((f for p, f in pts if abs(p - 1.0) < 1e-9), None)
        shown = "–" if at_1 is None else f"{at_1:.3f}"
        band = band_polygon(c, p_max, bands[i]) if bands and len(bands[i]) > 1 else ""
        series.append(Series(s.label, s.slug, s.color, s.points, f"{s.label}: fast_1 = {shown}", at_1, band))
    return replace(c, series=series)


def svg(chart: Chart) -> str:
    """The chart as a standalone SVG file (the leaderboard's pages include the same template)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE.parent),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(TEMPLATE.name).render(c=chart, standalone=True) + "\n"
