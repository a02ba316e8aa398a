"""A case directory records its head, and verify can check a chain against a head kept elsewhere.

Before ``events.head``, cutting ``events.jsonl`` at a line boundary, deleting the last row of a
database, or rewriting the chain with freshly computed hashes all left a valid chain and passed
``verify``. These tests cut, delete and rewrite, and check that each is caught where it can be
(the head file, ``--head``) and that what cannot be told apart is said plainly.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import delete

from casefile.app.library import GUARANTEE, import_directory, verify, verify_directory
from casefile.domain.events import GENESIS_HASH, Event, NewEvent
from casefile.errors import ImportRefused
from casefile.store.casedir import export_case, read_case_dir
from casefile.store.directory import DirectoryEventStore
from casefile.store.head_file import HEAD_FILE, Head, parse_head
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import EventRow, SqlEventStore

SHIPPED = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"


def make_case(directory: Path, notes: int = 4) -> list[Event]:
    """A case of ``notes + 1`` events exported to ``directory``; returns its events."""
    source = MemoryEventStore()
    source.append("c1", 0, [NewEvent("case.opened", {"title": "slow decode"})])
    for n in range(notes):
        source.append("c1", 1 + n, [NewEvent("note.added", {"text": f"note {n}"})])
    events = source.load("c1")
    export_case(events, {}, directory)
    return events


def reseal(events: list[Event], start: int, text: str) -> list[Event]:
    """The chain with the note at index ``start`` reworded and every hash from it recomputed:
    what someone rewriting history with the hashing code at hand would produce."""
    out = list(events[:start])
    prev = out[-1].hash if out else GENESIS_HASH
    for event in events[start:]:
        payload = {"text": text} if len(out) == start else event.payload
        changed = replace(event, payload=payload, prev_hash=prev, hash="")
        changed = replace(changed, hash=changed.compute_hash())
        out.append(changed)
        prev = changed.hash
    return out


def write_lines(directory: Path, events: list[Event]) -> None:
    lines = "".join(event.to_line() + "\n" for event in events)
    (directory / "events.jsonl").write_bytes(lines.encode("utf-8"))


def head_of(event: Event) -> str:
    return f"{event.seq}@{event.hash}"


# -- the head file ------------------------------------------------------------------------------


def test_export_records_the_head_after_the_events(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    assert (tmp_path / "case" / HEAD_FILE).read_bytes() == f"{head_of(events[-1])}\n".encode()


def test_an_append_to_a_directory_moves_its_head(tmp_path: Path) -> None:
    make_case(tmp_path / "case")
    store = DirectoryEventStore(tmp_path / "case")
    appended = store.append("c1", 5, [NewEvent("note.added", {"text": "more"})])
    recorded = (tmp_path / "case" / HEAD_FILE).read_text()
    assert recorded == f"{head_of(appended[0])}\n"


def test_the_shipped_case_carries_its_head() -> None:
    events, _ = read_case_dir(SHIPPED)
    assert (SHIPPED / HEAD_FILE).read_text() == f"{head_of(events[-1])}\n"


def test_a_file_cut_at_a_line_boundary_is_refused(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    write_lines(tmp_path / "case", events[:-2])
    with pytest.raises(ImportRefused, match=r"ends at seq 3 but events\.head records seq 5"):
        read_case_dir(tmp_path / "case")
    report = verify_directory(tmp_path / "case")
    assert not report.ok and "cut short" in report.message
    with pytest.raises(ImportRefused):
        DirectoryEventStore(tmp_path / "case")
    with SqlEventStore(f"sqlite:///{tmp_path / 'db'}") as store, pytest.raises(ImportRefused):
        import_directory(store, tmp_path / "case")


def test_a_rewritten_chain_is_refused(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    write_lines(tmp_path / "case", reseal(events, 2, "what really happened"))
    with pytest.raises(ImportRefused, match=r"seq 5 has hash .* the chain was rewritten"):
        read_case_dir(tmp_path / "case")


def test_a_head_behind_a_valid_chain_is_accepted_with_a_note(tmp_path: Path) -> None:
    # A crash between writing the events and writing the head leaves exactly this.
    events = make_case(tmp_path / "case")
    (tmp_path / "case" / HEAD_FILE).write_text(f"{head_of(events[2])}\n")
    assert [e.seq for e in read_case_dir(tmp_path / "case")[0]] == [1, 2, 3, 4, 5]
    report = verify_directory(tmp_path / "case")
    assert report.ok and report.head == head_of(events[-1])
    assert any("behind the chain's last seq 5" in note for note in report.notes)


def test_a_head_behind_a_rewritten_chain_is_refused(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    (tmp_path / "case" / HEAD_FILE).write_text(f"{head_of(events[2])}\n")
    write_lines(tmp_path / "case", reseal(events, 1, "rewritten before the head"))
    with pytest.raises(ImportRefused, match="seq 3 has hash"):
        read_case_dir(tmp_path / "case")


def test_a_directory_without_a_head_file_is_accepted_with_a_note(tmp_path: Path) -> None:
    make_case(tmp_path / "case")
    (tmp_path / "case" / HEAD_FILE).unlink()
    assert len(read_case_dir(tmp_path / "case")[0]) == 5
    report = verify_directory(tmp_path / "case")
    assert report.ok
    assert any("no events.head" in note and "cannot be checked" in note for note in report.notes)


@pytest.mark.parametrize(
    "content",
    [b"", b"5@abc\n", b"5@" + b"A" * 64 + b"\n", b"0@" + b"a" * 64 + b"\n", b"x" * 10_000],
    ids=["empty", "short hash", "upper case", "seq 0", "huge"],
)
def test_a_damaged_head_file_is_refused_in_one_line(tmp_path: Path, content: bytes) -> None:
    make_case(tmp_path / "case")
    (tmp_path / "case" / HEAD_FILE).write_bytes(content)
    with pytest.raises(ImportRefused) as refused:
        read_case_dir(tmp_path / "case")
    assert HEAD_FILE in str(refused.value) and "\n" not in str(refused.value)


def test_a_head_file_that_is_a_fifo_or_link_is_refused(tmp_path: Path) -> None:
    make_case(tmp_path / "case")
    head = tmp_path / "case" / HEAD_FILE
    head.unlink()
    os.mkfifo(head)
    with pytest.raises(ImportRefused, match="not a regular file"):
        read_case_dir(tmp_path / "case")
    head.unlink()
    (tmp_path / "elsewhere").write_text("1@" + "a" * 64 + "\n")
    head.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ImportRefused, match="symbolic link"):
        read_case_dir(tmp_path / "case")


def test_parse_head_takes_only_the_printed_form() -> None:
    assert parse_head("7@" + "b" * 64) == Head(7, "b" * 64)
    for text in ["7@" + "b" * 63, "07@" + "b" * 64, "7 @" + "b" * 64, "-1@" + "b" * 64, "7"]:
        assert parse_head(text) is None


# -- verify against a head kept elsewhere ----------------------------------------------------------


def test_a_deleted_last_row_fails_against_the_head_kept_elsewhere(tmp_path: Path) -> None:
    with SqlEventStore(f"sqlite:///{tmp_path / 'db'}") as store:
        store.append("c1", 0, [NewEvent("case.opened", {"title": "t"})])
        for n in range(3):
            store.append("c1", n + 1, [NewEvent("note.added", {"text": f"n{n}"})])
        kept = verify(store, "c1")
        assert kept.ok and kept.head == head_of(store.load("c1")[-1])
        with store.engine.begin() as conn:
            conn.execute(delete(EventRow).where(EventRow.seq == 4))
        # The chain alone cannot tell: it still verifies, and says what that proves.
        alone = verify(store, "c1")
        assert alone.ok and alone.head_seq == 3
        assert "cannot show that events after the head were removed" in GUARANTEE
        against = verify(store, "c1", kept.head)
        assert not against.ok
        assert "ends at seq 3 but --head records seq 4" in against.message
        assert against.seq == 4


def test_a_rewritten_database_chain_fails_against_the_head_kept_elsewhere(tmp_path: Path) -> None:
    with SqlEventStore(f"sqlite:///{tmp_path / 'a.db'}") as honest:
        honest.append("c1", 0, [NewEvent("case.opened", {"title": "t"})])
        honest.append("c1", 1, [NewEvent("note.added", {"text": "what happened"})])
        kept = verify(honest, "c1").head
        events = honest.load("c1")
    with SqlEventStore(f"sqlite:///{tmp_path / 'b.db'}") as forged:
        forged.import_case(reseal(events, 1, "what I say happened"), {})
        assert verify(forged, "c1").ok
        report = verify(forged, "c1", kept)
        assert not report.ok and "the chain was rewritten" in report.message


def test_a_head_that_the_chain_has_grown_past_verifies(tmp_path: Path) -> None:
    events = make_case(tmp_path / "case")
    report = verify_directory(tmp_path / "case", head_of(events[1]))
    assert report.ok
    assert any(
        "holds the head given with --head" in n and "3 events after it" in n for n in report.notes
    )


def test_a_directory_rewritten_with_its_head_file_fails_against_the_kept_head(
    tmp_path: Path,
) -> None:
    events = make_case(tmp_path / "case")
    kept = head_of(events[-1])
    forged = reseal(events, 2, "a better story")
    write_lines(tmp_path / "case", forged)
    (tmp_path / "case" / HEAD_FILE).write_text(f"{head_of(forged[-1])}\n")
    assert verify_directory(tmp_path / "case").ok  # consistent in itself …
    report = verify_directory(tmp_path / "case", kept)  # … but not the case that was kept
    assert not report.ok and "the chain was rewritten" in report.message


# -- a writer killed mid-write ---------------------------------------------------------------------


def _die_before_rename(directory: str) -> None:
    """Append a note, but be SIGKILLed just before the new events.jsonl is renamed in."""
    real_replace = os.replace

    def replace_then_die(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        if os.fspath(target).endswith("events.jsonl"):
            os.kill(os.getpid(), signal.SIGKILL)
        real_replace(source, target)

    os.replace = replace_then_die  # type: ignore[assignment]
    store = DirectoryEventStore(directory)
    store.append("c1", 5, [NewEvent("note.added", {"text": "x" * 100_000})])


def temporaries(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*.tmp"))


def test_a_killed_writers_temporary_is_removed_by_the_next_writer(tmp_path: Path) -> None:
    make_case(tmp_path / "case")
    spawn = multiprocessing.get_context("spawn")
    writer = spawn.Process(target=_die_before_rename, args=(str(tmp_path / "case"),))
    writer.start()
    writer.join(timeout=120)
    assert writer.exitcode == -signal.SIGKILL
    left = temporaries(tmp_path / "case")
    assert len(left) == 1 and left[0].startswith(".events.jsonl.")
    assert (tmp_path / "case" / left[0]).stat().st_size > 100_000  # full size, forever before
    # Not one of casefile's: left alone. A planted link named like one is removed, not followed.
    (tmp_path / "case" / ".notes.tmp").write_text("mine")
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "case" / "artifacts").mkdir(exist_ok=True)
    planted = tmp_path / "case" / "artifacts" / f".{'a' * 64}.0123456789abcdef.tmp"
    planted.symlink_to(victim)
    store = DirectoryEventStore(tmp_path / "case")
    store.append("c1", 5, [NewEvent("note.added", {"text": "after the crash"})])
    assert temporaries(tmp_path / "case") == [".notes.tmp"]
    assert victim.read_text() == "keep"
    assert len(read_case_dir(tmp_path / "case")[0]) == 6
