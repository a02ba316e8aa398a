"""A dialog says what its own confirm key does: the jump dialog jumps, it records nothing."""

from __future__ import annotations

from casefile.tui.dialogs.form import FormDialog
from casefile.tui.dialogs.jump import JumpDialog
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, settle
from tests.tui.test_actions import fill


async def test_escape_on_a_typed_jump_says_ctrl_s_jumps(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("colon")
        await settle(pilot, lambda: isinstance(app.screen, JumpDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"where": "29"})
        await pilot.press("escape")
        await settle(pilot, lambda: bool(app._notifications))
        said = [n.message for n in app._notifications]
    assert any("ctrl+s: jump" in text for text in said), said
    assert not any("records" in text for text in said), said
