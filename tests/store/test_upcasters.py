"""Events of older versions read through upcasters; newer ones refused.

``fixtures/casedir-9fe2b1b/`` is a case directory written by casefile at commit 9fe2b1b (the
main branch when upcasters were introduced), from ``git archive`` of that commit run with this
virtualenv: ``casefile new``, ``question add``, ``hypothesis add`` (top-level and a child),
``evidence add`` (calculated, measured with a probe run, and one superseding another), a pasted
``nvidia-smi-query`` run, a local ``command`` run (stdout and stderr artifacts), ``hypothesis
refine``/``retire``/``reinstate``, ``note``, ``act``, ``conclude``, then ``export``. Tests read
copies of it, never the directory itself: it must stay readable by every later casefile, with
the confidences that casefile gave it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import Field

from casefile.app.service import CaseService
from casefile.domain import catalogue, upcasters
from casefile.domain.beliefs import project
from casefile.domain.catalogue import Payload, validate_payload
from casefile.domain.events import GENESIS_HASH, canonical_json, compute_hash
from casefile.errors import DomainError, ImportRefused, InvalidEvent
from casefile.store.casedir import read_case_dir
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore

FIXTURE = Path(__file__).parent / "fixtures" / "casedir-9fe2b1b"
CASE_ID = "fixture-case"
HEAD = "7f7cf770b72574b6c6553023736bc5fe92532729e988e515867b18ddf1e48937"
#: what `casefile status --json` at 9fe2b1b gave the case, to the bit
CONFIDENCES = {
    "pcie": 0.5067064083457327,
    "degraded": 0.2026825633382245,
    "compute": 0.3442622950820305,
    "q/catch-all": 0.14903129657223674,
}


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "case"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def database(request: pytest.FixtureRequest) -> Iterator[SqlEventStore]:
    store = SqlEventStore(str(request.getfixturevalue(f"{request.param}_url")))
    yield store
    store.close()


def confidences(service: CaseService) -> dict[str, float]:
    return {h.id: h.confidence for h in service.reader.status(CASE_ID).hypotheses}


def test_a_case_directory_of_9fe2b1b_imports_with_the_same_numbers(
    copy: Path, database: SqlEventStore, tmp_path: Path
) -> None:
    service = CaseService(database)
    imported = service.library.import_directory(copy)
    assert imported.case_id == CASE_ID
    assert database.head(CASE_ID) == (18, HEAD)
    assert confidences(service) == CONFIDENCES
    warnings = service.reader.status(CASE_ID).warnings
    assert [(w.code, w.seq) for w in warnings] == [("never-measured", 15)]
    out = service.library.export(CASE_ID, tmp_path / "again")
    assert (out / "events.jsonl").read_bytes() == (FIXTURE / "events.jsonl").read_bytes()
    for blob in (FIXTURE / "artifacts").iterdir():
        assert (out / "artifacts" / blob.name).read_bytes() == blob.read_bytes()


def test_a_case_directory_of_9fe2b1b_reads_in_place(copy: Path) -> None:
    from casefile.app.opening import open_case

    with open_case(str(copy), None) as opened:
        assert opened.case_id == CASE_ID
        assert confidences(opened.service) == CONFIDENCES
        assert len(opened.service.reader.replay(CASE_ID).steps) == 18


# --- the mechanism: a type whose version went up ---------------------------------------------


class NoteAddedV2(Payload):
    """A second version of note.added for the test: notes gained tags."""

    text: str = Field(min_length=1)
    tags: list[str]


@pytest.fixture
def notes_at_version_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """note.added at version 2, with the upcaster that tags every version-1 note 'v1'."""
    monkeypatch.setitem(catalogue.CATALOGUE, "note.added", (2, NoteAddedV2))
    monkeypatch.setitem(catalogue.CURRENT_VERSIONS, "note.added", 2)
    monkeypatch.setitem(
        upcasters.UPCASTERS, ("note.added", 1), lambda payload: {**payload, "tags": ["v1"]}
    )


@pytest.mark.usefixtures("notes_at_version_2")
def test_older_events_are_read_through_their_upcasters(copy: Path) -> None:
    events, artifacts = read_case_dir(copy)
    store = MemoryEventStore()
    store.import_case(events, artifacts)
    stored = store.load(CASE_ID)
    note = stored[15]
    assert (note.type, note.version) == ("note.added", 1)  # stored as written
    assert note.payload == {"text": "link is fine"}
    folded = project(stored)
    read = folded.events[15]
    assert (read.version, read.payload) == (2, {"text": "link is fine", "tags": ["v1"]})
    assert read.hash == note.hash
    service = CaseService(store)
    assert confidences(service) == CONFIDENCES  # the same numbers, to the bit
    assert [r.summary for r in service.reader.log(CASE_ID)][15] == "note: link is fine"
    assert service.library.verify(CASE_ID).ok


@pytest.mark.usefixtures("notes_at_version_2")
def test_an_older_payload_is_validated_as_it_reads_today(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert validate_payload("note.added", 1, {"text": "x"}) == {"text": "x"}  # as written
    monkeypatch.setitem(upcasters.UPCASTERS, ("note.added", 1), lambda payload: payload)
    with pytest.raises(InvalidEvent, match="field 'tags'"):
        validate_payload("note.added", 1, {"text": "x"})


def test_a_version_without_an_upcaster_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(catalogue.CATALOGUE, "note.added", (3, NoteAddedV2))
    with pytest.raises(InvalidEvent, match="no upcaster from version 1 to 2"):
        validate_payload("note.added", 1, {"text": "x"})


# --- newer than this casefile ------------------------------------------------------------------


def rewrite(directory: Path, line: int, change: dict[str, object]) -> None:
    """Change one event of a case directory and re-chain every hash after it, as a newer
    casefile would have written the file."""
    path = directory / "events.jsonl"
    events = [json.loads(raw) for raw in path.read_text().splitlines()]
    events[line - 1].update(change)
    prev = GENESIS_HASH
    for event in events:
        event["prev_hash"] = prev
        event.pop("hash")
        event["hash"] = prev = compute_hash(event)
    path.write_text("".join(canonical_json(e) + "\n" for e in events))
    (directory / "events.head").unlink(missing_ok=True)


def test_a_newer_event_version_is_refused_on_import(copy: Path, database: SqlEventStore) -> None:
    rewrite(copy, 16, {"version": 5})
    with pytest.raises(ImportRefused) as caught:
        CaseService(database).library.import_directory(copy)
    message = str(caught.value)
    assert message.endswith(
        "note.added version 5 is newer than this casefile reads (up to 1); upgrade casefile"
    )
    assert "events.jsonl:16" in message and "\n" not in message
    assert database.case_ids() == []  # nothing imported


def test_a_newer_event_version_stops_the_fold_naming_its_seq(copy: Path) -> None:
    rewrite(copy, 16, {"version": 5})
    events = [json.loads(raw) for raw in (copy / "events.jsonl").read_text().splitlines()]
    from casefile.domain.events import event_from_dict

    with pytest.raises(DomainError, match=r"seq 16: note\.added version 5 is newer"):
        project([event_from_dict(e) for e in events])
