"""New case and Import from the case list, with cases already listed: the list's reload when
the form closes must not cancel what the form asked for, and back on the list the new case is
there (also when the list was empty)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button

from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from casefile.tui.screens.case_list import CaseListScreen
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import REFERENCE, build_app
from tests.tui.helpers import settle
from tests.tui.test_actions import fill


def case_ids(url: str) -> list[str]:
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        return sorted(row.id for row in service.library.cases())


async def create_from_the_list(url: str) -> list[int]:
    """Create a case from the list, go back; the list's row counts before and after."""
    app = build_app(url, None)
    async with app.run_test(size=(160, 45)) as pilot:
        listing = app.screen
        assert isinstance(listing, CaseListScreen)
        await settle(pilot, lambda: listing.rows is not None)
        before = len(listing.rows or [])
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"title": "Slow decode on one GPU"})
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, CaseScreen))
        await pilot.press("b")
        await settle(pilot, lambda: app.screen is listing and len(listing.rows or []) > before)
        return [before, len(listing.rows or [])]


async def test_new_case_with_cases_listed_is_created_and_opened(db_url: str) -> None:
    assert await create_from_the_list(db_url) == [1, 2]
    assert len(case_ids(db_url)) == 2


async def test_new_case_from_an_empty_list_shows_on_the_list(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    assert await create_from_the_list(url) == [0, 1]


async def test_import_with_cases_listed_imports(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'other.db'}"
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        service.writer.new_case("Already here", case_id="here")
    app = build_app(url, None)
    async with app.run_test(size=(160, 45)) as pilot:
        listing = app.screen
        assert isinstance(listing, CaseListScreen)
        await settle(pilot, lambda: bool(listing.rows))
        await pilot.press("i")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        # its button says what it does (the label is set after the dialog is made)
        assert str(dialog.query_one("#form-confirm", Button).label) == "Import"
        fill(dialog, {"directory": str(REFERENCE)})
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: len(listing.rows or []) == 2)
    assert case_ids(url) == ["glm5-pcie-pivot", "here"]
