"""A stated reading from the TUI's probe dialog: recorded as ``casefile probe --stated``
records it (the echoed command line says so), and a fact the probe does not give is an inline
message that records nothing."""

from __future__ import annotations

import pytest

from casefile.domain.kinds import STATED_RELIABILITY
from casefile.tui.dialogs.form import FormDialog
from tests.tui.helpers import open_form, recorded, settle
from tests.tui.test_actions import events_after, fill

STATED = "pcie.link.gen.current[gpu0]=2; pcie.link.gen.max[gpu0]=5"


async def test_a_stated_reading_is_recorded_as_reported_evidence(db_url: str) -> None:
    from tests.tui.conftest import build_app

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        fill(dialog, {"probe": "nvidia-smi-q", "stated": STATED, "load": "under-load"})
        await pilot.pause()
        assert dialog.problem is None, dialog.problem
        shown = str(dialog.query_one("#form-command").render())
        assert "--stated 'pcie.link.gen.current[gpu0]=2'" in shown
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    appended = events_after(db_url, 81)
    kinds = [kind for kind, _p, _a in appended]
    assert kinds[:2] == ["probe.ran", "observation.recorded"]
    assert appended[0][1]["source"] == "stated" and appended[0][1]["argv"] == []
    evidence = [p for kind, p, _a in appended if kind == "evidence.assessed"]
    assert evidence and {(e["kind"], e["reliability"]) for e in evidence} == {
        ("reported", STATED_RELIABILITY)
    }


async def test_a_fact_the_probe_does_not_give_is_an_inline_message(db_url: str) -> None:
    from tests.tui.conftest import build_app

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        fill(dialog, {"probe": "nvidia-smi-q", "stated": "tokens_per_s=8"})
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog) and bool(dialog.problem))
        assert "gives no fact 'tokens_per_s'" in str(dialog.problem)
    assert events_after(db_url, 81) == []


@pytest.mark.parametrize(
    ("probe", "wrong", "refusal", "right"),
    [
        # a share in percent would pass every band a rule draws for fractions
        ("nsys-stats", "gpu.busy_share=32 %", "a fraction from 0 to 1, without a unit",
         "gpu.busy_share=0.32"),
        # a utilisation as a fraction would read as a GPU idle below 1 %
        ("nvidia-smi-q", "utilization.gpu[gpu0]=0.9", "a percentage from 0 to 100",
         "utilization.gpu[gpu0]=90"),
    ],
    ids=["fraction-in-percent", "percentage-as-fraction"],
)  # fmt: skip
async def test_a_share_off_its_scale_is_an_inline_message(
    db_url: str, probe: str, wrong: str, refusal: str, right: str
) -> None:
    """The dialog checks a statement's scale as the command line does, with the probe's
    fractions and percentages and the facts only a person states (a profile's busy share):
    the wrong scale is refused in the dialog and records nothing; the right one records."""
    from tests.tui.conftest import build_app

    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        fill(dialog, {"probe": probe, "stated": wrong})
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog) and bool(dialog.problem))
        assert refusal in str(dialog.problem)
        assert events_after(db_url, 81) == []
        fill(dialog, {"probe": probe, "stated": right})
        await pilot.pause()
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    kinds = [kind for kind, _p, _a in events_after(db_url, 81)]
    assert kinds[:2] == ["probe.ran", "observation.recorded"]
