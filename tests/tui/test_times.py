"""The TUI shows times as the CLI does: in the machine's zone (``TZ``), in the same format,
the zone said (it showed UTC while the CLI showed local time)."""

from __future__ import annotations

import re
import time

import pytest
from rich.style import Style

from casefile.app.views.times import LOCAL, compact_timestamp, timestamp_parts
from casefile.tui.screens.case import CaseScreen
from casefile.tui.widgets.timeline import Timeline
from tests.cli.conftest import CLI, cli, cli_registry  # noqa: F401  (fixtures)
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, poll_until, settle

#: UTC+05:30, as a POSIX TZ string (no zone database needed)
EAST = "IST-05:30"


async def test_the_timeline_and_the_detail_show_the_clis_local_time(
    db_url: str,
    cli: CLI,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", EAST)
    time.tzset()
    monkeypatch.setenv("CASEFILE_DB", db_url)
    log = cli("log", "glm5-pcie-pivot")
    assert log.code == 0, log.err
    row_29 = next(line for line in log.out.splitlines() if re.match(r"\s*#?29\b", line))
    assert "2026-03-02 15:21 +05:30" in row_29  # 09:51 UTC, in the machine's zone
    shown = cli("show", "glm5-pcie-pivot", "29")
    assert "2026-03-02 15:21:00 +05:30" in shown.out, shown.out
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        timeline = screen.query_one(Timeline)
        drawn = "".join(s.text for s in timeline.row_segments(29 - 1, 200, Style()))
        # the zone said once, in the border's title; each row the time without it or the year
        assert drawn.startswith("    29 03-02 15:21 user "), drawn
        assert timeline.border_title == "times in +05:30"

        def screen_text() -> str:
            return app.export_screenshot().replace("&#160;", " ")

        await poll_until(pilot, lambda: "2026-03-03 15:06:00 +05:30" in screen_text())


def test_a_time_typed_in_the_jump_dialog_is_in_the_zone_shown(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from casefile.app.service import CaseService
    from casefile.app.views.board import TimelineRow
    from casefile.store.sql import SqlEventStore
    from casefile.tui.dialogs.jump import find_step
    from tests.cli.conftest import builtin_registry

    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        events = list(service.reader.events("glm5-pcie-pivot"))
    # the case's first 68 events, up to its conclusion (events appended after it, on a later
    # day, would move "the day of the last event")
    rows = [TimelineRow(e.seq, e.when, e.actor, e.type, "", e.hash, ()) for e in events[:68]]
    monkeypatch.setenv("TZ", EAST)
    time.tzset()
    # 31 is the last event at 09:51 UTC (29-31), which the timeline shows as 15:21 +05:30;
    # HH:MM is on the local day of the last event
    assert find_step("15:21", rows) == 31
    assert find_step("2026-03-02 15:21", rows) == 31
    assert find_step("03-02 15:21", rows) == 31  # as a timeline row shows it
    assert find_step("2026-03-02T09:51Z", rows) == 31
    assert find_step("2026-03-02T15:21+05:30", rows) == 31
    assert find_step("2026-03-02", rows) == 68  # a day: its last event
    with pytest.raises(ValueError, match="no event at or before"):
        find_step("2026-03-02T09:00", rows)  # 03:30 UTC, before the case
    with pytest.raises(ValueError, match="neither a seq nor a time"):
        find_step("15h21", rows)


def test_the_compact_time_says_the_year_and_zone_only_where_they_differ() -> None:
    newest = "2026-03-02T09:51:00Z"
    assert compact_timestamp("2026-03-02T09:03:15.000000Z", newest) == "03-02 09:03"
    assert compact_timestamp("2025-12-31T23:59:00Z", newest) == "2025-12-31 23:59"
    assert compact_timestamp("not a time", newest) == "not a time"
    # a change of offset in between (daylight saving) is said on the rows it differs on
    cet = "CET-1CEST,M3.5.0,M10.5.0/3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", cet)
        time.tzset()
        summer = "2026-07-01T10:00:00Z"
        assert compact_timestamp(summer, summer, LOCAL) == "07-01 12:00"
        assert compact_timestamp("2026-03-02T09:51:00Z", summer, LOCAL) == "03-02 10:51 +01:00"
        assert timestamp_parts(summer, LOCAL)[2] == "+02:00"
    time.tzset()
