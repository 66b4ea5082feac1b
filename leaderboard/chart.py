"""Geometry of the fast_p chart, drawn as inline SVG by the templates (no charting library, no
network): speedup threshold p on the x axis, fraction of samples correct and faster than p x eager
on the y axis, one polyline per model."""

from __future__ import annotations

from dataclasses import dataclass

# Distinguishable on white and for the common colour-vision deficiencies, in this order.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#8c564b", "#000000",
           "#7f7f7f", "#bcbd22")


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
    fast_1: float | None  # None: the entry was never timed


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
    p1_x: float  # where p = 1 (the fast_1 line) falls
    series: list[Series]


def fast_p_chart(
    curves: list[tuple[str, str, list[tuple[float, float]]]],
    p_max: float = 3.0,
    width: int = 720,
    height: int = 340,
) -> Chart:
    """`curves`: (label, slug, [(p, fraction), ...]) per model, in legend order."""
    left, right, top, bottom = 56, width - 16, 16, height - 44

    def x(p: float) -> float:
        return left + (right - left) * p / p_max

    def y(f: float) -> float:
        return bottom - (bottom - top) * f

    series = []
    for i, (label, slug, pts) in enumerate(curves):
        at_1 = next((f for p, f in pts if abs(p - 1.0) < 1e-9), None)
        series.append(Series(
            label=label,
            slug=slug,
            color=PALETTE[i % len(PALETTE)],
            points=" ".join(f"{x(p):.1f},{y(f):.1f}" for p, f in pts),
            fast_1=at_1,
        ))
    steps = round(p_max / 0.5)
    return Chart(
        width=width, height=height, left=left, right=right, top=top, bottom=bottom,
        x_ticks=[Tick(x(i * 0.5), f"{i * 0.5:g}") for i in range(steps + 1)],
        y_ticks=[Tick(y(f), f"{f:.2f}") for f in (0.0, 0.25, 0.5, 0.75, 1.0)],
        p1_x=x(1.0),
        series=series,
    )
