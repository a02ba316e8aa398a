"""Keys typed in one burst after ``/`` go to the case list's filter, not to the table.

``Widget.focus()`` gives focus on a later turn of the loop, so keys already queued behind the
``/`` (a fast typist, a paste, an agent driving the TUI through tmux) went to the table: the
letters moved its cursor and Enter opened whichever case was highlighted. The filter box now
takes focus as ``/`` is handled."""

from __future__ import annotations

from textual import events
from textual.widgets import DataTable, Input

from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
from casefile.tui.screens.case_list import CaseListScreen
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import build_app
from tests.tui.helpers import settle


async def test_a_burst_after_slash_filters_and_opens_nothing(db_url: str) -> None:
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        service.writer.new_case("Short", case_id="s")
    app = build_app(db_url, None)
    async with app.run_test(size=(160, 20)) as pilot:
        listing = app.screen
        assert isinstance(listing, CaseListScreen)
        table: DataTable[object] = listing.query_one("#cases", DataTable)
        await settle(pilot, lambda: table.row_count == 2)
        # one burst, as a terminal delivers a paste or tmux send-keys: queued before any runs
        for key, character in [("slash", "/"), ("S", "S"), ("h", "h"), ("o", "o"),
                               ("r", "r"), ("t", "t"), ("enter", "\r")]:  # fmt: skip
            app.post_message(events.Key(key, character))
        box = listing.query_one("#case-filter", Input)
        await settle(pilot, lambda: table.row_count == 1)
        assert box.value == "Short"
        assert app.screen is listing  # Enter filtered; it opened no case
        assert str(table.get_row_at(0)[0]) == "s"


async def test_a_slash_typed_into_the_filter_is_part_of_it(db_url: str) -> None:
    app = build_app(db_url, None)
    async with app.run_test(size=(160, 20)) as pilot:
        listing = app.screen
        assert isinstance(listing, CaseListScreen)
        table: DataTable[object] = listing.query_one("#cases", DataTable)
        await settle(pilot, lambda: table.row_count == 1)
        await pilot.press("slash", "a", "slash", "b")
        box = listing.query_one("#case-filter", Input)
        await settle(pilot, lambda: box.value == "a/b")
        assert box.has_focus
