"""Intake and experiments from the TUI: what they append equals what the CLI appends; a new
case opened from a playbook asks its intake questions first; bad input appends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.actions.spec import argv
from casefile.actions.table import BY_NAME
from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.cli.main import main
from casefile.store.sql import SqlEventStore
from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from tests.cli.conftest import builtin_registry
from tests.triage.conftest import nccl_table
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, recorded, settle
from tests.tui.test_actions import fill

CASE = "tri"


def make_case(path: Path, tmp: Path) -> tuple[int, int]:
    """A v2 case with two pasted nccl-tests runs (the A/B's two sides)."""
    from casefile.app.probing import Pasted, ProbeRequest

    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
        who = Who("alice", "2026-01-05T09:00:00.000000Z")
        service.writer.new_case(
            "Slow all-reduce", "5 GB/s", {"nvlink": "no"}, CASE, "gpu-throughput", who
        )
        seqs = []
        for busbw in (6.0, 18.0):
            request = ProbeRequest(
                probe="nccl-tests",
                where=Pasted(text=nccl_table(busbw, "NVIDIA A40").encode(), host="box"),
                argv=("all_reduce_perf", "-g", "8"),
            )
            (record,) = service.probing.run_probe(CASE, request, who)
            seqs.append(record.probe_run_seq)
    return seqs[0], seqs[1]


def events(path: Path, after: int) -> list[tuple[str, dict[str, object], str]]:
    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()) as service:
        return [
            (e.type, dict(e.payload), e.actor) for e in service.reader.events(CASE, after=after)
        ]


async def run_dialog(path: Path, key: str, values: dict[str, str]) -> object:
    app = build_app(f"sqlite:///{path}", case=CASE, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press(key)
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, values)
        assert dialog.problem is None, dialog.problem
        request = dialog.request
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    return request


@pytest.mark.parametrize(
    ("key", "values"),
    [
        ("I", {"scaling": "worse", "platform": "VM"}),
        ("X", {"change": "NCCL_P2P_DISABLE=1", "baseline": "#{a}", "variant": "{b}"}),
    ],
    ids=["intake", "experiment"],
)
async def test_tui_appends_what_the_cli_appends(
    key: str, values: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, twin = tmp_path / "mine.db", tmp_path / "twin.db"
    a, b = make_case(mine, tmp_path)
    assert make_case(twin, tmp_path) == (a, b)
    typed = {k: v.format(a=a, b=b) for k, v in values.items()}
    before = len(events(mine, 0))
    request = await run_dialog(mine, key, typed)
    monkeypatch.setenv("CASEFILE_DB", f"sqlite:///{twin}")
    spec = BY_NAME["intake" if key == "I" else "experiment"]
    assert main([*argv(spec, request, CASE), "--actor", "alice"]) == 0
    tui, cli = events(mine, before), events(twin, before)
    assert tui and tui == cli
    if key == "I":  # the --env answer was recorded when the playbook opened, not again
        answers = [p["intake"] for t, p, _ in tui if t == "evidence.assessed"]
        at_open = [p.get("intake") for t, p, _ in events(mine, 0)[:before]]
        env = {"id": "nvlink", "answer": "no", "source": "environment", "basis": "--env nvlink=no"}
        assert env in at_open and env not in answers
        assert {"id": "scaling", "answer": "worse", "source": "answered"} in answers
    else:
        assert [t for t, _, _ in tui] == ["experiment.recorded", "evidence.assessed"]


@pytest.mark.parametrize(
    ("key", "values", "problem"),
    [
        ("I", {"scaling": "maybe"}, "scaling: 'maybe' is not one of yes / no / worse"),
        ("X", {"change": "", "baseline": "1", "variant": "2"}, "state the one change"),
        ("X", {"change": "A=1", "baseline": "3", "variant": "3"}, "the same run"),
        ("X", {"change": "A=1", "baseline": "x", "variant": "3"}, "not an event seq"),
        ("X", {"change": "A=1", "variant": "3"}, "baseline run's seq is required"),
    ],
)
async def test_bad_input_is_an_inline_error_and_appends_nothing(
    key: str, values: dict[str, str], problem: str, tmp_path: Path
) -> None:
    path = tmp_path / "case.db"
    make_case(path, tmp_path)
    before = len(events(path, 0))
    app = build_app(f"sqlite:///{path}", case=CASE, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press(key)
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, values)
        assert dialog.problem is not None and problem in dialog.problem
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, FormDialog)  # still open, nothing recorded
    assert len(events(path, 0)) == before


async def test_an_experiment_the_case_refuses_is_a_notification(tmp_path: Path) -> None:
    path = tmp_path / "case.db"
    a, _ = make_case(path, tmp_path)
    before = len(events(path, 0))
    app = build_app(f"sqlite:///{path}", case=CASE, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("X")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"change": "NCCL_P2P_DISABLE=1", "baseline": str(a), "variant": "1"})
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: bool(app._notifications))
        titles = [n.title for n in app._notifications]
        assert "Experiment not recorded" in titles
    assert len(events(path, 0)) == before


async def test_a_new_case_from_a_playbook_asks_its_intake_first(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with CaseService(SqlEventStore(f"sqlite:///{path}"), builtin_registry()):
        pass
    app = build_app(f"sqlite:///{path}", case=None, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        new = app.screen
        assert isinstance(new, FormDialog)
        fill(new, {"title": "Slow all-reduce", "playbook": "gpu-throughput"})
        await pilot.press("ctrl+s")
        await settle(
            pilot,
            lambda: (
                isinstance(app.screen, FormDialog) and app.screen.form_title.startswith("Intake")
            ),
        )
        intake = app.screen
        assert isinstance(intake, FormDialog)
        fill(intake, {"nodes": "multi"})
        await pilot.press("ctrl+s")
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and bool(app.screen.commands)
        )
        assert app.screen.commands[-1].startswith("casefile intake ")  # type: ignore[attr-defined]


async def test_enter_on_an_unanswered_intake_question_in_next_steps_asks_it(
    tmp_path: Path,
) -> None:
    """Asking costs nothing: an unanswered intake question ranks among the next steps
    (``intake <id>``), and Enter on it opens the intake form, as on an ``A/B`` step the
    experiment form."""
    from casefile.tui.widgets.next_steps import NextSteps

    path = tmp_path / "case.db"
    make_case(path, tmp_path)
    app = build_app(f"sqlite:///{path}", case=CASE, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("4")
        steps = app.screen.query_one(NextSteps)
        await settle(pilot, lambda: any(s.probe.startswith("intake ") for s in steps.steps))
        steps.cursor = next(i for i, s in enumerate(steps.steps) if s.probe.startswith("intake "))
        steps.focus()
        await pilot.press("enter")
        await settle(
            pilot,
            lambda: (
                isinstance(app.screen, FormDialog) and app.screen.form_title.startswith("Intake")
            ),
        )
