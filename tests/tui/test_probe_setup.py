"""A run pasted from another setup, from the TUI's probe dialog: recorded with its setup and
read by no rule, exactly as ``casefile probe --setup`` records it; a label it cannot keep is an
inline message and records nothing."""

from __future__ import annotations

from casefile.tui.dialogs.form import FormDialog
from tests.triage.conftest import nccl_table
from tests.tui.helpers import open_form, recorded, settle
from tests.tui.test_actions import events_after, fill


async def test_a_paste_from_another_setup_is_kept_and_read_by_no_rule(db_url: str) -> None:
    from tests.tui.conftest import build_app

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        fill(
            dialog,
            {
                "probe": "nccl-tests",
                "paste": nccl_table(19.0, "NVIDIA A40"),
                "setup": "NCCL 2.22 (the fast version)",
            },
        )
        await pilot.pause()
        assert dialog.problem is None, dialog.problem
        shown = str(dialog.query_one("#form-command").render())
        assert "--setup 'NCCL 2.22 (the fast version)'" in shown
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    appended = events_after(db_url, 81)
    assert [kind for kind, _p, _a in appended] == ["probe.ran", "observation.recorded"]
    assert appended[0][1]["conditions"]["setup"] == "NCCL 2.22 (the fast version)"


async def test_a_setup_label_with_a_control_character_is_an_inline_message(db_url: str) -> None:
    from tests.tui.conftest import build_app

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        fill(dialog, {"probe": "nccl-tests", "paste": "x\n", "setup": "NCCL\x1b[2J 2.22"})
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, FormDialog)
        assert dialog.problem is not None and "one line of printable text" in dialog.problem
    assert events_after(db_url, 81) == []
