"""The case list's columns fit their cells even when the screen draws before the table has
measured its new rows (issue 25: on a loaded machine every column of the list could be cut
to its header's width, "glm5", "comput", "Secon").

Textual's DataTable measures added rows when its own message queue is idle, and caches what
it draws keyed on its update count, not on the columns' widths: a frame drawn between the
fill and that measurement kept the header widths until the next change to the table. The
test holds the table's queue busy (as a loaded machine does), lets the list fill from its
real loader, draws the screen, then frees the table and reads what it draws."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from rich.text import Text
from textual.widgets import DataTable

from casefile.app.service import CaseService
from casefile.app.views import CaseRow
from casefile.store.sql import SqlEventStore
from casefile.tui.app import CasefileApp
from casefile.tui.screens.case_list import CaseListScreen
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import build_app
from tests.tui.helpers import SLACK_S, settle


async def wait(condition: Callable[[], object], what: str) -> None:
    """Poll with plain sleeps: Pilot's pause waits for every widget's queue, and the test
    holds the table's on purpose."""
    deadline = time.monotonic() + SLACK_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        await asyncio.sleep(0.02)


def gate_the_row_source(app: CasefileApp) -> threading.Event:
    """Hold the list's loader on the case thread until the returned event is set."""
    library = app.backend.service.library
    cases = library.cases
    opened = threading.Event()

    def held(*, with_leaders: bool = False) -> list[CaseRow]:
        opened.wait(SLACK_S)
        return cases(with_leaders=with_leaders)

    library.cases = held  # type: ignore[method-assign]
    return opened


def measured(table: DataTable[Text]) -> Callable[[], bool]:
    """Whether the table has measured its rows: each column as wide as its widest cell."""

    def done() -> bool:
        rows = [table.get_row_at(index) for index in range(table.row_count)]
        return bool(rows) and all(
            column.content_width >= Text(str(row[index])).cell_len
            for row in rows
            for index, column in enumerate(table.ordered_columns)
        )

    return done


def shown(table: DataTable[Text]) -> list[str]:
    """The text of the header and of each row, as the table draws them now."""
    return [table.render_line(y).text for y in range(table.row_count + 1)]


async def test_the_first_fill_drawn_before_the_table_measured_it_is_not_cut(
    db_url: str,
) -> None:
    app = build_app(db_url, None)
    opened = gate_the_row_source(app)
    async with app.run_test(size=(200, 20)):
        listing = app.screen
        assert isinstance(listing, CaseListScreen)
        table: DataTable[Text] = listing.query_one("#cases", DataTable)
        await wait(lambda: table.columns and table.size.width, "the list never drew its table")

        free = asyncio.Event()
        table.call_later(free.wait)  # the table's queue is busy: no idle, no measuring
        opened.set()
        await wait(lambda: table.row_count, "the list never filled")
        app.export_screenshot()  # the screen draws now, as its refresh timer may
        free.set()
        await wait(measured(table), "the table never measured its rows")

        lines = shown(table)
        for row_index, row in enumerate(listing.rows, start=1):
            cells = [str(cell) for cell in table.get_row_at(row_index - 1)]
            assert row.id in cells
            for cell, column in zip(cells, table.ordered_columns, strict=True):
                assert column.get_render_width(table) >= Text(cell).cell_len, column.key
                assert cell in lines[row_index], (cell, lines[row_index])


async def test_a_reload_drawn_early_is_not_cut(db_url: str) -> None:
    """A reload (back from a case, an import finishing) races the same way."""
    app = build_app(db_url, None)
    async with app.run_test(size=(200, 20)):
        listing = app.screen
        assert isinstance(listing, CaseListScreen)
        table: DataTable[Text] = listing.query_one("#cases", DataTable)
        await wait(lambda: table.row_count, "the list never filled")
        free = asyncio.Event()
        table.call_later(free.wait)
        rows = listing.rows
        listing.action_reload()
        await wait(lambda: listing.rows is not rows, "the list never reloaded")
        app.export_screenshot()
        free.set()
        await wait(measured(table), "the table never measured its rows")
        lines = shown(table)
        for row_index in range(table.row_count):
            for cell in table.get_row_at(row_index):
                assert str(cell) in lines[row_index + 1], (str(cell), lines[row_index + 1])


async def test_the_columns_stay_put_while_filtering(db_url: str) -> None:
    """Widths come from every case, not only those the filter keeps: filtering down to a
    short case does not narrow the columns (nor does clearing the filter widen them)."""
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        service.writer.new_case("Short", case_id="s")
    app = build_app(db_url, None)
    async with app.run_test(size=(200, 20)) as pilot:
        listing = app.screen
        assert isinstance(listing, CaseListScreen)
        table: DataTable[Text] = listing.query_one("#cases", DataTable)
        await settle(pilot, lambda: table.row_count == 2)
        widths = [column.get_render_width(table) for column in table.ordered_columns]
        await pilot.press("slash", "S", "h", "o", "r", "t", "enter")
        await settle(pilot, lambda: table.row_count == 1)
        assert str(table.get_row_at(0)[0]) == "s"
        assert [column.get_render_width(table) for column in table.ordered_columns] == widths
        assert "glm5-pcie-pivot" not in shown(table)[0]
        assert shown(table)[0].split() == [
            "case",
            "leader",
            "events",
            "last",
            "activity",
            "title",
            "symptom",
        ]
