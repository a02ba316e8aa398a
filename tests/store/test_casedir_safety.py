"""Case directories written in place: concurrent writers, symlinks, and overwriting newer work.

A case directory is shared through git and used directly as a store (``casefile note dir …``),
so it is written by several processes at once and may hold whatever a clone put there. These
tests pin the rules: every append lands exactly once, nothing is ever written through a
symlink, special files never hang a read, and an export never throws away events it lacks.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from pathlib import Path

import pytest

from casefile.domain.events import Event, NewEvent, sha256_hex
from casefile.errors import CasefileError, ConcurrencyError, ImportRefused, StoreError
from casefile.store.casedir import events_signature, export_case, read_case_dir
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.verify import verify_case

from .workers import append_to_directory

BLOB = b"nvidia-smi output\n"


def make_case(directory: Path, notes: int = 1) -> tuple[MemoryEventStore, Path]:
    """A case with an artifact, exported to ``directory``; returns the source store too."""
    source = MemoryEventStore()
    digest = source.put_artifact(BLOB)
    source.append("c1", 0, [NewEvent("case.opened", {"title": "slow decode"})])
    source.append(
        "c1",
        1,
        [
            NewEvent(
                "probe.ran",
                {
                    "probe": "nvidia-smi",
                    "argv": ["nvidia-smi"],
                    "host": "h",
                    "source": "local",
                    "stdout_artifact": digest,
                },
            )
        ],
    )
    for n in range(notes):
        source.append("c1", 2 + n, [NewEvent("note.added", {"text": f"note {n}"})])
    export_case(source.load("c1"), {digest: BLOB}, directory)
    return source, directory


def note(store: DirectoryEventStore, text: str) -> list[Event]:
    seq, _ = store.head(store.case_id)
    return store.append(store.case_id, seq, [NewEvent("note.added", {"text": text})])


def listing(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


# -- concurrency ------------------------------------------------------------------------------

WRITERS = 8
APPENDS_EACH = 25


def test_concurrent_writer_processes_lose_nothing(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case", notes=0)
    spawn = multiprocessing.get_context("spawn")
    writers = [
        spawn.Process(target=append_to_directory, args=(str(directory), worker, APPENDS_EACH))
        for worker in range(WRITERS)
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=240)
    assert [w.exitcode for w in writers] == [0] * WRITERS

    events, artifacts = read_case_dir(directory)
    total = 2 + WRITERS * APPENDS_EACH
    assert [e.seq for e in events] == list(range(1, total + 1))
    texts = sorted(e.payload["text"] for e in events if e.type == "note.added")
    assert texts == sorted(f"w{w} #{n}" for w in range(WRITERS) for n in range(APPENDS_EACH))
    assert verify_case(events, artifacts.get).ok
    # No lock file or temporary is left behind to be committed along with the case.
    assert listing(directory) == [
        "README.md",
        "artifacts",
        f"artifacts/{sha256_hex(BLOB)}",
        "events.head",
        "events.jsonl",
    ]


def test_a_store_sees_appends_made_by_another_and_refuses_a_stale_seq(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    first, second = DirectoryEventStore(directory), DirectoryEventStore(directory)
    stale_seq, _ = second.head("c1")
    note(first, "from the first writer")
    # The second store was opened before that append: it must not write over it.
    with pytest.raises(ConcurrencyError):
        second.append("c1", stale_seq, [NewEvent("note.added", {"text": "stale"})])
    # … and after the retry's re-read it sees the directory as it is now.
    assert second.head("c1") == first.head("c1")
    assert [e.payload.get("text") for e in second.load("c1")][-1] == "from the first writer"
    note(second, "from the second writer")
    texts = [e.payload.get("text") for e in read_case_dir(directory)[0]]
    assert texts[-2:] == ["from the first writer", "from the second writer"]


def test_an_artifact_put_before_a_refresh_is_still_written(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    first, second = DirectoryEventStore(directory), DirectoryEventStore(directory)
    digest = second.put_artifact(b"pasted output\n")
    note(first, "moves the head")  # second re-reads the directory at its next load
    seq, _ = second.head("c1")
    payload = {"probe": "p", "argv": ["p"], "host": "h", "source": "pasted"}
    second.append("c1", seq, [NewEvent("probe.ran", {**payload, "stdout_artifact": digest})])
    _, artifacts = read_case_dir(directory)
    assert artifacts[digest] == b"pasted output\n"


def test_a_failed_write_leaves_no_phantom_event_in_memory(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    store = DirectoryEventStore(directory)
    before = store.load("c1")
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (directory / "README.md").unlink()
    (directory / "README.md").symlink_to(victim)
    with pytest.raises(StoreError):
        note(store, "never written")
    assert store.load("c1") == before
    assert victim.read_text() == "keep me"


# -- symlinks and special files ---------------------------------------------------------------


@pytest.mark.parametrize("name", [".README.md.tmp", ".events.jsonl.tmp"])
def test_a_planted_temp_symlink_is_not_written_through(tmp_path: Path, name: str) -> None:
    _, directory = make_case(tmp_path / "case")
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (directory / name).symlink_to(victim)
    note(DirectoryEventStore(directory), "appended")
    assert victim.read_text() == "keep me"
    assert "appended" in (directory / "events.jsonl").read_text()


def test_a_planted_artifact_temp_symlink_is_not_written_through(tmp_path: Path) -> None:
    source, directory = make_case(tmp_path / "case")
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    new_blob = b"more output\n"
    digest = source.put_artifact(new_blob)
    (directory / "artifacts" / f".{digest}.tmp").symlink_to(victim)
    seq, _ = source.head("c1")
    payload = {"probe": "p", "argv": ["p"], "host": "h", "source": "pasted"}
    source.append("c1", seq, [NewEvent("probe.ran", {**payload, "stdout_artifact": digest})])
    export_case(source.load("c1"), {sha256_hex(BLOB): BLOB, digest: new_blob}, directory)
    assert victim.read_text() == "keep me"
    assert (directory / "artifacts" / digest).read_bytes() == new_blob


def _symlink_artifacts(directory: Path, tmp_path: Path) -> Path:
    elsewhere = tmp_path / "elsewhere"
    (directory / "artifacts").rename(elsewhere)
    stale = elsewhere / ("0" * 64)
    stale.write_bytes(b"someone else's file")
    (directory / "artifacts").symlink_to(elsewhere)
    return elsewhere


def test_a_symlinked_artifacts_dir_is_refused_everywhere(tmp_path: Path) -> None:
    source, directory = make_case(tmp_path / "case")
    elsewhere = _symlink_artifacts(directory, tmp_path)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    with pytest.raises(StoreError, match="symbolic link") as caught:
        export_case(source.load("c1"), {sha256_hex(BLOB): BLOB}, directory)
    assert "\n" not in str(caught.value)
    with pytest.raises(StoreError, match="symbolic link"):
        DirectoryEventStore(directory)
    with pytest.raises(ImportRefused, match="symbolic link"):
        read_case_dir(directory)
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before


@pytest.mark.parametrize("name", ["events.jsonl", "README.md"])
def test_a_symlinked_case_file_is_refused_for_writing(tmp_path: Path, name: str) -> None:
    source, directory = make_case(tmp_path / "case")
    victim = tmp_path / "victim"
    victim.write_bytes((directory / name).read_bytes())
    (directory / name).unlink()
    (directory / name).symlink_to(victim)
    with pytest.raises(StoreError, match="symbolic link"):
        DirectoryEventStore(directory)
    source.append("c1", source.head("c1")[0], [NewEvent("note.added", {"text": "more"})])
    with pytest.raises(StoreError, match="symbolic link"):
        export_case(source.load("c1"), {sha256_hex(BLOB): BLOB}, directory)
    assert "more" not in victim.read_text()


def test_a_symlinked_events_file_is_refused_for_reading(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    outside = tmp_path / "outside.jsonl"
    (directory / "events.jsonl").rename(outside)
    (directory / "events.jsonl").symlink_to(outside)
    with pytest.raises(ImportRefused, match="symbolic link"):
        read_case_dir(directory)


def test_a_symlinked_artifact_file_is_refused_for_reading(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    blob = directory / "artifacts" / sha256_hex(BLOB)
    outside = tmp_path / "outside"
    blob.rename(outside)
    blob.symlink_to(outside)
    with pytest.raises(ImportRefused, match="symbolic link"):
        read_case_dir(directory)


def test_a_symlinked_target_directory_is_refused(tmp_path: Path) -> None:
    source, real = make_case(tmp_path / "real")
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(StoreError, match="symbolic link"):
        export_case(source.load("c1"), {sha256_hex(BLOB): BLOB}, link)
    with pytest.raises(StoreError, match="symbolic link"):
        DirectoryEventStore(link)


def _read_in_thread(directory: Path) -> tuple[threading.Thread, list[BaseException]]:
    raised: list[BaseException] = []

    def read() -> None:
        try:
            read_case_dir(directory)
        except BaseException as error:  # handed to the test thread
            raised.append(error)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(timeout=10)
    return thread, raised


@pytest.mark.parametrize("where", ["events.jsonl", "artifact"])
def test_a_fifo_is_refused_without_hanging(tmp_path: Path, where: str) -> None:
    _, directory = make_case(tmp_path / "case")
    path = directory / "events.jsonl"
    if where == "artifact":
        path = directory / "artifacts" / sha256_hex(BLOB)
    path.unlink()
    os.mkfifo(path)
    thread, raised = _read_in_thread(directory)
    if thread.is_alive():  # unblock the reader so the test run can end
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(timeout=10)
        pytest.fail(f"reading a FIFO {where} hung")
    assert len(raised) == 1 and isinstance(raised[0], ImportRefused), raised
    assert "not a regular file" in str(raised[0])


@pytest.mark.parametrize("where", ["events.jsonl", "artifact"])
def test_a_directory_in_a_files_place_is_refused(tmp_path: Path, where: str) -> None:
    """fdopen raised IsADirectoryError on it before the regular-file check could refuse it."""
    _, directory = make_case(tmp_path / "case")
    path = directory / "events.jsonl"
    if where == "artifact":
        path = directory / "artifacts" / sha256_hex(BLOB)
    path.unlink()
    path.mkdir()
    with pytest.raises(ImportRefused, match="not a regular file"):
        read_case_dir(directory)


# -- overwriting an export --------------------------------------------------------------------


def test_export_refuses_to_drop_events_appended_to_the_directory(tmp_path: Path) -> None:
    source, directory = make_case(tmp_path / "case")
    note(DirectoryEventStore(directory), "important")
    with pytest.raises(StoreError, match=r"lacks \(seq 4 onward\)") as caught:
        export_case(source.load("c1"), {sha256_hex(BLOB): BLOB}, directory)
    assert "\n" not in str(caught.value)
    assert "important" in (directory / "events.jsonl").read_text()


def test_export_refuses_a_directory_that_diverged(tmp_path: Path) -> None:
    source, directory = make_case(tmp_path / "case")
    note(DirectoryEventStore(directory), "written in the directory")
    source.append("c1", 3, [NewEvent("note.added", {"text": "written in the database"})])
    with pytest.raises(StoreError, match=r"lacks \(seq 4 onward\)"):
        export_case(source.load("c1"), {sha256_hex(BLOB): BLOB}, directory)
    assert "written in the directory" in (directory / "events.jsonl").read_text()


def test_export_over_a_prefix_of_itself_is_allowed(tmp_path: Path) -> None:
    source, directory = make_case(tmp_path / "case")
    source.append("c1", 3, [NewEvent("note.added", {"text": "newer"})])
    export_case(source.load("c1"), {sha256_hex(BLOB): BLOB}, directory)
    assert [e.seq for e in read_case_dir(directory)[0]] == [1, 2, 3, 4]
    export_case(source.load("c1"), {sha256_hex(BLOB): BLOB}, directory)  # equal: allowed
    assert listing(directory) == [
        "README.md",
        "artifacts",
        f"artifacts/{sha256_hex(BLOB)}",
        "events.head",
        "events.jsonl",
    ]


def test_appending_in_place_keeps_export_import_export_identical(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    note(DirectoryEventStore(directory), "in place")
    events, artifacts = read_case_dir(directory)
    again = export_case(events, artifacts, tmp_path / "again")
    assert listing(directory) == listing(again)
    for name in listing(directory):
        if (directory / name).is_file():
            assert (directory / name).read_bytes() == (again / name).read_bytes()


def test_store_errors_are_one_line(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    (directory / "events.jsonl").unlink()
    (directory / "events.jsonl").symlink_to(tmp_path / "nowhere")
    with pytest.raises(CasefileError) as caught:
        DirectoryEventStore(directory)
    assert "\n" not in str(caught.value)


def test_an_append_checks_the_head_on_disk_even_if_the_file_looks_unchanged(
    tmp_path: Path,
) -> None:
    # The stat signature is only a shortcut for reads; under the lock the head itself decides.
    _, directory = make_case(tmp_path / "case")
    stale = DirectoryEventStore(directory)
    stale_seq, _ = stale.head("c1")
    note(DirectoryEventStore(directory), "written elsewhere")
    stale._signature = events_signature(directory)  # as if the change had gone unnoticed
    with pytest.raises(ConcurrencyError):
        stale.append("c1", stale_seq, [NewEvent("note.added", {"text": "stale"})])
    assert "written elsewhere" in (directory / "events.jsonl").read_text()


def test_a_planted_lock_file_symlink_is_refused(tmp_path: Path) -> None:
    _, directory = make_case(tmp_path / "case")
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (directory / ".casefile.lock").symlink_to(victim)
    with pytest.raises(StoreError, match="cannot lock") as caught:
        note(DirectoryEventStore(directory), "never written")
    assert "\n" not in str(caught.value)
    assert victim.read_text() == "keep me"
    assert "never written" not in (directory / "events.jsonl").read_text()
