"""The reference case's HTML report in a real browser (issue 10): headless Chromium renders it
with no network request and no console error, the page is not blank, the chart has drawn
pixels, and printed to PDF on A4 no table is clipped. ``bash .ci/run`` installs Chromium
(Debian's ``chromium``) when it is missing; without it these tests are skipped, saying why.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from casefile.report import ReportOptions, build_report, render
from tests.report.browser import Image, chromium, find_chromium, read_png, screenshot
from tests.report.cases import REFERENCE, service_with

BINARY = find_chromium()
needs_chromium = pytest.mark.skipif(
    BINARY is None, reason="no Chromium: install Debian's `chromium` (bash .ci/run does)"
)

#: A4's printable width at the report's 12 mm margins, in CSS pixels (96 per inch)
A4_CONTENT_PX = round((210 - 2 * 12) / 25.4 * 96)

MEASURE = """JSON.stringify({
  page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
  tables: [...document.querySelectorAll('table')]
    .filter(t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right >
            document.documentElement.clientWidth + 1)
    .map(t => t.previousElementSibling ? t.previousElementSibling.textContent : '?'),
  cells: [...document.querySelectorAll('td, th, pre')]
    .filter(c => c.scrollWidth > c.clientWidth + 1).length,
})"""

CHART_BOX = """JSON.stringify((() => {
  const r = document.querySelector('svg.trajectory').getBoundingClientRect();
  return [r.x, r.y + window.scrollY, r.width, r.height];
})())"""


@pytest.fixture(scope="module")
def html_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    service, case_id = service_with(REFERENCE)
    report = build_report(service, case_id, ReportOptions())
    path = tmp_path_factory.mktemp("browser") / "glm5-pcie-pivot.html"
    path.write_bytes(render(report, "html"))
    return path


def test_the_html_names_no_url_and_has_no_script(html_file: Path) -> None:
    text = html_file.read_text()
    assert "<script" not in text.lower()
    assert re.search(r"https?:", text) is None
    assert re.search(r"(?<![:\w])//\w", text) is None  # no protocol-relative URL either
    assert re.search(r"@import|url\(|@font-face", text) is None
    for value in re.findall(r'(?:href|src)="([^"]*)"', text):
        assert value.startswith("#"), value


def _coloured(image: Image) -> int:
    """Pixels of a saturated colour (the chart's lines and points; text is grey or black)."""
    return sum(1 for p in image.pixels() if max(p[:3]) - min(p[:3]) > 80)


def _not_white(image: Image) -> int:
    return sum(1 for p in image.pixels() if min(p[:3]) < 200)


@needs_chromium
def test_renders_without_network_or_errors_and_draws_the_chart(
    html_file: Path, tmp_path: Path
) -> None:
    assert BINARY is not None
    url = html_file.as_uri()
    with chromium(BINARY) as tools:
        tools.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )
        tools.call("Page.navigate", {"url": url})
        tools.wait_for("Page.loadEventFired")
        top = screenshot(tools, 0, 0, 1200, 900, 0.5)
        x, y, width, height = __import__("json").loads(tools.evaluate(CHART_BOX))
        chart = screenshot(tools, x, y, width, height, 0.5)
        page = tools.page_record()
    (tmp_path / "top.png").write_bytes(top)
    (tmp_path / "chart.png").write_bytes(chart)
    assert page.requests == [url], page.requests
    assert page.console == [], page.console
    assert "ERR_NAME_NOT_RESOLVED" not in tools.stderr
    assert re.search(r"CONSOLE\(\d+\)", tools.stderr) is None, tools.stderr[-2000:]
    whole = read_png(top)
    assert (whole.width, whole.height) == (600, 450)
    assert _not_white(whole) > 0.03 * whole.width * whole.height  # text, tables, the chart
    drawn = read_png(chart)
    assert drawn.width > 300 and drawn.height > 80
    assert _coloured(drawn) > 400  # the series' lines and points


@needs_chromium
def test_a_request_would_be_seen(tmp_path: Path) -> None:
    """The check above can fail: a page that loads an image is caught (and resolves nothing)."""
    assert BINARY is not None
    page_file = tmp_path / "leak.html"
    page_file.write_text('<!DOCTYPE html><img src="http://canary.invalid/x.png"><p>x</p>')
    with chromium(BINARY) as tools:
        tools.call("Page.navigate", {"url": page_file.as_uri()})
        tools.wait_for("Page.loadEventFired")
        page = tools.page_record()
    assert "http://canary.invalid/x.png" in page.requests
    assert page.console  # the failed load is logged


@needs_chromium
def test_prints_on_a4_with_no_table_clipped(html_file: Path, tmp_path: Path) -> None:
    assert BINARY is not None
    with chromium(BINARY) as tools:
        tools.call("Page.navigate", {"url": html_file.as_uri()})
        tools.wait_for("Page.loadEventFired")
        pdf = tools.call("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True})[
            "data"
        ]
        tools.call("Emulation.setEmulatedMedia", {"media": "print"})
        tools.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": A4_CONTENT_PX, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
        )
        measured = __import__("json").loads(tools.evaluate(MEASURE))
    data = __import__("base64").b64decode(pdf)
    (tmp_path / "report.pdf").write_bytes(data)
    assert data.startswith(b"%PDF")
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert boxes and all(
        abs(float(w) - 595.3) < 1.5 and abs(float(h) - 841.9) < 1.5 for w, h in boxes
    )
    assert len(boxes) >= 3  # several A4 pages
    assert measured["page"][0] <= measured["page"][1], measured
    assert measured["tables"] == [], measured
    assert measured["cells"] == 0, measured
