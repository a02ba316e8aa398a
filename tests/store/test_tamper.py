"""Tampering with the database behind the store's back is located, not merely detected."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from casefile.domain.events import NewEvent
from casefile.errors import CaseNotFound, IntegrityError
from casefile.store.casedir import export_stored_case
from casefile.store.sql import SqlEventStore
from casefile.store.verify import verify_stored_case

OUTPUT = b"GPU  Name  Bus-Id\n0  H100  00000000:01:00.0\n"


def fill(store: SqlEventStore) -> str:
    """Six events; seq 4 references an artifact."""
    digest = store.put_artifact(OUTPUT)
    store.append("c1", 0, [NewEvent("case.opened", {"title": "slow decode"})])
    for seq in range(1, 6):
        if seq == 3:
            payload = {
                "probe": "nvidia-smi",
                "argv": ["nvidia-smi"],
                "host": "h",
                "source": "local",
                "stdout_artifact": digest,
            }
            store.append("c1", seq, [NewEvent("probe.ran", payload)])
        else:
            store.append("c1", seq, [NewEvent("note.added", {"text": f"note {seq}"})])
    return digest


def run(store: SqlEventStore, sql: str, **params: object) -> None:
    with store.engine.begin() as conn:
        conn.execute(text(sql), params)


# name → (SQL run behind the store's back, the seq verification must name)
TAMPERS: dict[str, tuple[list[str], int]] = {
    "payload byte": (
        ["UPDATE events SET payload = REPLACE(payload, 'note 2', 'note 8') WHERE seq = 3"],
        3,
    ),
    "payload whitespace": (
        ["UPDATE events SET payload = REPLACE(payload, ':', ': ') WHERE seq = 2"],
        2,
    ),
    "payload made invalid JSON": (["UPDATE events SET payload = '{\"text\":' WHERE seq = 5"], 5),
    "hash": (["UPDATE events SET hash = REPLACE(hash, SUBSTR(hash, 1, 1), 'x') WHERE seq = 3"], 3),
    "prev_hash": (["UPDATE events SET prev_hash = SUBSTR(prev_hash, 2) || 'a' WHERE seq = 6"], 6),
    "recorded_at": (
        ["UPDATE events SET recorded_at = '2020' || SUBSTR(recorded_at, 5) WHERE seq = 2"],
        2,
    ),
    "deleted middle row": (["DELETE FROM events WHERE seq = 3"], 3),
    "deleted first row": (["DELETE FROM events WHERE seq = 1"], 1),
    "swapped seqs": (
        [
            "UPDATE events SET seq = -1 WHERE case_id = 'c1' AND seq = 2",
            "UPDATE events SET seq = 2 WHERE case_id = 'c1' AND seq = 5",
            "UPDATE events SET seq = 5 WHERE case_id = 'c1' AND seq = -1",
        ],
        2,
    ),
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_tampered_event_is_named(sql_store: SqlEventStore, tamper: str) -> None:
    fill(sql_store)
    assert verify_stored_case(sql_store, "c1").ok
    statements, seq = TAMPERS[tamper]
    with sql_store.engine.begin() as conn:
        for statement in statements:
            conn.execute(text(statement))
    report = verify_stored_case(sql_store, "c1")
    assert not report.ok
    assert report.seq == seq, report.message
    assert f"seq {seq}" in report.message
    with pytest.raises(IntegrityError):
        report.raise_for_failure()


def test_tampered_artifact_is_named_with_its_event(sql_store: SqlEventStore) -> None:
    digest = fill(sql_store)
    corrupted = bytearray(OUTPUT)
    corrupted[5] ^= 1
    with sql_store.engine.begin() as conn:
        conn.execute(
            text("UPDATE artifacts SET data = :data WHERE digest = :digest"),
            {"data": bytes(corrupted), "digest": digest},
        )
    report = verify_stored_case(sql_store, "c1")
    assert (report.ok, report.artifact, report.seq) == (False, digest, 4)
    assert digest in report.message and "seq 4" in report.message
    with pytest.raises(IntegrityError, match="seq 4"):
        export_stored_case(sql_store, "c1", "/nonexistent/never-written")


def test_missing_artifact_is_named(sql_store: SqlEventStore) -> None:
    digest = fill(sql_store)
    run(sql_store, "DELETE FROM artifacts")
    report = verify_stored_case(sql_store, "c1")
    assert (report.ok, report.artifact, report.seq) == (False, digest, 4)
    assert "missing" in report.message


def test_intact_case_verifies_and_unknown_case_is_not_found(sql_store: SqlEventStore) -> None:
    fill(sql_store)
    report = verify_stored_case(sql_store, "c1")
    assert (report.ok, report.events, report.artifacts) == (True, 6, 1)
    with pytest.raises(CaseNotFound, match="c1"):
        verify_stored_case(sql_store, "c2")


@pytest.mark.parametrize("stored", ["[]", '"text"', "1", "null"])
def test_a_payload_that_is_json_but_not_an_object_is_named_on_every_load(
    sql_store: SqlEventStore, stored: str
) -> None:
    # Ordinary reads skip the canonical-form check for speed, but a non-object payload would
    # crash every view with a TypeError far from the cause: it must be refused by seq here.
    fill(sql_store)
    run(sql_store, "UPDATE events SET payload = :stored WHERE seq = 3", stored=stored)
    with pytest.raises(IntegrityError, match="seq 3: stored payload is not a JSON object") as e:
        sql_store.load("c1")
    assert e.value.seq == 3
    assert len(sql_store.load("c1", upto=2)) == 2
    report = verify_stored_case(sql_store, "c1")
    assert (report.ok, report.seq) == (False, 3)


def test_load_after_checks_only_the_events_it_returns(sql_store: SqlEventStore) -> None:
    fill(sql_store)
    run(sql_store, "UPDATE events SET payload = REPLACE(payload, ':', ': ') WHERE seq = 2")
    assert [e.seq for e in sql_store.load("c1", after=2, strict=True)] == [3, 4, 5, 6]
    assert [e.seq for e in sql_store.load("c1", 4, after=2, strict=True)] == [3, 4]
    with pytest.raises(IntegrityError, match="seq 2: stored payload is not in canonical form"):
        sql_store.load("c1", after=1, strict=True)
    with pytest.raises(IntegrityError, match="seq 2: stored payload is not in canonical form"):
        sql_store.load("c1", 3, after=1, strict=True)
    assert len(sql_store.load("c1", after=1)) == 5  # ordinary reads skip the canonical check
