"""The HTML writer: one self-contained page, readable without JavaScript or the network.

No script, no external URL of any kind (no font, no stylesheet, no image: the chart is inline
SVG), and a Content-Security-Policy that forbids loading anything, so even a browser that met
markup we failed to escape would fetch nothing and run nothing. Text from the case goes
through :func:`~casefile.report.escape.h`. Tables use a fixed layout and wrap long words, so
printing on A4 clips none of them.
"""

from __future__ import annotations

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
from casefile.report.escape import h
from casefile.report.layout import layout
from casefile.report.model import Ref, Report
from casefile.report.svg import render_svg

POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"

STYLE = """
@page { size: A4; margin: 12mm; }
html { font-family: sans-serif; color: #111111; background: #ffffff; }
body { max-width: 1120px; margin: 0 auto; padding: 16px; font-size: 13px; line-height: 1.4; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 22px 0 6px; border-bottom: 1px solid #cccccc; }
table { width: 100%; border-collapse: collapse; table-layout: fixed; margin: 6px 0 14px; }
th, td { border: 1px solid #cccccc; padding: 3px 5px; vertical-align: top; text-align: left;
  overflow-wrap: anywhere; word-break: break-word; }
th { background: #f0f0f0; }
tr { break-inside: avoid; }
thead { display: table-header-group; }
tr:target { background: #fff3c4; }
code, pre { font-family: monospace; font-size: 11px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f7f7f7; padding: 6px;
  border: 1px solid #dddddd; margin: 2px 0 12px; }
figure { margin: 8px 0; }
figcaption { font-size: 12px; color: #333333; }
svg.trajectory { display: block; max-width: 100%; height: auto; }
a.ref { color: #0b4f8a; text-decoration: none; }
@media print {
  body { max-width: none; padding: 0; font-size: 9pt; }
  table { font-size: 8pt; }
  a, a.ref { color: inherit; }
  h2 { break-after: avoid; }
  figure { break-inside: avoid; }
  details { display: block; }
}
""".strip()


class _Writer:
    def __init__(self, anchors: set[str]) -> None:
        self.anchors = anchors

    def spans(self, cell: Cell) -> str:
        out = []
        for span in cell:
            if isinstance(span, Ref):
                label = h(span.label)
                if span.anchor in self.anchors:
                    out.append(f'<a class="ref" href="#{span.anchor}"><code>{label}</code></a>')
                else:
                    out.append(f"<code>{label}</code>")
            elif isinstance(span, Strong):
                out.append(f"<strong>{h(span.text)}</strong>")
            elif isinstance(span, Mono):
                out.append(f"<code>{h(span.text)}</code>")
            else:
                out.append(h(span))
        return "".join(out)

    def table(self, table: Table) -> list[str]:
        out = ["<table>"]
        if table.widths:
            out.append(
                "<colgroup>"
                + "".join(f'<col style="width:{w}%">' for w in table.widths)
                + "</colgroup>"
            )
        if any(table.headers):
            cells = "".join(f"<th>{h(x)}</th>" for x in table.headers)
            out.append(f"<thead><tr>{cells}</tr></thead>")
        out.append("<tbody>")
        for n, row in enumerate(table.rows):
            anchor = table.anchors[n] if n < len(table.anchors) else None
            opening = f'<tr id="{h(anchor)}">' if anchor else "<tr>"
            also = table.also[n] if n < len(table.also) else ()
            marks = "".join(f'<span id="{h(a)}"></span>' for a in also)
            tds = [f"<td>{marks if i == 0 else ''}{self.spans(c)}</td>" for i, c in enumerate(row)]
            out.append(opening + "".join(tds) + "</tr>")
        out.append("</tbody></table>")
        return out

    def block(self, block: Block) -> list[str]:
        if isinstance(block, Heading):
            return [f'<h{block.level} id="{h(block.anchor)}">{h(block.text)}</h{block.level}>']
        if isinstance(block, Para):
            return [f"<p>{self.spans(block.spans)}</p>"]
        if isinstance(block, Table):
            return self.table(block)
        if isinstance(block, Bullets):
            items = "".join(f"<li>{self.spans(item)}</li>" for item in block.items)
            return [f"<ul>{items}</ul>"]
        if isinstance(block, Code):
            body = "\n".join(h(line) for line in block.lines)
            return [
                f"<figure><figcaption>{self.spans(block.caption)}</figcaption>"
                f"<pre>{body}</pre></figure>"
            ]
        if isinstance(block, ChartBlock):
            return ["<figure>", render_svg(block.charts, standalone=False).rstrip(), "</figure>"]
        if isinstance(block, Fold):
            inner = [line for b in block.blocks for line in self.block(b)]
            return [f"<details><summary>{h(block.summary)}</summary>", *inner, "</details>"]
        raise TypeError(f"unknown block {block!r}")


def render_html(report: Report) -> str:
    blocks = layout(report)
    flat = [i for b in blocks for i in (b.blocks if isinstance(b, Fold) else (b,))]
    anchors = {a for b in flat if isinstance(b, Table) for a in b.anchors if a}
    anchors |= {a for b in flat if isinstance(b, Table) for group in b.also for a in group}
    writer = _Writer(anchors)
    body = [line for block in blocks for line in writer.block(block)]
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{h('Postmortem: ' + report.summary.title)}</title>",
        f"<style>\n{STYLE}\n</style>",
        "</head>",
        "<body>",
    ]
    digest = f"<p><code>{unsealed()}</code></p>"  # filled in by casefile.report.render
    return "\n".join([*head, *body, digest, "</body>", "</html>"]) + "\n"
