"""The trajectory chart keeps every series apart when a playbook has more hypotheses than the
palette has colours: a series that repeats a colour draws (and shows in its legend) another
dash pattern."""

from __future__ import annotations

import re

from casefile.report.model import Chart, ChartPoint, Ref, Series
from casefile.report.svg import PALETTE, render_svg


def chart(top: int, children: int) -> Chart:
    points = tuple(
        ChartPoint(Ref(seq, f"{seq:064x}"), "2026-01-05T09:00:00Z", False) for seq in (1, 2)
    )
    series = [Series(f"h{i}", f"hypothesis {i}", False, (0.1, 0.2)) for i in range(top)]
    series += [Series(f"c{i}", f"child {i}", True, (0.05, 0.1)) for i in range(children)]
    series.append(Series("q/catch-all", "something else", False, (0.1, 0.1)))
    return Chart("q", "What limits throughput?", points, tuple(series), (), 0)


def strokes(svg: str, element: str) -> list[tuple[str, str]]:
    """(colour, dash pattern) of each ``element`` that draws a series, in order."""
    found = []
    for tag in re.findall(rf"<{element} [^>]*>", svg):
        colour = re.search(r'stroke="([^"]+)"', tag)
        if colour is None or colour.group(1) in ("#dddddd", "#444444", "#c00000"):
            continue
        dash = re.search(r'stroke-dasharray="([^"]+)"', tag)
        found.append((colour.group(1), dash.group(1) if dash else ""))
    return found


def test_no_two_series_share_both_colour_and_dash() -> None:
    svg = render_svg([chart(len(PALETTE) + 4, 3)], standalone=True)
    lines = strokes(svg, "polyline")
    assert len(lines) == len(PALETTE) + 4 + 3 + 1
    assert len(set(lines)) == len(lines)


def test_each_legend_sample_draws_its_series_line() -> None:
    svg = render_svg([chart(len(PALETTE) + 2, 2)], standalone=True)
    legend = strokes(svg, "line")
    assert legend == strokes(svg, "polyline")


def test_a_chart_within_the_palette_keeps_solid_top_levels_and_dashed_children() -> None:
    lines = strokes(render_svg([chart(3, 2)], standalone=True), "polyline")
    assert [dash for _colour, dash in lines] == ["", "", "", "6 3", "6 3", "2 3"]
