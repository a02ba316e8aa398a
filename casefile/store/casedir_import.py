"""Reading a case directory back: parse, chain and validate every line before trusting it.

Import trusts nothing: every line is parsed, chained and validated before the database is
touched, and the first problem is reported as ``<file>:<line>: <problem>`` so the damage can be
found with an editor. Import reads only the artifacts the events reference (all artifact files
are still checked against their names).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from casefile.domain.catalogue import validate_payload
from casefile.domain.events import GENESIS_HASH, Event, sha256_hex
from casefile.errors import CaseNotFound, ImportRefused, InvalidEvent
from casefile.store.case_layout import ARTIFACTS_DIR, DIGEST, EVENTS_FILE
from casefile.store.safe_files import Unreadable, read_regular
from casefile.store.verify import envelope_problem, event_problem, referenced_artifacts

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
        data = read_regular(events_path)
    except FileNotFoundError:
        raise ImportRefused(f"{events_path}: missing; {root} is not a case directory") from None
    except Unreadable as refused:
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
        envelope = envelope_problem(event)
        if envelope is not None:
            raise ImportRefused(f"{where}: {envelope}")
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
        if not DIGEST.fullmatch(path.name):
            raise ImportRefused(f"{path}: not named by a SHA-256 hex digest")
        try:
            data = read_regular(path)
        except Unreadable as refused:
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
