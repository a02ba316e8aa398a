"""The Markdown writer: the layout as CommonMark with GitHub tables.

Text from the case goes through :func:`~casefile.report.escape.md` (one line, its syntax and
``<``/``&`` escaped), so no note or probe output can end a table cell or become markup; raw
output sits in fenced blocks whose fence is longer than any backtick run inside. The chart is
the SVG file written beside the report (``chart_file``); without one (``-o -``) the report says
so and the table of numbers at each pivot carries the chart's information.
"""

from __future__ import annotations

from urllib.parse import quote

from casefile.report.blocks import (
    Block,
    Bullets,
    Cell,
    ChartBlock,
    Code,
    Fold,
    Heading,
    Mono,
    Para,
    Strong,
    Table,
)
from casefile.report.digest import unsealed
from casefile.report.escape import md, md_code, md_fence, md_start
from casefile.report.layout import layout
from casefile.report.model import Ref, Report


def _spans(cell: Cell, start: bool = False) -> str:
    """Inline Markdown; ``start``: the text opens a block (a paragraph, a list item)."""
    out = []
    for span in cell:
        if isinstance(span, Ref):
            out.append(f"`{span.label}`")
        elif isinstance(span, Strong):
            out.append(f"**{md(span.text)}**")
        elif isinstance(span, Mono):
            out.append(md_code(span.text))
        else:
            out.append(md_start(md(span)) if start and not out else md(span))
    return "".join(out)


def _table(table: Table) -> list[str]:
    headers = [md(h) or " " for h in table.headers]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in table.rows:
        lines.append("| " + " | ".join(_spans(cell) or " " for cell in row) + " |")
    return lines


def _block(block: Block, chart_file: str | None) -> list[str]:
    if isinstance(block, Heading):
        return ["#" * block.level + " " + md(block.text)]
    if isinstance(block, Para):
        return [_spans(block.spans, start=True)]
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Bullets):
        return ["- " + _spans(item, start=True) for item in block.items]
    if isinstance(block, Code):
        return [_spans(block.caption, start=True), "", md_fence(list(block.lines))]
    if isinstance(block, ChartBlock):
        if chart_file is None:
            return [
                "_The chart was not written: the report went to standard output. The numbers "
                "at each pivot are below._"
            ]
        return [f"![Confidence trajectory]({quote(chart_file)})"]
    if isinstance(block, Fold):
        inner = ["\n".join(_block(b, chart_file)) for b in block.blocks]
        return ["\n\n".join([f"_{md(block.summary)}_", *inner])]
    raise TypeError(f"unknown block {block!r}")


def render_markdown(report: Report, chart_file: str | None = None) -> str:
    """The report, its last line the place of its digest (:func:`casefile.report.render`
    fills it in)."""
    parts = ["\n".join(_block(block, chart_file)) for block in layout(report)]
    return "\n\n".join([*parts, unsealed()]) + "\n"
