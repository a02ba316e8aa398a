"""The case screen's chain check compares the stored snapshot with the history fold the board
already holds, instead of folding the case a second time beside it (at 100,000 events that
second fold took the TUI from 1.1 GB to 1.8 GB)."""

from __future__ import annotations

from typing import Any

import pytest

from casefile.app import fold_cache
from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
from casefile.tui.widgets.status_bar import StatusBar
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import CASE, build_app
from tests.tui.helpers import case_ready, settle


@pytest.mark.parametrize("grown", [0, 2])
async def test_the_snapshot_is_checked_against_the_boards_fold(
    db_url: str, monkeypatch: pytest.MonkeyPatch, grown: int
) -> None:
    """``grown``: notes added after the snapshot was saved (a note from the CLI saves none),
    which the check folds onto the snapshot to compare it with the board's fold."""
    monkeypatch.setattr(fold_cache, "SNAPSHOT_AFTER", 5)
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        service.reader.status(CASE)  # the case's fold is saved as a snapshot when closed
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        for n in range(grown):
            service.writer.note(CASE, f"added after the snapshot {n}")
    checks: list[Any] = []
    refolds: list[int] = []
    check, refold = fold_cache.check_snapshot, fold_cache.state_by_pages

    def checked(*args: Any, **kwargs: Any) -> Any:
        checks.append(check(*args, **kwargs))
        return checks[-1]

    def refolded(*args: Any, **kwargs: Any) -> Any:
        refolds.append(args[2])
        return refold(*args, **kwargs)

    monkeypatch.setattr(fold_cache, "check_snapshot", checked)
    monkeypatch.setattr(fold_cache, "state_by_pages", refolded)
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        bar = app.screen.query_one(StatusBar)
        await settle(pilot, lambda: "verifies" in bar.status.chain)
    assert [(c.seq, c.matches, c.carried) for c in checks] == [(81, True, grown)]
    assert refolds == []
