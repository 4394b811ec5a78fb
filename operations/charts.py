"""Charts drawn on the server: the geometry of small bar and line charts, which a template writes out as inline SVG
(templates/admin/operations/chart.html). No script and no style attribute (the CSP allows neither): shapes carry
classes, static/css/operations.css colours them, and each bar or point links to the admin list behind it.

    chart = bar_chart(labels, [Stack("ANSWERED", "ops-answered", figures), …], value_text=str)
    chart.bars[0].x, .y, .width, .height, .css, .url, .title
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

WIDTH, HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 64, 8, 10, 24  # room for the value axis on the left and the labels below


@dataclass(frozen=True)
class Stack:
    """One series: its key (what the legend names), its CSS class, and a figure (value, url) per bucket."""

    key: str
    css: str
    figures: Sequence[Any]


@dataclass(frozen=True)
class Shape:
    css: str
    url: str | None
    title: str
    x: float = 0
    y: float = 0
    width: float = 0
    height: float = 0


@dataclass
class Chart:
    width: int = WIDTH
    height: int = HEIGHT
    bars: list[Shape] = field(default_factory=list)
    dots: list[Shape] = field(default_factory=list)
    lines: list[tuple[str, str]] = field(default_factory=list)  # (css, "x,y x,y …")
    y_ticks: list[tuple[float, str]] = field(default_factory=list)  # (y, label)
    x_labels: list[tuple[float, str]] = field(default_factory=list)  # (x, label)
    baseline: float = HEIGHT - BOTTOM
    left: float = LEFT
    right: float = WIDTH - RIGHT

    @property
    def empty(self) -> bool:
        return not self.bars and not self.dots

    @property
    def axis_x(self) -> float:
        """Where the value axis' labels end (right-aligned)."""
        return self.left - 6

    @property
    def label_y(self) -> float:
        """The baseline of the labels below the bars."""
        return self.baseline + 16


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that is at least `value` (1 for nothing)."""
    if value <= 0:
        return 1
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power


def number_text(value: float) -> str:
    """An axis label: 25, 2,500, 12.5."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _frame(labels: Sequence[str], top_value: float, axis_text: Callable[[float], str]) -> tuple[Chart, float, float]:
    chart = Chart()
    plot_height = chart.baseline - TOP
    slot = (chart.right - chart.left) / max(len(labels), 1)
    scale = plot_height / top_value
    for fraction in (0, 0.5, 1):
        chart.y_ticks.append((chart.baseline - fraction * plot_height, axis_text(top_value * fraction)))
    every = 1 if len(labels) <= 14 else math.ceil(len(labels) / 14)
    for i, label in enumerate(labels):
        if i % every == 0:
            chart.x_labels.append((chart.left + slot * (i + 0.5), label))
    return chart, slot, scale


def bar_chart(
    labels: Sequence[str],
    stacks: Sequence[Stack],
    *,
    value_text: Callable[[float], str] = number_text,
    axis_text: Callable[[float], str] = number_text,
    floor: float = 0,
) -> Chart:
    """Stacked bars, one per label; a figure whose value is None or 0 draws nothing. `value_text` writes a value in
    a bar's tooltip, `axis_text` on the value axis. `floor`: the axis goes at least this high."""
    totals = [sum(_number(stack.figures[i].value) for stack in stacks) for i in range(len(labels))]
    top_value = nice_ceiling(max([floor, *totals]))
    chart, slot, scale = _frame(labels, top_value, axis_text)
    width = slot * 0.7
    for i, label in enumerate(labels):
        y = chart.baseline
        for stack in stacks:
            figure = stack.figures[i]
            value = _number(figure.value)
            if value <= 0:
                continue
            height = max(value * scale, 1.0)
            y -= height
            chart.bars.append(
                Shape(
                    stack.css,
                    figure.url,
                    f"{label} · {stack.key}: {value_text(value)}",
                    x=round(chart.left + slot * i + (slot - width) / 2, 1),
                    y=round(y, 1),
                    width=round(width, 1),
                    height=round(height, 1),
                )
            )
    return chart


def line_chart(
    labels: Sequence[str],
    stacks: Sequence[Stack],
    *,
    value_text: Callable[[float], str] = number_text,
    axis_text: Callable[[float], str] = number_text,
) -> Chart:
    """A line per series through its figures, with a point on each; a None value leaves a gap."""
    values = [_number(f.value) for stack in stacks for f in stack.figures if f.value is not None]
    top_value = nice_ceiling(max(values, default=0))
    chart, slot, scale = _frame(labels, top_value, axis_text)
    for stack in stacks:
        run: list[str] = []
        for i, label in enumerate(labels):
            figure = stack.figures[i]
            if figure.value is None:
                if len(run) > 1:
                    chart.lines.append((stack.css, " ".join(run)))
                run = []
                continue
            x = round(chart.left + slot * (i + 0.5), 1)
            y = round(chart.baseline - _number(figure.value) * scale, 1)
            run.append(f"{x},{y}")
            chart.dots.append(
                Shape(stack.css, figure.url, f"{label} · {stack.key}: {value_text(_number(figure.value))}", x=x, y=y)
            )
        if len(run) > 1:
            chart.lines.append((stack.css, " ".join(run)))
    return chart


def _number(value: Any) -> float:
    return float(value) if value is not None else 0.0
