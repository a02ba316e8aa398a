"""A dialog composes for its first frame only the fields in view, and mounts those below the
fold right after it (issue 25: composing and styling every field of the probe dialog was most of
its opening). What it checks, echoes and lets Tab reach is the same as with every field there."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from casefile.tui.app import CasefileApp
from casefile.tui.dialogs.form import Field, FormDialog, first_frame
from casefile.tui.dialogs.probe import ProbeDialog
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, poll_until, settle

SIZE = (160, 45)


def field_ids(dialog: FormDialog[Any]) -> list[str]:
    return [str(w.id) for w in dialog.query("#form-fields Input, #form-fields TextArea")]


async def open_probe_dialog(app: CasefileApp, pilot: Pilot[None]) -> ProbeDialog:
    """The case screen settled, then ``p``: the probe dialog, once it is the screen."""
    await settle(pilot, case_ready(app))
    await pilot.press("p")
    await poll_until(pilot, lambda: isinstance(app.screen, ProbeDialog))
    dialog = app.screen
    assert isinstance(dialog, ProbeDialog)
    return dialog


def test_the_first_frame_holds_the_fields_in_view() -> None:
    inputs = [Field(f"f{n}", f"field {n}") for n in range(8)]
    assert first_frame(inputs, lambda spec: 0, 45) == 4  # 18 rows in view: 5 a field
    assert first_frame(inputs, lambda spec: 10 if spec.name == "f0" else 0, 45) == 2
    assert first_frame(inputs[:3], lambda spec: 0, 45) == 3  # all in view: all at once
    assert first_frame(inputs, lambda spec: 0, 24) == 2


async def test_the_probe_dialog_mounts_the_fields_below_the_fold_after_its_first_frame(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    at_first_frame: list[list[str]] = []
    original = FormDialog.mount_rest

    def mount_rest(self: FormDialog[Any]) -> None:
        if not at_first_frame:
            at_first_frame.append(field_ids(self))
        original(self)

    monkeypatch.setattr(FormDialog, "mount_rest", mount_rest)
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_probe_dialog(app, pilot)
        await poll_until(pilot, lambda: dialog.complete, what="the rest was never mounted")
        names = [f"field-{spec.name}" for spec in dialog.fields]
        assert at_first_frame == [["field-probe", "field-load"]]
        assert field_ids(dialog) == names  # in the fields' order
        labels = [str(label.render()) for label in dialog.query(".form-label")]
        assert labels == [spec.label for spec in dialog.fields]
        await pilot.pause()
        scroll = dialog.query_one("#form-fields")
        assert scroll.styles.overflow_y == "auto"  # as every dialog's: the bar while it scrolls
        assert scroll.max_scroll_y > 0


async def test_before_the_rest_is_mounted_the_form_checks_echoes_and_tabs_as_it_will_after(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frame after the first may come late on a busy machine, or a key before it: the
    fields not mounted yet count with what they open with, and Tab or Enter mounts them
    before it moves the focus."""
    monkeypatch.setattr(FormDialog, "after_first_frame", lambda self: None)
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_probe_dialog(app, pilot)
        await pilot.pause()
        assert not dialog.complete
        dialog.query_one("#field-probe", Input).value = "lspci"
        await poll_until(pilot, lambda: dialog.request is not None)
        before = (dialog.values(), dialog.request)
        command = str(dialog.query_one("#form-command").render())
        assert command.startswith("$ casefile probe")
        dialog.query_one("#field-load", Input).focus()
        await pilot.pause()
        await pilot.press("tab")
        await poll_until(pilot, lambda: dialog.complete, what="Tab did not mount the rest")
        assert app.focused is dialog.query_one("#field-hosts", Input)
        dialog.check()
        assert (dialog.values(), dialog.request) == before
        assert str(dialog.query_one("#form-command").render()) == command
        await pilot.press("shift+tab")
        assert app.focused is dialog.query_one("#field-load", Input)


async def test_a_dialog_of_a_few_fields_opens_whole(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("n")
        await poll_until(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        assert dialog.complete
        assert isinstance(dialog.query_one("#field-text"), TextArea)


def test_a_dialog_not_yet_composed_holds_what_its_fields_open_with() -> None:
    """Asked before its fields exist (pushed, not yet composed: a test waiting for its text,
    the quit check), a dialog holds its fields' opening values; it raised NoMatches."""
    from casefile.tui.dialogs.actions import dialog

    form = dialog("note", case_id="c", actor="me", preset={"text": "opening words"})
    assert form.values()["text"] == "opening words"
    assert not form.dirty()


async def test_what_a_keystroke_reads_is_the_inputs_not_a_walk_of_the_dialog(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each keystroke checks the form, and reading its fields walked and matched the dialog's
    whole tree once per field (two of every three milliseconds of the probe dialog's opening
    under the profiler). The fields are read from the inputs the form made, typed text and
    all."""
    app = build_app(db_url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_probe_dialog(app, pilot)
        await poll_until(pilot, lambda: dialog.complete, what="the rest was never mounted")
        dialog.query_one("#field-note", Input).value = "typed"
        dialog.query_one("#field-paste", TextArea).text = "pasted"

        def walked(*_: object) -> None:
            raise AssertionError("values() walked the dialog's tree")

        monkeypatch.setattr(dialog, "query", walked)
        values = dialog.values()
        assert (values["note"], values["paste"], values["load"]) == ("typed", "pasted", "unknown")
        assert dialog.dirty()
