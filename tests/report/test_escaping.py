"""Hostile text (issue 10): a ``|``, backticks, ``<script>``, an HTML entity or a terminal
escape in any text field of a case renders inert in Markdown and HTML alike."""

from __future__ import annotations

import re

import pytest

from casefile.report import ReportOptions, build_report, render, render_chart
from tests.report.cases import Planted, build_case
from tests.report.inert import ALLOWED_TAGS, Inspector, inspect, markdown_to_html

SCRIPT = "<script>alert(1)</script>"
HOSTILE = [
    f"a|b `tick` {SCRIPT} &amp; -->",
    "\x1b[2J\x1b]0;owned\x07 \x9b31m ```fence``` <img src=//evil.example/x.png onerror=alert(1)>",
    "[click](http://evil.example/) ![i](https://evil.example/i.png) **bold** _it_ ~~gone~~",
    "# heading | - item | 1. one | > quote | \u202egnp.exe",
]


@pytest.fixture(scope="module")
def hostile() -> Planted:
    return build_case(
        HOSTILE,
        actor="mallory",
        host="box-1",
        argv=["sh", "-c", "echo '|' `id` <script>", "\x1b[31m"],
    )


@pytest.fixture(scope="module")
def outputs(hostile: Planted) -> dict[str, str]:
    report = build_report(hostile.service, hostile.case_id, ReportOptions())
    return {
        "md": render(report, "md", chart_file="r.svg").decode(),
        "html": render(report, "html").decode(),
        "svg": render_chart(report).decode(),
    }


def check_inert(page: Inspector, where: str) -> None:
    assert set(page.tags) <= ALLOWED_TAGS, (where, set(page.tags) - ALLOWED_TAGS)
    for tag, name, value in page.attributes:
        assert not name.startswith("on"), (where, tag, name)
        if name in ("href", "src"):
            assert value.startswith("#") or (tag == "img" and value == "r.svg"), (where, value)
        assert "javascript" not in value.lower(), (where, tag, name)
    text = "".join(page.text)
    assert SCRIPT in text  # shown as text: escaped, not dropped
    assert "<img src=//evil.example/x.png" in text
    assert "\x1b" not in text and "\x9b" not in text and "\u202e" not in text


@pytest.mark.parametrize("fmt", ["md", "html", "svg"])
def test_no_control_character_reaches_the_file(outputs: dict[str, str], fmt: str) -> None:
    data = outputs[fmt]
    assert re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", data) is None
    assert "\\x1b[2J" in data  # made visible instead


def test_html_is_inert(outputs: dict[str, str]) -> None:
    page = inspect(outputs["html"])
    check_inert(page, "html")
    assert "<script" not in outputs["html"].lower()


def test_svg_is_inert(outputs: dict[str, str]) -> None:
    assert "<script" not in outputs["svg"].lower()
    for href in re.findall(r'href="([^"]*)"', outputs["svg"]):
        assert href.startswith("#ev-")


def test_markdown_renders_inert_with_every_table_whole(outputs: dict[str, str]) -> None:
    html = markdown_to_html(outputs["md"])
    page = inspect(html)
    check_inert(page, "markdown")
    # raw output sits verbatim in fenced blocks (code, never markup); nowhere else
    outside = re.sub(r"^(`{3,})text\n.*?^\1$", "", outputs["md"], flags=re.S | re.M)
    assert outside != outputs["md"]
    assert "<script" not in outside.lower()
    # each table's rows have as many cells as its header: no `|` split a cell
    for table in re.findall(r"<table>.*?</table>", html, flags=re.S):
        counts = inspect(table).rows
        assert counts and len(set(counts)) == 1, counts
    # every hostile string reached the rendered text intact (nothing became markup)
    text = "".join(page.text)
    for line in ("a|b `tick`", "**bold** _it_ ~~gone~~", "# heading | - item | 1. one | > quote"):
        assert line in text, line
    assert "```fence```" in text


def test_markdown_tables_have_the_header_s_pipe_count(outputs: dict[str, str]) -> None:
    """The same, read as text: every row of a table has as many unescaped pipes as its header."""
    lines = outputs["md"].splitlines()
    for index, line in enumerate(lines):
        if line.startswith("|---"):
            want = _pipes(lines[index - 1])
            for row in lines[index + 1 :]:
                if not row.startswith("|"):
                    break
                assert _pipes(row) == want, row


def _pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line.replace("\\\\", "")))
