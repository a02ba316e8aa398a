"""The TUI's intake form reads a typed answer as the CLI's prompt, ``--answer`` and ``--env``
do (the question's own reading: its synonyms, and the counts and descriptions its ``--env``
patterns read), and says under the fields which answer other words were taken as. It once
refused "1" for gpu-count ("'1' is not one of one / several")."""

from __future__ import annotations

from pathlib import Path

from casefile.actions.triage_actions import AnswerIntake
from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.store.sql import SqlEventStore
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import build_app
from tests.tui.helpers import open_form, recorded, settle
from tests.tui.test_actions import fill

CASE = "syn"


def make_case(path: Path) -> None:
    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
        who = Who("alice", "2026-01-05T09:00:00.000000Z")
        service.writer.new_case("Slow training", "2 it/s", {}, CASE, "gpu-throughput@3", who)


def answers(path: Path) -> dict[str, str]:
    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
        items = service.reader.intake(CASE)
    return {item.id: item.answer for item in items if item.answer is not None}


async def test_the_form_takes_synonyms_and_counts_and_says_what_it_took(tmp_path: Path) -> None:
    path = tmp_path / "case.db"
    make_case(path)
    app = build_app(f"sqlite:///{path}", case=CASE, actor="alice")
    async with app.run_test(size=(160, 60)) as pilot:
        dialog = await open_form(pilot, "I")
        fill(dialog, {"gpu-count": "3", "platform": "bare metal", "gpu-class": "GeForce"})
        assert dialog.problem is None, dialog.problem
        request = dialog.request
        assert isinstance(request, AnswerIntake)
        assert dict(request.answers) == {
            "gpu-count": "several",
            "platform": "bare-metal",
            "gpu-class": "consumer",
        }
        shown = dialog.query_one("#form-preview")
        await settle(pilot, lambda: "taken as" in str(shown.render()))
        said = str(shown.render())
        assert "gpu-count: '3' taken as several" in said
        assert "platform: 'bare metal' taken as bare-metal" in said
        assert "gpu-class: 'GeForce' taken as consumer" in said
        fill(dialog, {"gpu-count": "a few"})
        assert dialog.problem == "gpu-count: 'a few' is not one of one / several"
        # what the last good answers were taken as is not said of answers that read as none
        assert "taken as" not in str(shown.render())
        fill(dialog, {"gpu-count": "single"})
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    held = answers(path)
    assert held["gpu-count"] == "one" and held["platform"] == "bare-metal"
    assert held["gpu-class"] == "consumer"
