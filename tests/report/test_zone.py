"""Times in the zone the case declares (issue 10), never the machine's."""

from __future__ import annotations

import pytest

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.report import ReportOptions, build_report, render
from casefile.report.times import duration
from casefile.store.memory import MemoryEventStore
from tests.app.view_cases import fixed_clock
from tests.cli.conftest import builtin_registry


def zoned(zone: str) -> bytes:
    service = CaseService(MemoryEventStore(clock=fixed_clock()), builtin_registry())
    at = "2026-05-04T23:30:00.000000Z"
    cid = service.writer.new_case(
        "zoned", environment={"timezone": zone}, case_id="z", who=Who("user", at)
    )
    service.writer.note(cid, "late note", Who("user", "2026-05-05T00:45:00.000000Z"))
    report = build_report(service, cid, ReportOptions())
    return render(report, "md")


def test_the_declared_zone_is_used() -> None:
    text = zoned("Asia/Tokyo").decode()
    assert "times in Asia/Tokyo" in text
    assert "2026-05-05 08:30:00" in text and "2026-05-05 09:45:00" in text  # UTC+9
    assert "1 h 15 min" in text


@pytest.mark.parametrize("tz", ["UTC", "America/Los_Angeles"])
def test_the_machine_zone_is_not(monkeypatch: pytest.MonkeyPatch, tz: str) -> None:
    import time

    monkeypatch.setenv("TZ", tz)
    time.tzset()
    try:
        assert zoned("Europe/Berlin") == zoned("Europe/Berlin")
        assert "2026-05-05 01:30:00" in zoned("Europe/Berlin").decode()  # CEST, UTC+2
    finally:
        monkeypatch.undo()
        time.tzset()


def test_an_unknown_zone_falls_back_to_utc() -> None:
    assert "times in UTC" in zoned("Mars/Olympus").decode()


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0 s"), (59, "59 s"), (3700, "1 h 1 min"), (90061, "1 d 1 h 1 min"), (None, "unknown")],
)
def test_durations(seconds: float | None, text: str) -> None:
    assert duration(seconds) == text
