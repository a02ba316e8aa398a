"""A probe run from the TUI: the screen stays live while it runs (replay still answers), Esc
cancels it, and the cancelled run is recorded as a failed run, nothing lost."""

from __future__ import annotations

import time

import pytest

from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.case import CaseScreen
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, open_form, poll_until, recorded, settle
from tests.tui.test_actions import events_after, fill
from tests.waiting import wait_until


async def test_a_long_probe_leaves_the_screen_live_and_esc_cancels_it(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        await pilot.press("p")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"probe": "command", "argv": "sleep 30"})
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        await poll_until(pilot, lambda: screen.probe_cancel is not None, what="no probe started")
        # while it runs, replay still answers: the case thread is not the probe's
        started = time.monotonic()
        await pilot.press("ctrl+home")
        await poll_until(
            pilot,
            lambda: screen.frame is not None and screen.frame.seq == 1,
            what="a frame never came while the probe ran",
        )
        assert time.monotonic() - started < 10  # not held until the probe's 30 s are up
        await pilot.press("escape")  # cancels the probe (not "back to live")
        await poll_until(pilot, lambda: screen.probe_cancel is None, what="Esc left it running")
        assert screen.focus_seq == 1  # Esc went to the probe, not to the replay
        await pilot.app.workers.wait_for_complete()
    appended = events_after(db_url, 81)
    runs = [payload for kind, payload, _actor in appended if kind == "probe.ran"]
    assert len(runs) == 1
    assert runs[0].get("error_kind") == "cancelled"


async def test_quitting_during_a_probe_asks_then_cancels_it(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        await pilot.press("p")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"probe": "command", "argv": "sleep 30"})
        await pilot.press("ctrl+s")
        await poll_until(pilot, lambda: screen.probe_cancel is not None, what="no probe started")
        token = screen.probe_cancel
        await pilot.press("q")
        await pilot.pause()
        assert app.is_running and not token.cancelled  # asked first
        await pilot.press("q")
        await pilot.pause()
        assert token.cancelled
    wait_until(
        lambda: [k for k, _p, _a in events_after(db_url, 81) if k == "probe.ran"],
        interval=0.1,
        what="the cancelled run was recorded",
    )
    (run,) = [p for k, p, _a in events_after(db_url, 81) if k == "probe.ran"]
    assert run.get("error_kind") == "cancelled"


async def test_a_sampler_probe_samples_here_with_the_window_given(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The NVML sampler behind the same interface, with a fake NVML (no GPU here)."""
    import dataclasses

    import casefile_probes.nvml as nvml_probe

    from casefile.app.service import CaseService
    from casefile.plugins import Registry
    from casefile.store.sql import SqlEventStore
    from casefile.tui import make_app
    from tests.cli.conftest import builtin_probes
    from tests.fakes.nvml import FakeClock, FakeGpu, FakeNvml

    windows: list[float] = []

    def fake_sampler(window_s: float) -> str:
        windows.append(window_s)
        clock = FakeClock()
        return nvml_probe.sample(
            FakeNvml([FakeGpu()]), window_s, 0.25, clock=clock, sleep=clock.sleep
        )

    from casefile_gpu_playbook import PLAYBOOK_V1 as PLAYBOOK

    probes = [
        dataclasses.replace(p, sampler=fake_sampler) if p.name == "nvml-sampler" else p
        for p in builtin_probes()
    ]
    service = CaseService(SqlEventStore(db_url), Registry.of(probes=probes, playbooks=[PLAYBOOK]))
    app = make_app(service, "glm5-pcie-pivot", database_label="sqlite:///tui.db", ssh_hosts=list)
    async with app.run_test(size=(160, 45)) as pilot:
        dialog = await open_form(pilot, "p")
        fill(dialog, {"probe": "nvml-sampler", "load": "under-load", "window": "1.5"})
        assert dialog.problem is None, dialog.problem
        await pilot.press("ctrl+s")
        await settle(pilot, recorded(app))
    assert windows == [1.5]
    kinds = [k for k, _p, _a in events_after(db_url, 81)]
    assert kinds[:2] == ["probe.ran", "observation.recorded"]
