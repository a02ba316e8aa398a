"""The confidence trajectory as SVG, written by casefile itself.

No chart library and nothing fetched: a fixed palette, generic font families, coordinates
rounded to one decimal, so the same report gives the same bytes every run. One panel per
question; x is the step (each evidence event or pivot plotted, times labelled beneath), y the
confidence. Every x position links to its event (``#ev-SEQ``, the timeline row in the HTML
report) and carries its ``seq@hash`` as a tooltip; pivots are marked with a dashed line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from casefile.report.digest import unsealed
from casefile.report.escape import h
from casefile.report.model import Chart

WIDTH = 960
PANEL = 340
LEFT, RIGHT, TOP, BOTTOM = 52, 260, 34, 78
#: Colour-blind-safe palette (Okabe–Ito, then Tol's muted), cycled.
PALETTE = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#882255",
    "#117733",
    "#999933",
    "#332288",
)
CATCH_ALL_COLOUR = "#777777"
PIVOT_COLOUR = "#c00000"
#: At most this many time labels under a panel (pivots are always labelled).
LABELS = 14
LEGEND_CHARS = 34
LEGEND_ROW = 18
#: "pivot" is written over a pivot's line only this far (px) from the last one written
TAG_SPACING = 36
#: Up to this many points a panel marks every series' value with a dot (beyond, pivots only:
#: the lines carry the shape and every x position still links to its event).
DOTTED_POINTS = 40


def _f(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _short(text: str, limit: int = LEGEND_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def render_svg(charts: Sequence[Chart], *, standalone: bool) -> str:
    """All panels in one ``<svg>``; ``standalone`` adds the XML namespace a ``.svg`` file
    needs (inline in HTML it is implied, and the HTML then holds no URL at all) and the place
    of the file's digest (the HTML has its own)."""
    heights = [panel_height(chart) for chart in charts]
    height = sum(heights) if charts else PANEL
    ns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    out = [
        f'<svg{ns} class="trajectory" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
        f'height="{height}" role="img" aria-label="Confidence trajectory" '
        'font-family="sans-serif" font-size="11">',
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
    ]
    offset = 0
    for chart, panel in zip(charts, heights, strict=True):
        out.extend(_panel(chart, offset, panel))
        offset += panel
    if not charts:
        out.append('<text x="20" y="40">No question in this case: nothing to chart.</text>')
    if standalone:
        out.append(f"<!-- {unsealed()} -->")  # filled in by casefile.report.render_chart
    out.append("</svg>")
    return "\n".join(out) + "\n"


#: The line's second channel, so two series that share a colour (a playbook with more
#: hypotheses than the palette has colours) still differ: (top level, child) per palette cycle.
DASHES = (("", "6 3"), ("1 3", "8 3 1 3"), ("4 2 1 2", "10 4"))
CATCH_ALL_DASH = "2 3"


def _colour(chart: Chart, index: int) -> str:
    if chart.series[index].hypothesis.endswith("/catch-all"):
        return CATCH_ALL_COLOUR
    return PALETTE[index % len(PALETTE)]


def _dash(chart: Chart, index: int) -> str:
    """The ``stroke-dasharray`` attribute of a series' line (and of its legend's sample)."""
    series = chart.series[index]
    if series.hypothesis.endswith("/catch-all"):
        pattern = CATCH_ALL_DASH
    else:
        top, child = DASHES[(index // len(PALETTE)) % len(DASHES)]
        pattern = child if series.child else top
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def panel_height(chart: Chart) -> int:
    """A panel is tall enough for its legend (one row per series, and the pivot's)."""
    return max(PANEL, TOP + 8 + (len(chart.series) + 1) * LEGEND_ROW + BOTTOM)


def _panel(chart: Chart, offset: int, panel: int) -> list[str]:
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = panel - TOP - BOTTOM
    top = offset + TOP
    count = len(chart.points)

    def x(i: int) -> float:
        return LEFT + (plot_w / 2 if count <= 1 else i * plot_w / (count - 1))

    def y(value: float) -> float:
        return top + (1.0 - min(1.0, max(0.0, value))) * plot_h

    out = [
        f'<g class="panel" data-question="{h(chart.question)}">',
        f'<text x="{LEFT}" y="{offset + 20}" font-size="13" font-weight="bold">'
        f"{h(_short(chart.question_text, 90))} ({h(chart.question)})</text>",
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        ty = _f(y(tick))
        out.append(f'<line x1="{LEFT}" y1="{ty}" x2="{LEFT + plot_w}" y2="{ty}" stroke="#dddddd"/>')
        label = f"{int(tick * 100)}%"
        out.append(f'<text x="{LEFT - 6}" y="{_f(y(tick) + 4)}" text-anchor="end">{label}</text>')
    out.append(
        f'<line x1="{LEFT}" y1="{_f(top + plot_h)}" x2="{LEFT + plot_w}" '
        f'y2="{_f(top + plot_h)}" stroke="#444444"/>'
    )
    labelled = _labelled(chart, plot_w)
    last_tag = -1e9
    for i, point in enumerate(chart.points):
        px = _f(x(i))
        if point.pivot:
            out.append(
                f'<line class="pivot" x1="{px}" y1="{_f(top)}" x2="{px}" y2="{_f(top + plot_h)}" '
                f'stroke="{PIVOT_COLOUR}" stroke-dasharray="4 3"/>'
            )
            if x(i) - last_tag >= TAG_SPACING:  # "pivot" over the line, where there is room
                last_tag = x(i)
                out.append(
                    f'<text x="{px}" y="{_f(top - 4)}" text-anchor="middle" '
                    f'fill="{PIVOT_COLOUR}">pivot</text>'
                )
        if i in labelled:
            ly = _f(top + plot_h + 12)
            label = f"#{point.ref.seq} {point.when[11:16]}"
            out.append(
                f'<text x="{px}" y="{ly}" text-anchor="end" '
                f'transform="rotate(-40 {px} {ly})">{h(label)}</text>'
            )
    for s, series in enumerate(chart.series):
        colour, dash = _colour(chart, s), _dash(chart, s)
        points = " ".join(f"{_f(x(i))},{_f(y(v))}" for i, v in enumerate(series.values))
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{points}"/>'
        )
    step_w = plot_w / max(1, count - 1) if count > 1 else plot_w
    for i, point in enumerate(chart.points):
        cx = x(i)
        tip = f"{point.ref.label} {point.when}" + (" (pivot)" if point.pivot else "")
        out.append(f'<a href="#{point.ref.anchor}"><title>{h(tip)}</title>')
        out.append(
            f'<rect x="{_f(cx - step_w / 2)}" y="{_f(top)}" width="{_f(step_w)}" '
            f'height="{_f(plot_h)}" fill="#ffffff" fill-opacity="0"/>'
        )
        for s, series in enumerate(chart.series if count <= DOTTED_POINTS or point.pivot else ()):
            out.append(
                f'<circle cx="{_f(cx)}" cy="{_f(y(series.values[i]))}" r="2.5" '
                f'fill="{_colour(chart, s)}"/>'
            )
        out.append("</a>")
    legend_x = LEFT + plot_w + 16
    pivot_row = top + 8 + len(chart.series) * LEGEND_ROW
    out.append(
        f'<line x1="{legend_x}" y1="{pivot_row}" x2="{legend_x + 18}" y2="{pivot_row}" '
        f'stroke="{PIVOT_COLOUR}" stroke-dasharray="4 3"/>'
    )
    out.append(f'<text x="{legend_x + 24}" y="{pivot_row + 4}">pivot: the leader changed</text>')
    for s, series in enumerate(chart.series):
        row_y = top + 8 + s * LEGEND_ROW
        colour = _colour(chart, s)
        final = series.values[-1] if series.values else 0.0
        indent = 10 if series.child else 0
        out.append(
            f'<line x1="{legend_x + indent}" y1="{row_y}" x2="{legend_x + indent + 18}" '
            f'y2="{row_y}" stroke="{colour}" stroke-width="3"{_dash(chart, s)}/>'
        )
        out.append(
            f'<text x="{legend_x + indent + 24}" y="{row_y + 4}">'
            f"{h(_short(series.hypothesis, 26 - indent // 5))} {final * 100:.0f}%</text>"
        )
    if chart.thinned:
        out.append(
            f'<text x="{LEFT}" y="{offset + panel - 6}" fill="#555555">{chart.thinned} smaller '
            "evidence steps not plotted (every pivot is)</text>"
        )
    out.append("</g>")
    return out


def _labelled(chart: Chart, plot_w: float) -> set[int]:
    """The points whose time is written under the axis, no two closer than the room a label
    needs: the ends first, then pivots, then evenly spaced others (at most :data:`LABELS`)."""
    count = len(chart.points)
    if count <= 1:
        return set(range(count))
    step = plot_w / (count - 1)
    gap = max(1, math.ceil(plot_w / (LABELS - 1) / step)) if count > LABELS else 1
    wanted = [0, count - 1]
    wanted += [i for i, p in enumerate(chart.points) if p.pivot]
    wanted += list(range(0, count, gap))
    chosen: list[int] = []
    for index in wanted:
        if all(abs(index - other) >= gap for other in chosen):
            chosen.append(index)
    return set(chosen)
