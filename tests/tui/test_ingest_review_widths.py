"""The ingest review's columns fit their cells even when the screen draws before the table
could measure its rows (issue 25): the review sets its rows in one go as it mounts, and a
table left to size its columns measures them only when its queue is next idle, so on a loaded
machine the frames drawn until then showed the probe, host and text columns cut to their
headers ("# GL" for a note's text)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import DataTable

from casefile.tui.dialogs.ingest import IngestDialog
from casefile.tui.screens.ingest_review import IngestReviewScreen
from tests.ingest.samples import MARKDOWN
from tests.tui.conftest import build_app
from tests.tui.helpers import open_form
from tests.tui.test_actions import fill
from tests.tui.test_case_list_widths import measured, shown, wait


async def test_a_review_drawn_before_its_table_measured_is_not_cut(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "story.md"
    source.write_text(MARKDOWN)
    free = asyncio.Event()
    mounted = IngestReviewScreen.on_mount

    def busy_then_mount(review: IngestReviewScreen) -> None:
        # the table's queue busy as the rows go in, as on a loaded machine: no idle, no
        # measuring until the test frees it
        review.query_one(DataTable).call_later(free.wait)
        mounted(review)

    monkeypatch.setattr(IngestReviewScreen, "on_mount", busy_then_mount)
    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(200, 45)) as pilot:
        dialog = await open_form(pilot, "t")
        assert isinstance(dialog, IngestDialog)
        fill(dialog, {"path": str(source), "load": "under-load"})
        app.simulate_key("ctrl+s")  # not Pilot's press: it waits for every queue, the table's too
        await wait(lambda: isinstance(app.screen, IngestReviewScreen), "no review")
        review = app.screen
        assert isinstance(review, IngestReviewScreen)
        await wait(lambda: review.query(DataTable), "the review never composed")
        table: DataTable[Text] = review.query_one(DataTable)
        await wait(lambda: table.row_count and table.size.width, "the review never drew")
        app.export_screenshot()  # a frame now, before the table could measure
        first_frame = shown(table)
        free.set()
        await wait(measured(table), "the table never measured its rows")
        assert table.row_count == len(review.proposal.items) > 1
        for lines in (first_frame, shown(table)):
            for index in range(table.row_count):
                for cell in table.get_row_at(index):
                    assert str(cell) in lines[index + 1], (str(cell), lines[index + 1])
