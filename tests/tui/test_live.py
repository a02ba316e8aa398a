"""Live: another process appends to the open case and the new event shows on screen, on SQLite
(change token polling) and on PostgreSQL (LISTEN/NOTIFY); a write of ours after theirs lands on
the refreshed fold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
from casefile.tui.screens.case import CaseScreen
from casefile.tui.widgets.status_bar import StatusBar
from casefile.tui.widgets.timeline import Timeline
from tests.cli.conftest import builtin_registry
from tests.store.conftest import postgres_server, postgres_url  # noqa: F401  (fixtures)
from tests.tui.conftest import CASE, REFERENCE, build_app
from tests.tui.helpers import settle

CASEFILE = Path(sys.executable).with_name("casefile")


def other_writer(url: str, text: str) -> None:
    env = {**os.environ, "CASEFILE_DB": url}
    done = subprocess.run(
        [str(CASEFILE), "note", CASE, text, "--actor", "bob"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


async def follow_another_writer(url: str) -> None:
    app = build_app(url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        other_writer(url, "seen from another terminal")
        timeline = screen.query_one(Timeline)
        await settle(pilot, lambda: timeline.row_count() == 82)
        assert timeline.chosen_seq() == 82  # live follows the newest event
        row = timeline.row_at(81)
        assert row is not None and "seen from another terminal" in row.summary
        assert screen.query_one(StatusBar).status.writers == ("bob",)
        # our own write now goes on top of theirs
        await pilot.press("n")
        await pilot.pause()
        from tests.tui.test_actions import fill

        dialog = app.screen
        fill(dialog, {"text": "and one of ours"})  # type: ignore[arg-type]
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: timeline.row_count() == 83)
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        assert [e.actor for e in service.reader.events(CASE, after=81)] == ["bob", "user"]


async def test_sqlite_another_process_appends(db_url: str) -> None:
    await follow_another_writer(db_url)


@pytest.mark.postgres
async def test_postgresql_another_process_appends(postgres_url: str) -> None:  # noqa: F811
    with CaseService(SqlEventStore(postgres_url), builtin_registry()) as service:
        service.library.import_directory(REFERENCE)
    await follow_another_writer(postgres_url)
