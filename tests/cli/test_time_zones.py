"""Times on the command line: shown with their zone, read as local time without one, never in
the future; the renderers themselves show UTC, so their bytes never depend on the machine."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from casefile.app.views import LogRow
from casefile.cli.render import render_log, timestamp
from casefile.cli.render.text import LOCAL
from tests.cli.conftest import CLI

Zone = Callable[[str], None]

#: a time as the CLI shows one; every such time must be followed by its zone
SHOWN_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?(?P<after>.{0,7})")
ZONE_LABEL = re.compile(r"^ (UTC|[+-]\d\d:\d\d)")


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Zone]:
    """Set the machine's local zone (``TZ``) for the test; restored after it."""

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def new_case(cli: CLI, *words: str) -> str:
    result = cli("new", "Slow decode", "--id", "tz", *words)
    assert result.code == 0, result.err
    return result.out.strip()


def stored(cli: CLI, case: str) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = json.loads(cli("log", case, "--json").out)
    return rows


def test_the_log_shows_each_time_in_local_time_with_its_zone(cli: CLI, zone: Zone) -> None:
    case = new_case(cli, "--at", "2026-03-02T09:03:00Z")
    cli("note", case, "in summer", "--at", "2026-07-02T09:03:00Z")
    zone("Europe/Paris")
    lines = cli("log", case).out.splitlines()
    # the offset of each instant, not today's: winter +01:00, summer +02:00
    assert lines[1].startswith("#1    2026-03-02 10:03 +01:00  ")
    assert lines[2].startswith("#2    2026-07-02 11:03 +02:00  ")
    zone("UTC")
    assert cli("log", case).out.splitlines()[1].startswith("#1    2026-03-02 09:03 UTC  ")
    zone("Asia/Kolkata")
    assert "2026-03-02 14:33 +05:30" in cli("cases").out
    shown = cli("show", case, "1").out
    assert "when: 2026-03-02 14:33:00 +05:30" in shown
    assert "#1    2026-03-02 14:33 +05:30" in cli("replay", case).out
    # the JSON keeps the stored UTC form, whatever the zone
    assert stored(cli, case)[0]["occurred_at"] == "2026-03-02T09:03:00.000000Z"


def test_every_human_readable_time_carries_its_zone(cli: CLI, zone: Zone) -> None:
    zone("America/New_York")
    case = new_case(cli, "--at", "2026-03-02T09:03:00Z")
    cli("question", "add", case, "What limits decode?", "--id", "q")
    cli("hypothesis", "add", case, "PCIe-bound", "--under", "q", "--prior", "0.5", "--id", "p")
    cli("evidence", "add", case, "--likelihood", "p=0.9", "--because", "bandwidth")
    outputs = {
        " ".join(words): cli(*words)
        for words in (
            ("log", case),
            ("status", case),
            ("replay", case),
            ("cases",),
            ("show", case, "1"),
            ("show", case, "4"),
            ("hypothesis", "show", case, "p"),
        )
    }
    seen = 0
    for command, result in outputs.items():
        assert result.code == 0, (command, result.err)
        for match in SHOWN_TIME.finditer(result.out):
            seen += 1
            assert ZONE_LABEL.match(match.group("after")), (command, match.group())
    assert seen >= 8  # log 4, replay 4, cases 1, show 2 each


def test_the_renderers_show_utc_whatever_the_machine(zone: Zone) -> None:
    """A golden or a report renders the same bytes in every zone: only the CLI asks for local
    time."""
    zone("Pacific/Auckland")
    when = "2026-03-02T09:03:00.000000Z"
    row = LogRow(1, when, when, when, "alice", "note", "note: hello", "0" * 64)
    text = render_log([row], "Slow decode", "tz")
    assert text.splitlines()[1] == "#1    2026-03-02 09:03 UTC  alice     note: hello"
    assert timestamp("2026-03-02T09:03:00.000000Z", LOCAL) == "2026-03-02 22:03 +13:00"


def test_a_time_without_a_zone_is_local_time_and_is_echoed_with_it(cli: CLI, zone: Zone) -> None:
    zone("Asia/Kolkata")
    result = cli("new", "Slow decode", "--id", "tz", "--at", "2026-03-02T14:33")
    assert result.code == 0, result.err
    assert stored(cli, "tz")[0]["occurred_at"] == "2026-03-02T09:03:00.000000Z"
    (echo,) = result.err.splitlines()
    assert "--at 2026-03-02T14:33 has no zone: taken as local time" in echo
    assert "2026-03-02 14:33:00 +05:30" in echo and "(2026-03-02 09:03:00 UTC)" in echo
    # a time with its zone is taken as given, silently
    quiet = cli("note", "tz", "zoned", "--at", "2026-03-02T10:00:00+01:00")
    assert quiet.code == 0 and quiet.err == ""
    assert stored(cli, "tz")[1]["occurred_at"] == "2026-03-02T09:00:00.000000Z"


def test_a_time_in_the_future_is_refused_beyond_five_minutes_of_skew(cli: CLI) -> None:
    case = new_case(cli)
    later = datetime.now(UTC) + timedelta(hours=1)
    result = cli("note", case, "from tomorrow", "--at", later.isoformat())
    assert result.code == 2
    (line,) = [line for line in result.err.splitlines() if "error:" in line]
    assert "--at" in line and "is in the future" in line and "5 minutes" in line
    assert len(stored(cli, case)) == 1  # nothing appended
    # another machine's clock a minute or two ahead is not an error
    skewed = datetime.now(UTC) + timedelta(minutes=2)
    assert cli("note", case, "skewed", "--at", skewed.isoformat()).code == 0
    assert len(stored(cli, case)) == 2


def test_pasted_output_taken_in_the_future_is_refused_too(cli: CLI, tmp_path: object) -> None:
    case = new_case(cli)
    later = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    result = cli("probe", case, "command", "--paste", "-", "--taken-at", later, "--", "echo")
    assert result.code == 2 and "--taken-at" in result.err and "in the future" in result.err
    assert len(stored(cli, case)) == 1
