"""Verifying a stored case a page of events at a time gives the verdict of the whole case
read at once, and never holds more than a page."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from casefile.domain.events import Event
from casefile.store.sql import SqlEventStore
from casefile.store.verify import VerifyReport, verify_stored_case

from .test_tamper import TAMPERS, fill

WHOLE = 1_000_000  # one page holds the case: the verdict of the case read at once


def tamper(store: SqlEventStore, statements: list[str]) -> None:
    with store.engine.begin() as conn:
        for statement in statements:
            conn.execute(text(statement))


def verdicts(store: SqlEventStore) -> dict[int, VerifyReport]:
    return {page: verify_stored_case(store, "c1", page=page) for page in (1, 2, 4, WHOLE)}


def test_an_intact_case_verifies_the_same_in_pages(sql_store: SqlEventStore) -> None:
    fill(sql_store)
    got = verdicts(sql_store)
    assert got[WHOLE].ok and (got[WHOLE].events, got[WHOLE].artifacts) == (6, 1)
    assert all(report == got[WHOLE] for report in got.values())


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_a_tampered_case_is_named_the_same_in_pages(sql_store: SqlEventStore, name: str) -> None:
    fill(sql_store)
    tamper(sql_store, TAMPERS[name][0])
    got = verdicts(sql_store)
    assert not got[WHOLE].ok
    assert all(report == got[WHOLE] for report in got.values()), name


def test_a_break_counts_every_event_and_a_later_unreadable_payload_still_wins(
    sql_store: SqlEventStore,
) -> None:
    fill(sql_store)
    tamper(sql_store, TAMPERS["hash"][0])  # seq 3
    broken = verdicts(sql_store)
    assert broken[1] == broken[WHOLE] and broken[1].seq == 3 and broken[1].events == 6
    tamper(sql_store, TAMPERS["payload made invalid JSON"][0])  # seq 5, a later page
    got = verdicts(sql_store)
    assert got[WHOLE].seq == 5 and "JSON" in got[WHOLE].message
    assert all(report == got[WHOLE] for report in got.values())


def test_the_check_reads_a_page_at_a_time(
    sql_store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(sql_store)
    reads: list[int] = []
    strict = sql_store.load_strict

    def counted(case_id: str, upto: int | None = None, *, after: int = 0) -> list[Event]:
        events = strict(case_id, upto, after=after)
        reads.append(len(events))
        return events

    monkeypatch.setattr(sql_store, "load_strict", counted)
    assert verify_stored_case(sql_store, "c1", page=4).ok
    assert reads == [4, 2]
