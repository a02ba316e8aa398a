"""Sealing and verifying encode each payload once, to the same bytes as the whole envelope.

An append and an import hash the envelope with the payload's canonical JSON spliced in
(``envelope_hash``), and keep that text as the stored payload; the hash must be the one the
whole envelope's canonical JSON gives, for any content an import may bring. Stored times are
checked by their shape and a remembered date, which must agree with the full parse; and an
import writes its rows as it verifies them, so a break deep in the stream, an artifact that
is not its name, or content with no canonical form, still leaves nothing written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from casefile.domain.events import (
    GENESIS_HASH,
    Event,
    NewEvent,
    canonical_json,
    compute_hash,
    is_stored_time,
    parse_time,
    seal,
    utc_now,
    written_time_problem,
)
from casefile.errors import ImportRefused, IntegrityError, StoreError
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.verify import verify_stored_case


class Name(str):
    """A ``str`` subclass, as no decoder makes but a caller might pass."""


ODD_PAYLOADS: list[Any] = [
    {"text": "plain"},
    {"z": 1, "a": {"y": [3, {"b": None, "a": True}], "x": -0.0}, "m": "ünïcødé ✓ 𝄞"},
    {"text": 'quote " backslash \\ tab \t nl \n nul \x00 del \x7f c1 \x9b ls \u2028 ps \u2029'},
    {"floats": [0.1, 1e300, -1e-300, 5e-324, 1.7976931348623157e308, 2.0, 123456789.125]},
    {"ints": [0, -1, 2**63, -(2**80), 10**30]},
    {"": "empty key", "ключ": "значение", "\x01": "control key"},
    ["not", "an", "object"],
    "a bare string",
    None,
    {Name("sub"): Name("class")},
]


def envelopes() -> Iterator[Event]:
    base = seal("c1", 3, "a" * 64, NewEvent("note.added", {}), "2026-03-02T09:00:00.000000Z")
    for payload in ODD_PAYLOADS:
        yield Event(**{**base.to_dict(), "payload": payload})
    odd_fields: list[dict[str, Any]] = [
        {"seq": True},
        {"version": False},
        {"seq": 1.0},
        {"case_id": Name("c1")},
        {"actor": Name("Zoë")},
        {"occurred_at": "2026-03-01T00:00:00.000000Z"},
        {"occurred_at": 7},
        {"type": 'ty"pe\\'},
        {"prev_hash": "\u2028"},
        {"recorded_at": "   "},
    ]
    for fields in odd_fields:
        yield Event(**{**base.to_dict(), **fields})


@pytest.mark.parametrize("event", list(envelopes()), ids=repr)
def test_one_encoding_hashes_as_the_whole_envelope(event: Event) -> None:
    digest, text = event.hash_and_payload_text()
    assert digest == compute_hash(event.content())
    assert text == canonical_json(event.payload)


@pytest.mark.parametrize("payload", [{"t": "lone \ud800"}, {"n": math.nan}, {"o": object()}])
def test_content_with_no_canonical_form_is_refused_as_before(payload: dict[str, Any]) -> None:
    base = seal("c1", 1, GENESIS_HASH, NewEvent("note.added", {}), utc_now())
    event = Event(**{**base.to_dict(), "payload": payload})
    with pytest.raises((TypeError, ValueError)) as whole:
        compute_hash(event.content())
    with pytest.raises(type(whole.value)):
        event.hash_and_payload_text()


def test_an_import_refuses_content_with_no_canonical_form_in_one_line() -> None:
    base = seal("c1", 1, GENESIS_HASH, NewEvent("case.opened", {"title": "t"}), utc_now())
    forged = Event(**{**base.to_dict(), "payload": {"title": "lone \udc80"}})
    store = MemoryEventStore()
    with pytest.raises(IntegrityError, match=r"^case c1: seq 1: content cannot be encoded"):
        store.import_case([forged], {})
    assert store.case_ids() == []


def times() -> Iterator[object]:
    yield from ["2026-03-02T09:00:00.000000Z", "2024-02-29T23:59:59.999999Z"]
    yield from ["2026-02-29T09:00:00.000000Z", "2100-02-29T00:00:00.000000Z"]
    yield from ["2000-02-29T00:00:00.000000Z", "0000-01-01T00:00:00.000000Z"]
    yield from ["0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z"]
    yield from ["0999-01-01T00:00:00.000000Z", "999-01-01T00:00:00.000000Z"]
    yield from ["2026-03-02T09:00:00.500Z", "2026-03-02T09:00:00.5Z"]
    for field in ("13-02T09:00:00", "00-02T09:00:00", "03-32T09:00:00", "03-00T09:00:00"):
        yield f"2026-{field}.000000Z"
    for clock in ("24:00:00", "23:60:00", "23:59:60", "9:00:00", "29:00:00"):
        yield f"2026-03-02T{clock}.000000Z"
    yield from ["2026-03-02T09:00:00.000000Z\n", "2026-03-02T09:00:00.000000", "", None, 17]
    yield from ["٢٠٢٦-03-02T09:00:00.000000Z", "2026-03-02T09:00:00.000000+00:00"]
    yield Name("2026-03-02T09:00:00.000000Z")
    moment = datetime(2023, 12, 30, 22, tzinfo=UTC)
    for hours in range(0, 24 * 800, 7):  # across month ends and a leap day
        yield (moment + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_stored_time_is_told_as_the_full_parse_tells_it() -> None:
    told = {value: is_stored_time(value) for value in times()}
    assert told == {value: parse_time(value) is not None for value in told}
    assert 0 < sum(told.values()) < len(told)


def test_now_is_written_in_the_stored_form() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    written = [utc_now() for _ in range(2_000)]
    after = datetime.now(UTC)
    assert all(written_time_problem(value) is None for value in written)
    moments = [parse_time(value) for value in written]
    assert all(m is not None and before <= m <= after for m in moments)


def sealed_case(case_id: str, count: int) -> list[Event]:
    source = MemoryEventStore()
    source.append(case_id, 0, [NewEvent("case.opened", {"title": "streamed"})])
    source.append(case_id, 1, [NewEvent("note.added", {"text": f"n{n} ü"}) for n in range(count)])
    return source.load(case_id)


def test_a_break_deep_in_an_import_writes_nothing(sql_url: str) -> None:
    events = sealed_case("deep", 3_000)
    tampered = Event(**{**events[2_499].to_dict(), "payload": {"text": "changed"}})
    with SqlEventStore(sql_url) as store:
        with pytest.raises(IntegrityError, match=r"chain breaks at seq 2500") as caught:
            store.import_case([*events[:2_499], tampered, *events[2_500:]], {})
        assert caught.value.seq == 2_500
        assert store.count_events() == 0 and store.case_ids() == []
        store.import_case(events, {})  # the whole stream, untouched, goes in as it was
        assert store.load("deep") == events
        assert verify_stored_case(store, "deep").ok  # payload texts byte for byte canonical


def test_an_artifact_that_is_not_its_name_writes_nothing(sql_url: str) -> None:
    events = sealed_case("blob", 50)
    with SqlEventStore(sql_url) as store:
        with pytest.raises(IntegrityError, match="does not match its content"):
            store.import_case(events, {"ab" * 32: b"something else"})
        assert store.count_events() == 0 and store.artifact_digests(["ab" * 32]) == {}


def test_an_import_checks_each_envelope_whatever_it_checked_before() -> None:
    """The case id and the actors are checked when first seen; a later event with another
    case id, an unhashable or bad actor, or a bad time is still refused, in the same words."""
    events = sealed_case("c1", 5)
    bad: list[tuple[dict[str, Any], str]] = [
        ({"actor": ["not", "a", "name"]}, "seq 4: actor is empty"),
        ({"actor": "bob\x1b"}, "seq 4: actor 'bob\\x1b' has control characters"),
        ({"recorded_at": "2026-02-30T00:00:00.000000Z"}, "seq 4: recorded_at"),
        ({"occurred_at": "yesterday"}, "seq 4: occurred_at"),
        ({"case_id": "../c2"}, "seq 4: case id '../c2'"),
    ]
    for fields, message in bad:
        forged = [*events[:3], Event(**{**events[3].to_dict(), **fields}), *events[4:]]
        store = MemoryEventStore()
        with pytest.raises(ImportRefused, match=re.escape(message)):
            store.import_case(forged, {})
        assert store.case_ids() == []
    other = [*events[:3], Event(**{**events[3].to_dict(), "case_id": "c2"}), *events[4:]]
    with pytest.raises(StoreError, match=r"events of several cases \(c1, c2\)"):
        MemoryEventStore().import_case(other, {})
