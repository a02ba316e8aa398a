"""Cases on disk: a directory anyone can read, diff, review and re-import.

Layout of ``cases/<name>/``::

    events.jsonl          one event per line, Event.to_line() + "\\n", in seq order
    events.head           ``SEQ@HASH`` of the last event, written after it (see head_file)
    artifacts/<sha256>    raw blobs (probe output …), named by their digest
    README.md             a few lines for humans: title, symptom, counts, how to verify

Export is deterministic (the same events give the same bytes), so export → import → export is
byte-identical and a case under version control diffs cleanly. Import trusts nothing: every line
is parsed, chained and validated before the database is touched, and the first problem is
reported as ``<file>:<line>: <problem>`` so the damage can be found with an editor.

Overwriting: export refuses a non-empty directory unless it already holds an export of the
*same* case whose events are a prefix of (or equal to) the events being exported: a directory
is also a store that ``casefile note <dir>`` appends to, and overwriting it with an older copy
from a database would silently drop that work. Then it rewrites ``events.jsonl``,
``events.head`` and ``README.md``, adds new artifacts and removes artifact files the case no
longer references. Other files in the directory are left alone. Import reads only the
artifacts the events reference (all artifact files are still checked against their names).

Safety and concurrency (symlinks refused, atomic writes, the directory's lock) are
:mod:`casefile.store.safe_files`; the file names and README are
:mod:`casefile.store.case_layout`; reading a directory back is
:mod:`casefile.store.casedir_import`. Their names are importable from here too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from casefile.domain.events import Event
from casefile.errors import CaseNotFound, StoreError
from casefile.store.base import EventStore
from casefile.store.case_layout import ARTIFACTS_DIR, DIGEST, EVENTS_FILE, README_FILE, readme
from casefile.store.casedir_import import read_case_dir
from casefile.store.head_file import HEAD_FILE, Head, head_line
from casefile.store.safe_files import (
    LOCK_FILE,
    Unreadable,
    holds,
    locked_case_dir,
    read_regular,
    refuse_links,
    remove_stale_temporaries,
    sync_directory,
    write_atomically,
)
from casefile.store.verify import envelope_problem, referenced_artifacts, verify_case

__all__ = [
    "ARTIFACTS_DIR",
    "EVENTS_FILE",
    "HEAD_FILE",
    "LOCK_FILE",
    "README_FILE",
    "directory_head",
    "events_signature",
    "export_case",
    "export_stored_case",
    "locked_case_dir",
    "read_case_dir",
    "refuse_links",
    "write_case_dir",
]


# -- export -----------------------------------------------------------------------------------

_WRITTEN = frozenset({EVENTS_FILE, HEAD_FILE, README_FILE})
"""The files export writes in the case directory itself (besides ``artifacts/<digest>``)."""


def export_case(
    events: Sequence[Event], artifacts: Mapping[str, bytes], directory: str | os.PathLike[str]
) -> Path:
    """Write a case directory (see the module docstring for the overwrite rule).

    ``artifacts`` must hold every artifact the events reference; any others are written too.
    Raises :class:`StoreError` for an empty stream, a missing artifact, a symlink where the
    case's files go, or a directory that holds something else or events the export lacks.
    """
    if not events:
        raise StoreError("nothing to export: the case has no events")
    case_id = events[0].case_id
    target = Path(directory)
    for event in events:
        for digest in sorted(referenced_artifacts(event)):
            if digest not in artifacts:
                raise StoreError(
                    f"cannot export case {case_id}: artifact {digest} (seq {event.seq}) is missing"
                )
    for digest in artifacts:
        if not DIGEST.fullmatch(digest):
            raise StoreError(f"cannot export artifact {digest!r}: not a SHA-256 hex digest")
    _refuse_unreadable(events, target)
    refuse_links(target)
    if target.exists() and not target.is_dir():
        raise StoreError(f"cannot export to {target}: it is a file, not a directory")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot create {target}: {error.strerror}") from error
    with locked_case_dir(target):
        write_case_dir(events, artifacts, target)
    return target


def write_case_dir(events: Sequence[Event], artifacts: Mapping[str, bytes], target: Path) -> None:
    """The body of :func:`export_case`, for a caller that already holds :func:`locked_case_dir`.

    The checks are repeated here, under the lock, because what they look at may have changed
    since the caller last looked: the check and the write must be one step.
    """
    _refuse_unreadable(events, target)
    refuse_links(target)
    _check_export_target(target, events)
    blobs = target / ARTIFACTS_DIR
    try:
        # Under the lock, any temporary is a dead writer's (see remove_stale_temporaries).
        remove_stale_temporaries(target, _WRITTEN.__contains__)
        if blobs.is_dir():
            remove_stale_temporaries(blobs, lambda name: DIGEST.fullmatch(name) is not None)
        blobs.mkdir(exist_ok=True)
        changed = False
        for digest in sorted(artifacts):
            data = bytes(artifacts[digest])
            if not holds(blobs / digest, data):
                write_atomically(blobs / digest, data)
                changed = True
        # The events go in only after every blob they reference, and stale blobs go only after
        # the events that stopped referencing them: a lock-free reader always finds its blobs.
        lines = "".join(event.to_line() + "\n" for event in events)
        write_atomically(target / EVENTS_FILE, lines.encode("utf-8"))
        sync_directory(target)  # the events' rename is durable before the head's can be
        # The head after the events it names: a crash in between leaves a head behind a valid
        # chain, which readers accept, never one past its end (see casefile.store.head_file).
        last = events[-1]
        write_atomically(target / HEAD_FILE, head_line(Head(last.seq, last.hash)))
        write_atomically(target / README_FILE, readme(events, len(artifacts)).encode("utf-8"))
        with os.scandir(blobs) as entries:
            stale = sorted(
                entry.path
                for entry in entries
                if DIGEST.fullmatch(entry.name)
                and entry.name not in artifacts
                and (entry.is_symlink() or entry.is_file(follow_symlinks=False))
            )
        for path in stale:
            os.unlink(path)  # unlink never follows a link: it removes the name only
        if changed or stale:
            sync_directory(blobs)
        sync_directory(target)
    except OSError as error:
        where = error.filename or target
        raise StoreError(f"cannot write {where}: {error.strerror or error}") from error


def _refuse_unreadable(events: Sequence[Event], target: Path) -> None:
    """Refuse to write events that import would refuse: the directory could never be read back."""
    for event in events:
        problem = envelope_problem(event)
        if problem is not None:
            raise StoreError(
                f"cannot write case {event.case_id!r} to {target}: {problem}; "
                "import would refuse it"
            )


def export_stored_case(store: EventStore, case_id: str, directory: str | os.PathLike[str]) -> Path:
    """Export a stored case after verifying it; a case that does not verify is not exported.

    Raises :class:`CaseNotFound` for an unknown case and
    :class:`~casefile.errors.IntegrityError` naming the first failing seq or artifact.
    """
    events = store.load(case_id)
    if not events:
        raise CaseNotFound(f"no case {case_id!r} in the database")
    wanted: set[str] = set()
    for event in events:
        wanted |= referenced_artifacts(event)
    blobs = store.artifact_digests(wanted) if wanted else {}
    verify_case(events, blobs.get, case_id).raise_for_failure()
    return export_case(events, blobs, directory)


def events_signature(directory: Path) -> tuple[int, int, int, int] | None:
    """What identifies the current ``events.jsonl``: device, inode, size and mtime.

    Every write replaces the file by rename (a new inode) and appends only grow it, so a
    cached copy of the directory is stale exactly when this changes. ``None`` if missing.
    """
    try:
        info = os.lstat(directory / EVENTS_FILE)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def directory_head(directory: Path) -> tuple[int, str] | None:
    """The last event's ``(seq, hash)`` as ``events.jsonl`` holds it now, read from its last line.

    A cheap check that a cached copy is still current, for a writer holding the lock; ``None``
    if the file is missing or its last line is not an event (a full read will say why).
    """
    try:
        data = read_regular(directory / EVENTS_FILE)
    except (OSError, Unreadable):
        return None
    complete = data[: data.rfind(b"\n")]  # a file always ends with a newline
    last_line = complete[complete.rfind(b"\n") + 1 :]
    seq, digest = _line_field(last_line, "seq"), _line_field(last_line, "hash")
    if isinstance(seq, int) and not isinstance(seq, bool) and isinstance(digest, str):
        return seq, digest
    return None


def _check_export_target(target: Path, events: Sequence[Event]) -> None:
    case_id = events[0].case_id
    if not any(entry.name != LOCK_FILE for entry in target.iterdir()):
        return
    path = target / EVENTS_FILE
    if not path.exists() and not path.is_symlink():
        raise StoreError(
            f"cannot export to {target}: the directory is not empty and holds no casefile export"
        )
    try:
        data = read_regular(path)
    except Unreadable as refused:
        raise StoreError(f"cannot export to {target}: {path} {refused}") from None
    except OSError as error:
        raise StoreError(f"cannot export to {target}: {path}: {error.strerror}") from error
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    previous = _line_field(lines[0], "case_id") if lines else None
    if not isinstance(previous, str):
        raise StoreError(
            f"cannot export to {target}: the directory is not empty and holds no casefile export"
        )
    if previous != case_id:
        raise StoreError(
            f"cannot export case {case_id} to {target}: it holds an export of case {previous}"
        )
    # The chain makes equal hashes at every line mean equal events; comparing each line (not
    # only the last) also catches a directory whose middle was edited, and names where the two
    # histories part. Anything from there on exists only in the directory.
    for number, raw in enumerate(lines, start=1):
        if number > len(events) or _line_field(raw, "hash") != events[number - 1].hash:
            raise StoreError(
                f"cannot export case {case_id} to {target}: the directory holds events the "
                f"export lacks (seq {number} onward); import or move the directory first"
            )


def _line_field(raw: bytes, name: str) -> object:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None  # not a line casefile wrote: the caller treats it as foreign or damaged
    return data.get(name) if isinstance(data, dict) else None
