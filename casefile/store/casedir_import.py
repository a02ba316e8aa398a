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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casefile.domain.catalogue import validate_payload
from casefile.domain.events import GENESIS_HASH, Event, sha256_hex
from casefile.errors import CaseNotFound, ImportRefused, InvalidEvent
from casefile.store.case_layout import ARTIFACTS_DIR, DIGEST, EVENTS_FILE
from casefile.store.head_file import HEAD_FILE, HEAD_LIMIT, Head, head_mismatch, parse_head
from casefile.store.safe_files import Unreadable, read_regular
from casefile.store.verify import envelope_problem, event_problem, referenced_artifacts

MAX_DEPTH = 64
"""How deeply a line's objects and arrays may nest. casefile writes a handful of levels; the
limit keeps a hostile line from exhausting the recursion of the JSON decoder, the encoder
that hashes it, or the payload validator (each a traceback, not a one-line refusal)."""

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


@dataclass(frozen=True, slots=True)
class CaseDirectory:
    """A verified case directory: its events, the artifacts they reference, and the head its
    ``events.head`` records (``None`` for a directory without one, from an older export)."""

    events: list[Event]
    artifacts: dict[str, bytes]
    recorded_head: Head | None


def read_case_dir(directory: str | os.PathLike[str]) -> tuple[list[Event], dict[str, bytes]]:
    """Read and verify a case directory; return its events and the artifacts they reference.

    Raises :class:`CaseNotFound` if there is no such directory, and :class:`ImportRefused`
    with one line, ``<file>:<line>: <problem>``, for the first damage found.
    """
    loaded = load_case_dir(directory)
    return loaded.events, loaded.artifacts


def load_case_dir(directory: str | os.PathLike[str]) -> CaseDirectory:
    """:func:`read_case_dir`, also checking the chain against ``events.head`` and returning it.

    A chain shorter than its recorded head, or whose event at that seq has another hash, is
    refused; a head behind the chain is accepted (see :mod:`casefile.store.head_file`).
    """
    root = Path(directory)
    if not root.is_dir():
        raise CaseNotFound(f"no case directory at {root}")
    events_path = root / EVENTS_FILE
    # The head before the events: a writer replaces events.jsonl before events.head, so the
    # events read after a head always reach it, even while another process appends.
    recorded = _read_head(root / HEAD_FILE)
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
    if recorded is not None:
        at = events[recorded.seq - 1].hash if recorded.seq <= len(events) else None
        mismatch = head_mismatch(recorded, events[-1].seq, at, HEAD_FILE)
        if mismatch is not None:
            raise ImportRefused(f"{events_path}: {mismatch}")
    artifacts = _read_artifacts(root / ARTIFACTS_DIR, references)
    for digest, (line, seq) in references.items():
        if digest not in artifacts:
            raise ImportRefused(
                f"{events_path}:{line}: seq {seq} references artifact {digest}, "
                f"which is missing from {ARTIFACTS_DIR}/"
            )
    referenced = {digest: artifacts[digest] for digest in sorted(references)}
    return CaseDirectory(events, referenced, recorded)


def _read_head(path: Path) -> Head | None:
    """What ``events.head`` records, ``None`` if there is none; a damaged one is refused."""
    try:
        data = read_regular(path, limit=HEAD_LIMIT)
    except FileNotFoundError:
        return None
    except Unreadable as refused:
        raise ImportRefused(f"{path}: {refused}") from None
    except OSError as error:
        raise ImportRefused(f"{path}: cannot read: {error.strerror}") from error
    head = None
    if data.endswith(b"\n") and data.count(b"\n") == 1:
        head = parse_head(data[:-1].decode("ascii", errors="replace"))
    if head is None:
        raise ImportRefused(
            f"{path}: not one line SEQ@HASH (the seq and full hash of the last event written)"
        )
    return head


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
            normal = validate_payload(event.type, event.version, event.payload)
        except InvalidEvent as error:
            raise ImportRefused(f"{where}: seq {event.seq}: invalid payload: {error}") from None
        if normal != event.payload:
            # The hash covers the payload as written, so filling in what it left out would
            # break the chain, and keeping it as written would leave readers a payload the
            # commands never write (a KeyError in `log` or `replay`): refuse it instead.
            difference = _first_difference(event.payload, normal, "payload")
            raise ImportRefused(
                f"{where}: seq {event.seq}: payload is not in the form casefile writes "
                f"({difference}); its hash covers it as written, so it cannot be filled in"
            )
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


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A decoded object, refusing a key that appears twice (``json`` keeps the last)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


def _nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether objects and arrays in ``value`` nest more than ``limit`` levels (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _first_difference(written: Any, normal: Any, where: str) -> str:
    """Where a payload as written first differs from its normal form, in a few words."""
    if isinstance(written, dict) and isinstance(normal, dict):
        for key in sorted(set(written) | set(normal)):
            if key not in written:
                return f"{where}.{key} is missing (casefile writes {_short(normal[key])})"
            if key not in normal:
                return f"{where}.{key} is not written by casefile"
            if written[key] != normal[key]:
                return _first_difference(written[key], normal[key], f"{where}.{key}")
    if isinstance(written, list) and isinstance(normal, list) and len(written) == len(normal):
        for index, (mine, theirs) in enumerate(zip(written, normal, strict=True)):
            if mine != theirs:
                return _first_difference(mine, theirs, f"{where}[{index}]")
    return f"{where} is {_short(written)}, casefile writes {_short(normal)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_line(where: str, raw: bytes) -> Event:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ImportRefused(f"{where}: not UTF-8 (byte {error.start + 1})") from None
    if not text.strip():
        raise ImportRefused(f"{where}: empty line")
    try:
        data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise ImportRefused(f"{where}: bad JSON: {error.msg} at column {error.colno}") from None
    except _DuplicateKey as error:
        raise ImportRefused(
            f"{where}: bad JSON: key {error.key!r} appears twice in one object "
            "(which one counts is up to the reader, so neither is trusted)"
        ) from None
    except ValueError as error:
        raise ImportRefused(f"{where}: bad JSON: {error}") from None
    except RecursionError:
        data = None  # deeper than the decoder goes: refused just below, as too deep
    if data is None or _nested_deeper_than(data, MAX_DEPTH):
        raise ImportRefused(f"{where}: bad JSON: nested more than {MAX_DEPTH} levels deep")
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
