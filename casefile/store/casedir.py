"""Cases on disk: a directory anyone can read, diff, review and re-import.

Layout of ``cases/<name>/``::

    events.jsonl          one event per line, Event.to_line() + "\\n", in seq order
    artifacts/<sha256>    raw blobs (probe output …), named by their digest
    README.md             a few lines for humans: title, symptom, counts, how to verify

Export is deterministic (the same events give the same bytes), so export → import → export is
byte-identical and a case under version control diffs cleanly. Import trusts nothing: every line
is parsed, chained and validated before the database is touched, and the first problem is
reported as ``<file>:<line>: <problem>`` so the damage can be found with an editor.

Overwriting: export refuses a non-empty directory unless it already holds an export of the
*same* case whose events are a prefix of (or equal to) the events being exported: a directory
is also a store that ``casefile note <dir>`` appends to, and overwriting it with an older copy
from a database would silently drop that work. Then it rewrites ``events.jsonl`` and
``README.md``, adds new artifacts and removes artifact files the case no longer references.
Other files in the directory are left alone. Import reads only the artifacts the events
reference (all artifact files are still checked against their names).

Safety. Case directories arrive through ``git clone``, so their contents are untrusted: a
symlink placed in one must never make casefile write (or delete) outside it, and a FIFO or
device must never make a read hang. Writers therefore refuse a target directory,
``artifacts/``, ``events.jsonl`` or ``README.md`` that is a symlink, write through unique
temporaries made as ``mkstemp`` makes them (random name, ``O_EXCL``, so a planted name is never
followed) renamed into place, open the lock file with ``O_NOFOLLOW``, and readers open files
with ``O_NOFOLLOW`` and read only regular files.

Concurrency. Every write of a directory (export, or an append through
:class:`~casefile.store.directory.DirectoryEventStore`) holds an exclusive ``flock`` on
``.casefile.lock`` in the directory for its whole read-check-write, so two writers cannot both
build on the same head. The lock file is removed before the lock is released (see
:func:`locked_case_dir`), so a directory at rest holds only the case's own files and exports
stay byte-identical. Readers take no lock: every file is replaced by an atomic rename, blobs are
written before the ``events.jsonl`` that references them and removed only after it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from casefile.domain.catalogue import validate_payload
from casefile.domain.events import GENESIS_HASH, Event, sha256_hex
from casefile.errors import CaseNotFound, ImportRefused, InvalidEvent, StoreError
from casefile.store.base import EventStore
from casefile.store.verify import event_problem, referenced_artifacts, verify_case

EVENTS_FILE = "events.jsonl"
ARTIFACTS_DIR = "artifacts"
README_FILE = "README.md"
LOCK_FILE = ".casefile.lock"

_DIGEST = re.compile(r"[0-9a-f]{64}")
_FIELDS: dict[str, tuple[type, ...]] = {
    "case_id": (str,),
    "seq": (int,),
    "type": (str,),
    "version": (int,),
    "recorded_at": (str,),
    "occurred_at": (str, type(None)),
    "actor": (str,),
    "payload": (dict,),
    "prev_hash": (str,),
    "hash": (str,),
}


# -- export -----------------------------------------------------------------------------------


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
        if not _DIGEST.fullmatch(digest):
            raise StoreError(f"cannot export artifact {digest!r}: not a SHA-256 hex digest")
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
    refuse_links(target)
    _check_export_target(target, events)
    blobs = target / ARTIFACTS_DIR
    try:
        blobs.mkdir(exist_ok=True)
        changed = False
        for digest in sorted(artifacts):
            data = bytes(artifacts[digest])
            if not _holds(blobs / digest, data):
                _write_atomically(blobs / digest, data)
                changed = True
        # The events go in only after every blob they reference, and stale blobs go only after
        # the events that stopped referencing them: a lock-free reader always finds its blobs.
        lines = "".join(event.to_line() + "\n" for event in events)
        _write_atomically(target / EVENTS_FILE, lines.encode("utf-8"))
        _write_atomically(target / README_FILE, _readme(events, len(artifacts)).encode("utf-8"))
        with os.scandir(blobs) as entries:
            stale = sorted(
                entry.path
                for entry in entries
                if _DIGEST.fullmatch(entry.name)
                and entry.name not in artifacts
                and (entry.is_symlink() or entry.is_file(follow_symlinks=False))
            )
        for path in stale:
            os.unlink(path)  # unlink never follows a link: it removes the name only
        if changed or stale:
            _sync_directory(blobs)
        _sync_directory(target)
    except OSError as error:
        where = error.filename or target
        raise StoreError(f"cannot write {where}: {error.strerror or error}") from error


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


def refuse_links(target: Path) -> None:
    """Raise :class:`StoreError` if the directory or a name casefile writes in it is a symlink.

    Writing through a link planted in a cloned case directory would overwrite (or, for
    ``artifacts/``, fill and prune) whatever it points at, anywhere the user can write.
    """
    for path in (target, target / ARTIFACTS_DIR, target / EVENTS_FILE, target / README_FILE):
        if path.is_symlink():
            raise StoreError(
                f"refusing to write {path}: it is a symbolic link, "
                "and casefile never writes through one in a case directory"
            )
    blobs = target / ARTIFACTS_DIR
    if blobs.exists() and not blobs.is_dir():
        raise StoreError(f"cannot write {blobs}: it is not a directory")


@contextmanager
def locked_case_dir(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on a case directory; every writer of the directory takes it.

    The lock is ``flock`` on ``.casefile.lock``, which the holder unlinks before releasing, so
    no lock file is left to be committed with the case. A waiter that then wins the lock on the
    unlinked file notices that the name no longer refers to it and starts again on a fresh
    file; this keeps the lock exclusive while nothing lingers on disk. A crashed holder's lock
    is released by the kernel, and its left-over file is reused by the next writer.
    """
    path = directory / LOCK_FILE
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    while True:
        try:
            fd = os.open(path, flags, 0o666)
        except OSError as error:
            raise StoreError(f"cannot lock {directory}: {path.name}: {error.strerror}") from error
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                raise StoreError(f"cannot lock {directory}: {path} is not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                current = os.lstat(path)
            except FileNotFoundError:
                current = None
        except OSError as error:
            os.close(fd)
            raise StoreError(f"cannot lock {directory}: {error.strerror}") from error
        except BaseException:
            os.close(fd)
            raise
        if current is not None and (current.st_dev, current.st_ino) == (
            opened.st_dev,
            opened.st_ino,
        ):
            break
        os.close(fd)  # the previous holder removed it: lock the fresh one instead
    try:
        yield
    finally:
        with suppress(OSError):
            os.unlink(path)  # still ours: only a holder unlinks, and we hold it
        os.close(fd)


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
        data = _read_regular(directory / EVENTS_FILE)
    except (OSError, _Unreadable):
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
        data = _read_regular(path)
    except _Unreadable as refused:
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
    except ValueError:
        return None
    return data.get(name) if isinstance(data, dict) else None


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is already a regular file (not a link) with exactly ``data``."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        return _read_regular(path) == data
    except (OSError, _Unreadable):
        return False


def _create_temporary(path: Path) -> tuple[int, Path]:
    """A new, unique, empty file beside ``path``: ``tempfile.mkstemp`` with a plain file's mode.

    Like ``mkstemp`` the name is random and created with ``O_EXCL`` (and ``O_NOFOLLOW``), so
    neither a concurrent writer nor a planted symlink can share it. Unlike ``mkstemp`` (0600)
    it is created 0666 less the umask, as ``open()`` would, so a directory shared between users
    stays readable; reading the umask instead would mean setting it, process-wide.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _attempt in range(100):
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(path.parent))


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that no reader (or crash) sees half a file.

    The temporary is unique and exclusively created (see :func:`_create_temporary`), and
    ``os.replace`` swaps the name itself, never what a link there points at. The data is
    flushed to disk before the rename: a rename that outlives a power cut must not reveal an
    empty file.
    """
    fd, temporary = _create_temporary(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def _sync_directory(directory: Path) -> None:
    """Make the renames in ``directory`` durable (where the platform allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


class _Unreadable(Exception):
    """Why a file in a case directory was not read: a symlink or not a regular file."""


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file, refusing symlinks and anything else without blocking.

    ``O_NOFOLLOW`` refuses a link; ``O_NONBLOCK`` lets a FIFO open without a writer, and the
    ``fstat`` of the opened file (not of the name, which could change in between) then refuses
    it, a device such as ``/dev/zero``, or a directory. Raises ``FileNotFoundError`` if absent,
    :class:`_Unreadable` if refused and ``OSError`` for any other failure.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError:
        if path.is_symlink():
            raise _Unreadable("is a symbolic link; casefile does not follow links here") from None
        raise
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise _Unreadable("is not a regular file")
        return handle.read()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _readme(events: Sequence[Event], artifact_count: int) -> str:
    first, last = events[0], events[-1]
    opened = next((e for e in events if e.type == "case.opened"), None)
    payload: dict[str, Any] = opened.payload if opened is not None else {}
    title = _one_line(str(payload.get("title") or first.case_id))
    lines = [f"# {title}", ""]
    symptom = payload.get("symptom")
    if symptom:
        lines += [f"Symptom: {_one_line(str(symptom))}", ""]
    lines += [
        f"- Case: `{first.case_id}`",
        f"- Events: {len(events)} (seq 1 to {last.seq})",
        f"- First: {first.when}",
        f"- Last: {last.when}",
        f"- Artifacts: {artifact_count}",
        "",
        f"`{EVENTS_FILE}` holds one event per line (canonical JSON, each hash-chained to the",
        f"one before); `{ARTIFACTS_DIR}/` holds raw outputs named by their SHA-256.",
        "",
        "Verify with `casefile verify <dir>`; import with `casefile import <dir>`.",
        "",
    ]
    return "\n".join(lines)


# -- import -----------------------------------------------------------------------------------


def read_case_dir(directory: str | os.PathLike[str]) -> tuple[list[Event], dict[str, bytes]]:
    """Read and verify a case directory; return its events and the artifacts they reference.

    Raises :class:`CaseNotFound` if there is no such directory, and :class:`ImportRefused`
    with one line, ``<file>:<line>: <problem>``, for the first damage found.
    """
    root = Path(directory)
    if not root.is_dir():
        raise CaseNotFound(f"no case directory at {root}")
    events_path = root / EVENTS_FILE
    try:
        data = _read_regular(events_path)
    except FileNotFoundError:
        raise ImportRefused(f"{events_path}: missing; {root} is not a case directory") from None
    except _Unreadable as refused:
        raise ImportRefused(f"{events_path}: {refused}") from None
    except OSError as error:
        raise ImportRefused(f"{events_path}: cannot read: {error.strerror}") from error
    if not data:
        raise ImportRefused(f"{events_path}: empty, no events")
    events, references = _parse_events(events_path, data)
    artifacts = _read_artifacts(root / ARTIFACTS_DIR, references)
    for digest, (line, seq) in references.items():
        if digest not in artifacts:
            raise ImportRefused(
                f"{events_path}:{line}: seq {seq} references artifact {digest}, "
                f"which is missing from {ARTIFACTS_DIR}/"
            )
    return events, {digest: artifacts[digest] for digest in sorted(references)}


def import_case_dir(store: EventStore, directory: str | os.PathLike[str]) -> str:
    """Verify a case directory, then import it in one transaction; return the case id.

    Nothing is written unless everything verifies, and the store's import is all or nothing,
    so on any failure the database is exactly as it was.
    """
    events, artifacts = read_case_dir(directory)
    store.import_case(events, artifacts)
    return events[0].case_id


def _parse_events(path: Path, data: bytes) -> tuple[list[Event], dict[str, tuple[int, int]]]:
    """Events in file order, and for each referenced digest the first (line, seq) using it."""
    pieces = data.split(b"\n")
    complete = pieces[:-1]  # the piece after the last newline is b"" in a whole file
    events: list[Event] = []
    references: dict[str, tuple[int, int]] = {}
    case_id: str | None = None
    prev_hash = GENESIS_HASH
    for number, raw in enumerate(complete, start=1):
        where = f"{path}:{number}"
        event = _parse_line(where, raw)
        if case_id is None:
            case_id = event.case_id
        elif event.case_id != case_id:
            raise ImportRefused(
                f"{where}: case_id {event.case_id!r} differs from {case_id!r} on line 1"
            )
        problem = event_problem(event, len(events) + 1, prev_hash, case_id)
        if problem is not None:
            raise ImportRefused(f"{where}: {problem[0]}")
        try:
            validate_payload(event.type, event.version, event.payload)
        except InvalidEvent as error:
            raise ImportRefused(f"{where}: seq {event.seq}: invalid payload: {error}") from None
        for digest in sorted(referenced_artifacts(event)):
            references.setdefault(digest, (number, event.seq))
        events.append(event)
        prev_hash = event.hash
    if pieces[-1]:
        raise ImportRefused(
            f"{path}:{len(pieces)}: truncated last line (no newline at the end; "
            "the file was cut short or edited)"
        )
    if not events:
        raise ImportRefused(f"{path}: no events")
    return events, references


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_line(where: str, raw: bytes) -> Event:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ImportRefused(f"{where}: not UTF-8 (byte {error.start + 1})") from None
    if not text.strip():
        raise ImportRefused(f"{where}: empty line")
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ImportRefused(f"{where}: bad JSON: {error.msg} at column {error.colno}") from None
    except ValueError as error:
        raise ImportRefused(f"{where}: bad JSON: {error}") from None
    if not isinstance(data, dict):
        raise ImportRefused(f"{where}: not a JSON object")
    for name, kinds in _FIELDS.items():
        if name not in data:
            raise ImportRefused(f"{where}: missing field {name!r}")
        value = data[name]
        if not isinstance(value, kinds) or isinstance(value, bool):
            wanted = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            raise ImportRefused(f"{where}: field {name!r} must be {wanted}")
    extra = sorted(set(data) - set(_FIELDS))
    if extra:
        raise ImportRefused(f"{where}: unexpected field {extra[0]!r}")
    return Event(**data)


def _read_artifacts(directory: Path, references: Mapping[str, tuple[int, int]]) -> dict[str, bytes]:
    if directory.is_symlink():
        raise ImportRefused(f"{directory}: is a symbolic link; casefile does not follow links here")
    if not directory.is_dir():
        return {}
    found: dict[str, bytes] = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith("."):
            continue  # editor and export temporaries
        if not _DIGEST.fullmatch(path.name):
            raise ImportRefused(f"{path}: not named by a SHA-256 hex digest")
        try:
            data = _read_regular(path)
        except _Unreadable as refused:
            raise ImportRefused(f"{path}: {refused}") from None
        except OSError as error:
            raise ImportRefused(f"{path}: cannot read: {error.strerror}") from error
        actual = sha256_hex(data)
        if actual != path.name:
            user = references.get(path.name)
            used = f" (referenced by {EVENTS_FILE}:{user[0]}, seq {user[1]})" if user else ""
            raise ImportRefused(
                f"{path}: content does not match its name, its digest is {actual}{used}"
            )
        found[path.name] = data
    return found
