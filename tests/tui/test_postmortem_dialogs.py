"""The postmortem's dialogs come from its action rows (issue 25, "What to build" 2): opened
from the palette's entry, they record what the CLI's ``casefile postmortem …`` records, and
echo that command line."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from casefile.actions.spec import command_line
from casefile.actions.table import BY_NAME
from casefile.cli.main import main
from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from tests.tui.conftest import CASE, build_app
from tests.tui.helpers import settle
from tests.tui.test_actions import events_after, fill

VALUES = {
    "postmortem-section": {"section": "went-badly", "text": "we built on\nan unmeasured belief"},
    "postmortem-item": {"text": "alert on tok/s", "owner": "ana", "priority": "P1"},
    "postmortem-about": {"authors": "ana\nbo", "review_date": "2026-03-09"},
}


@pytest.mark.parametrize("name", sorted(VALUES))
async def test_a_postmortem_dialog_records_what_its_command_records(
    name: str, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    twin = tmp_path / "twin.db"
    shutil.copy(db_url.removeprefix("sqlite:///"), twin)
    head = len(events_after(db_url, 0))
    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        await app.screen.run_action(f"write('{name}')")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, VALUES[name])
        assert dialog.problem is None, dialog.problem
        request = dialog.request
        await pilot.press("ctrl+s")
        screen = app.screen_stack[-1]
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and bool(app.screen.commands)
        )
        command = screen.commands[-1]  # type: ignore[attr-defined]
    tui = events_after(db_url, head)
    assert [t for t, _p, _a in tui] == [f"postmortem.{name.split('-')[1]}"]
    assert command == command_line(BY_NAME[name], request, CASE, "alice")
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{twin}")
    assert main(shlex.split(command)[1:]) == 0
    assert events_after(f"sqlite:///{twin}", head) == tui
