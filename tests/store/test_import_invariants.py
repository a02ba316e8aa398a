"""Import holds case directories to the invariants the commands enforce (issue 9, defect 5).

A case id the commands would refuse, a time that is not casefile's stored form, or an actor
that is empty, has control characters or is too long is refused with ``file:line: problem``,
and nothing is written. Every id check is anchored at the very end (no trailing newline).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.library import import_directory
from casefile.domain.commands import check_case_id
from casefile.domain.events import GENESIS_HASH, Event, NewEvent, seal
from casefile.domain.ids import is_plain_id
from casefile.errors import CasefileError, DomainError, ImportRefused
from casefile.store.memory import MemoryEventStore

GOOD_TIME = "2026-03-02T09:00:00.000000Z"
SHIPPED = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"


def chain(
    case_id: str = "c1",
    recorded_at: str = GOOD_TIME,
    occurred_at: str | None = None,
    actor: str = "user",
    bad_line: int = 1,
) -> list[Event]:
    """Two sealed events (valid hashes), the one at ``bad_line`` carrying the given envelope."""
    events: list[Event] = []
    prev = GENESIS_HASH
    opened = {"title": "t", "environment": {}}  # the payload in the form casefile writes it
    news = [NewEvent("case.opened", opened), NewEvent("note.added", {"text": "n"})]
    for seq, new in enumerate(news, start=1):
        if seq == bad_line:
            new = NewEvent(new.type, new.payload, actor=actor, occurred_at=occurred_at)
            event = seal(case_id, seq, prev, new, recorded_at)
        else:
            event = seal(case_id, seq, prev, new, GOOD_TIME)
        events.append(event)
        prev = event.hash
    return events


def write_dir(directory: Path, events: list[Event]) -> Path:
    directory.mkdir(parents=True)
    lines = "".join(event.to_line() + "\n" for event in events)
    (directory / "events.jsonl").write_bytes(lines.encode("utf-8"))
    return directory


BAD_CASE_IDS = ["", "../x y", "inc42\n", "a/b", "-x", "x" * 101, "é" * 200]
BAD_TIMES = [
    "",
    "yesterday",
    "2026-03-02T09:00:00Z",
    "2026-03-02T09:00:00.000000+00:00",
    "2026-03-02 09:00:00.000000Z",
    "2026-13-02T09:00:00.000000Z",
    "2026-03-02T09:00:00.000000Z\n",
    "\x1b[2J2026-03-02T09:00:00.000000Z",
]
BAD_ACTORS = ["", "bob\n", "\x1b]0;owned\x07", "a\x9bb", "x" * 256]


@pytest.mark.parametrize("case_id", BAD_CASE_IDS)
def test_a_case_id_the_commands_refuse_is_not_imported(tmp_path: Path, case_id: str) -> None:
    store = MemoryEventStore()
    directory = write_dir(tmp_path / "case", chain(case_id=case_id))
    with pytest.raises(ImportRefused, match=r"events\.jsonl:1: .*case id") as refused:
        import_directory(store, directory)
    assert "\n" not in str(refused.value)
    assert store.case_ids() == []


@pytest.mark.parametrize("when", BAD_TIMES)
@pytest.mark.parametrize("field", ["recorded_at", "occurred_at"])
def test_a_time_not_in_stored_form_is_not_imported(tmp_path: Path, when: str, field: str) -> None:
    store = MemoryEventStore()
    if field == "recorded_at":
        events = chain(recorded_at=when, bad_line=2)
    else:
        events = chain(occurred_at=when, bad_line=2)
    directory = write_dir(tmp_path / "case", events)
    with pytest.raises(ImportRefused, match=rf"events\.jsonl:2: .*{field}") as refused:
        import_directory(store, directory)
    assert "\n" not in str(refused.value)
    assert store.case_ids() == []


@pytest.mark.parametrize("actor", BAD_ACTORS)
def test_a_bad_actor_is_not_imported(tmp_path: Path, actor: str) -> None:
    store = MemoryEventStore()
    directory = write_dir(tmp_path / "case", chain(actor=actor, bad_line=2))
    with pytest.raises(ImportRefused, match=r"events\.jsonl:2: .*actor") as refused:
        import_directory(store, directory)
    assert "\n" not in str(refused.value)
    assert store.case_ids() == []


def test_the_store_refuses_the_same_streams_whoever_calls_it() -> None:
    for events in (
        chain(case_id="../x y"),
        chain(recorded_at="now"),
        chain(occurred_at="2026-03-02"),
        chain(actor=""),
    ):
        store = MemoryEventStore()
        with pytest.raises(CasefileError):
            store.import_case(events, {})
        assert store.case_ids() == []


def test_valid_envelopes_still_import(tmp_path: Path) -> None:
    store = MemoryEventStore()
    events = chain(
        case_id="inc-42.a:b_c", occurred_at="2025-01-02T03:04:05.678901Z", actor="Zoë (on call)"
    )
    assert import_directory(store, write_dir(tmp_path / "case", events)).case_id == "inc-42.a:b_c"
    assert len(store.load("inc-42.a:b_c")) == 2


def test_the_shipped_case_still_imports() -> None:
    store = MemoryEventStore()
    assert import_directory(store, SHIPPED).case_id == "glm5-pcie-pivot"


@pytest.mark.parametrize("value", ["inc42\n", "q1\n", "a\nb"])
def test_id_checks_refuse_a_trailing_newline(value: str) -> None:
    assert not is_plain_id(value)
    with pytest.raises(DomainError):
        check_case_id(value)


def test_nothing_is_written_that_import_would_refuse(tmp_path: Path) -> None:
    """The commands do not check actors: export and a directory's append refuse instead of
    writing a case directory that could never be read back."""
    from casefile.app.library import export
    from casefile.errors import StoreError
    from casefile.store.directory import DirectoryEventStore

    store = MemoryEventStore()
    store.append("c1", 0, [NewEvent("case.opened", {"title": "t"}, actor="\x1b[2Jbob")])
    with pytest.raises(StoreError, match="actor"):
        export(store, "c1", tmp_path / "out")
    assert not (tmp_path / "out").exists()

    directory = write_dir(tmp_path / "case", chain())
    before = (directory / "events.jsonl").read_bytes()
    opened = DirectoryEventStore(directory)
    with pytest.raises(StoreError, match="actor"):
        opened.append("c1", 2, [NewEvent("note.added", {"text": "x"}, actor="a\nb")])
    assert (directory / "events.jsonl").read_bytes() == before
    assert len(DirectoryEventStore(directory).load("c1")) == 2
