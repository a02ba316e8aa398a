"""One stored time form, written everywhere; every form ever written still read (issue 23).

casefile writes each time as ``YYYY-MM-DDTHH:MM:SS.ffffffZ``. Two other forms reached users'
databases before the writers agreed: ingest's milliseconds (``….500Z``) and, for a year below
1000, ``strftime``'s unpadded year (``999-…``). Events are hash-chained, so those strings can
never be rewritten: a case holding them must still verify, export, import and export again
byte for byte, while nothing new is written in them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from casefile.app.draft import Draft
from casefile.app.who import Who
from casefile.domain.beliefs import Projection
from casefile.domain.events import NewEvent, format_time, is_stored_time, parse_time
from casefile.errors import DomainError
from casefile.store.sql import SqlEventStore
from tests.cli.conftest import CLI, cli, cli_registry

__all__ = ["cli", "cli_registry"]

#: forms older casefile wrote, each with the instant it names
PAST_FORMS = [
    ("2026-01-01T10:00:00.500Z", datetime(2026, 1, 1, 10, 0, 0, 500000, UTC)),  # ingest
    ("2026-03-02T09:57:00.000Z", datetime(2026, 3, 2, 9, 57, tzinfo=UTC)),  # ingest
    ("999-01-01T00:00:00.000000Z", datetime(999, 1, 1, tzinfo=UTC)),  # --at, year < 1000
    ("1-01-01T00:00:00.000000Z", datetime(1, 1, 1, tzinfo=UTC)),
]

#: never written by any casefile: still refused
NEVER_WRITTEN = [
    "2026-03-02T09:00:00Z",
    "2026-03-02T09:00:00.5Z",
    "2026-03-02T09:00:00.500000000Z",
    "2026-03-02T09:00:00.500+00:00",
    "0999-01-01T00:00:00.000Z\n",
    "0999-01-01T00:00:00.000000Z ",
    "0999-1-01T00:00:00.000000Z",
    "099-01-01T00:00:00.000Z",  # a three-digit year with milliseconds: never written
    "099-01-01T00:00:00.000000Z",  # a zero-padded short year: neither writer's
    "２０２６-03-02T09:00:00.000000Z",  # full-width digits
    "2026-02-30T09:00:00.000000Z",
    "2026-03-02T24:00:00.000000Z",
]


def test_the_written_form_pads_the_year_and_keeps_microseconds() -> None:
    assert format_time(datetime(999, 1, 1, tzinfo=UTC)) == "0999-01-01T00:00:00.000000Z"
    assert format_time(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00.000000Z"
    berlin = timezone(timedelta(hours=1))
    assert (
        format_time(datetime(2026, 3, 2, 10, 3, 15, 123456, berlin))
        == "2026-03-02T09:03:15.123456Z"
    )
    with pytest.raises(ValueError):
        format_time(datetime(2026, 3, 2))


@pytest.mark.parametrize(("text", "moment"), PAST_FORMS)
def test_every_form_ever_written_is_read(text: str, moment: datetime) -> None:
    assert is_stored_time(text)
    assert parse_time(text) == moment


@pytest.mark.parametrize("text", NEVER_WRITTEN)
def test_a_form_never_written_is_refused(text: str) -> None:
    assert not is_stored_time(text)
    assert parse_time(text) is None


@pytest.mark.parametrize("text", [text for text, _ in PAST_FORMS])
def test_nothing_new_is_stamped_in_a_past_form(text: str) -> None:
    with pytest.raises(DomainError, match="stored form"):
        Who("user", text)
    draft = Draft(Projection(), "c")
    with pytest.raises(DomainError, match="stored form"):
        draft.add(NewEvent("note.added", {"text": "n"}, occurred_at=text))
    assert draft.events == []


def _old_case(url: str, when: str) -> None:
    """A case as older casefile left it: an event whose ``occurred_at`` is ``when``, appended
    the way ingest did (the store seals whatever it is given)."""
    store = SqlEventStore(url)
    try:
        store.append("old", 0, [NewEvent("case.opened", {"title": "old", "environment": {}})])
        store.append("old", 1, [NewEvent("note.added", {"text": "then"}, occurred_at=when)])
    finally:
        store.close()


@pytest.mark.parametrize("when", [text for text, _ in PAST_FORMS])
def test_a_case_holding_a_past_form_exports_and_imports_unchanged(
    cli: CLI, tmp_path: Path, when: str
) -> None:
    _old_case(f"sqlite:///{tmp_path / 'cli.db'}", when)
    assert cli("verify", "old").code == 0
    export = tmp_path / "export"
    exported = cli("export", "old", str(export))
    assert exported.code == 0, exported.err
    assert f'"occurred_at":"{when}"' in (export / "events.jsonl").read_text()
    other = f"sqlite:///{tmp_path / 'fresh.db'}"
    imported = cli("import", str(export), "--db", other)
    assert imported.code == 0, imported.err
    assert cli("verify", "old", "--db", other).code == 0
    again = tmp_path / "again"
    assert cli("export", "old", str(again), "--db", other).code == 0
    assert (again / "events.jsonl").read_bytes() == (export / "events.jsonl").read_bytes()
    # and it stays a case new events can be added to, in the form written now
    assert cli("note", str(export), "now", "--at", "0999-01-01T00:00:00Z").code == 0
    assert cli("verify", str(export)).code == 0


def test_a_year_below_1000_given_with_at_is_written_padded_and_exports(
    cli: CLI, tmp_path: Path
) -> None:
    assert cli("new", "Long ago", "--id", "ago", "--at", "0999-01-01T00:00:00Z").code == 0
    log = json.loads(cli("log", "ago", "--json").out)
    assert log[0]["occurred_at"] == "0999-01-01T00:00:00.000000Z"
    exported = cli("export", "ago", str(tmp_path / "export"))
    assert exported.code == 0, exported.err
