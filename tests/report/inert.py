"""Checks that a rendered report is inert: what tags it has, where links point, what it says."""

from __future__ import annotations

from html.parser import HTMLParser

#: every element the HTML report (and Markdown rendered by markdown-it) may contain
ALLOWED_TAGS = frozenset(
    [
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "h1",
        "details",
        "summary",
        "span",
        "h2",
        "h3",
        "p",
        "table",
        "colgroup",
        "col",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "code",
        "a",
        "strong",
        "em",
        "ul",
        "ol",
        "li",
        "figure",
        "figcaption",
        "pre",
        "svg",
        "rect",
        "line",
        "text",
        "g",
        "polyline",
        "circle",
        "img",
        "br",
    ]
)


class Inspector(HTMLParser):
    """Collects tags, attributes and text; ``img`` is allowed only for Markdown's chart link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.text: list[str] = []
        self.rows: list[int] = []
        self._cells = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))
        if tag == "tr":
            self._cells = 0
        elif tag in ("td", "th"):
            self._cells += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr":
            self.rows.append(self._cells)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def inspect(html: str) -> Inspector:
    inspector = Inspector()
    inspector.feed(html)
    inspector.close()
    return inspector


def markdown_to_html(text: str) -> str:
    """CommonMark with GitHub tables, as GitHub and most viewers render it."""
    from markdown_it import MarkdownIt

    rendered: str = MarkdownIt("commonmark").enable("table").render(text)
    return rendered
