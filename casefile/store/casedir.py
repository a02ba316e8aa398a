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
*same* case (its ``events.jsonl`` starts with that case's id); then it rewrites
``events.jsonl`` and ``README.md``, adds new artifacts and removes artifact files the case no
longer references. Other files in the directory are left alone. Import reads only the
artifacts the events reference (all artifact files are still checked against their names).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
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
    Raises :class:`StoreError` for an empty stream, a missing artifact or a directory that holds
    something else.
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
    _check_export_target(target, case_id)
    blobs = target / ARTIFACTS_DIR
    blobs.mkdir(parents=True, exist_ok=True)
    for digest in sorted(artifacts):
        path = blobs / digest
        data = bytes(artifacts[digest])
        if not (path.is_file() and path.read_bytes() == data):
            _write_atomically(path, data)
    for stale in sorted(blobs.iterdir()):
        if _DIGEST.fullmatch(stale.name) and stale.name not in artifacts and stale.is_file():
            stale.unlink()
    lines = "".join(event.to_line() + "\n" for event in events)
    _write_atomically(target / EVENTS_FILE, lines.encode("utf-8"))
    _write_atomically(target / README_FILE, _readme(events, len(artifacts)).encode("utf-8"))
    return target


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


def _check_export_target(target: Path, case_id: str) -> None:
    if not target.exists():
        return
    if not target.is_dir():
        raise StoreError(f"cannot export to {target}: it is a file, not a directory")
    if not any(target.iterdir()):
        return
    previous = _first_case_id(target / EVENTS_FILE)
    if previous == case_id:
        return
    if previous is None:
        raise StoreError(
            f"cannot export to {target}: the directory is not empty and holds no casefile export"
        )
    raise StoreError(
        f"cannot export case {case_id} to {target}: it holds an export of case {previous}"
    )


def _first_case_id(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            first = json.loads(handle.readline())
    except (OSError, ValueError):
        return None
    value = first.get("case_id") if isinstance(first, dict) else None
    return value if isinstance(value, str) else None


def _write_atomically(path: Path, data: bytes) -> None:
    # A reader (or a crash) never sees half a file: write beside it, then rename over it.
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


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
        data = events_path.read_bytes()
    except FileNotFoundError:
        raise ImportRefused(f"{events_path}: missing; {root} is not a case directory") from None
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
    if not directory.is_dir():
        return {}
    found: dict[str, bytes] = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith("."):
            continue  # editor and export temporaries
        if not _DIGEST.fullmatch(path.name):
            raise ImportRefused(f"{path}: not named by a SHA-256 hex digest")
        if not path.is_file():
            raise ImportRefused(f"{path}: not a file")
        data = path.read_bytes()
        actual = sha256_hex(data)
        if actual != path.name:
            user = references.get(path.name)
            used = f" (referenced by {EVENTS_FILE}:{user[0]}, seq {user[1]})" if user else ""
            raise ImportRefused(
                f"{path}: content does not match its name, its digest is {actual}{used}"
            )
        found[path.name] = data
    return found
