"""Verify a case: its hash chain and the artifacts its events reference.

The point of the chain is that tampering is *located*, not merely detected: the report names
the first event (by ``seq``) or artifact (by digest, with the seq that references it) that does
not verify, walking the stream in order so the earliest damage is the one reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from casefile.domain.event_types import EVENT_TYPES
from casefile.domain.events import (
    GENESIS_HASH,
    TIME_FORM,
    Event,
    NewEvent,
    is_stored_time,
    sha256_hex,
)
from casefile.domain.ids import (
    CASE_ID_LIMIT,
    CASE_ID_MAX_BYTES,
    actor_problem,
    is_case_id,
)
from casefile.errors import CaseNotFound, ImportRefused, IntegrityError, StoreError
from casefile.store.base import EventStore

ArtifactLookup = Callable[[str], bytes | None]
"""Given a digest, its bytes, or ``None`` if absent (``dict.get`` fits)."""


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The outcome of verifying one case.

    ``seq`` is the first event that fails (for a missing event, the seq that is missing);
    ``artifact`` the digest of a failing artifact, with ``seq`` the event that references it.
    """

    ok: bool
    case_id: str | None
    events: int
    artifacts: int
    message: str
    seq: int | None = None
    artifact: str | None = None

    def raise_for_failure(self) -> None:
        """Raise :class:`IntegrityError` if the case did not verify."""
        if not self.ok:
            raise IntegrityError(self.message, seq=self.seq, artifact=self.artifact)


ARTIFACT_FIELDS: Mapping[str, tuple[str, ...]] = {
    name: kind.artifact_fields for name, kind in EVENT_TYPES.items() if kind.artifact_fields
}
"""For each event type that has any, the payload fields that hold an artifact digest (its
descriptor's ``artifact_fields``).

Explicit on purpose: a key that merely *ends* in ``_artifact`` (an environment entry such as
``build_artifact=v1.2``) is not a reference. A test checks the descriptors against the schema.
"""


def referenced_artifacts(event: Event | NewEvent) -> set[str]:
    """Digests the event refers to: the string values of its type's :data:`ARTIFACT_FIELDS`.

    A :class:`NewEvent` too: an append makes sure of these before its events go in."""
    fields = ARTIFACT_FIELDS.get(event.type, ())
    if not fields or not isinstance(event.payload, dict):
        return set()
    return {value for name in fields if isinstance(value := event.payload.get(name), str)}


def verify_case(
    events: Sequence[Event], artifact_lookup: ArtifactLookup, case_id: str | None = None
) -> VerifyReport:
    """Check every event's place, link and hash, and every referenced artifact's digest.

    ``case_id``, if given, is the case the events must belong to (else the first event's).
    """
    expected_case = case_id if case_id is not None else (events[0].case_id if events else None)
    if not events:
        return VerifyReport(False, expected_case, 0, 0, f"case {expected_case}: no events")
    walk = ChainWalk(expected_case)
    walk.feed(events, artifact_lookup)
    return walk.report()


class ChainWalk:
    """:func:`verify_case`'s walk, fed the events in seq order a page at a time: after the
    first problem it only counts (a report gives the whole case's number of events)."""

    __slots__ = ("case_id", "checked", "events", "failure", "prev_hash")

    def __init__(self, case_id: str | None) -> None:
        self.case_id = case_id
        self.events = 0
        self.checked: set[str] = set()
        self.prev_hash = GENESIS_HASH
        #: the first problem: its message, the seq to blame and the artifact, if one
        self.failure: tuple[str, int | None, str | None] | None = None

    def feed(self, events: Iterable[Event], artifact_lookup: ArtifactLookup) -> None:
        for event in events:
            self.events += 1
            if self.failure is None:
                self.failure = self._problem(event, artifact_lookup)

    def _problem(
        self, event: Event, artifact_lookup: ArtifactLookup
    ) -> tuple[str, int | None, str | None] | None:
        case_id = self.case_id
        problem = event_problem(event, self.events, self.prev_hash, case_id)
        if problem is not None:
            message, seq = problem
            return f"case {case_id}: {message}", seq, None
        for digest in sorted(referenced_artifacts(event)):
            if digest in self.checked:
                continue
            data = artifact_lookup(digest)
            if data is None:
                return (
                    f"case {case_id}: artifact {digest} referenced by seq {event.seq} is missing",
                    event.seq,
                    digest,
                )
            if sha256_hex(data) != digest:
                return (
                    f"case {case_id}: artifact {digest} referenced by seq {event.seq} "
                    "does not match its digest",
                    event.seq,
                    digest,
                )
            self.checked.add(digest)
        self.prev_hash = event.hash
        return None

    def report(self) -> VerifyReport:
        case_id, events, artifacts = self.case_id, self.events, len(self.checked)
        if self.failure is not None:
            message, seq, artifact = self.failure
            return VerifyReport(False, case_id, events, artifacts, message, seq, artifact)
        return VerifyReport(
            True,
            case_id,
            events,
            artifacts,
            f"case {case_id}: {events} events and {artifacts} artifacts verify",
        )


def event_problem(
    event: Event, position: int, prev_hash: str, case_id: str | None
) -> tuple[str, int] | None:
    """What is wrong with the event at ``position`` (1-based) after ``prev_hash``, if anything.

    Returns a message and the seq to blame; shared by :func:`verify_case` and the case
    directory reader so both describe damage in the same words.
    """
    if case_id is not None and event.case_id != case_id:
        return f"seq {event.seq} belongs to case {event.case_id!r}, not {case_id!r}", event.seq
    if event.seq != position:
        if event.seq > position:
            return (
                f"expected seq {position}, found seq {event.seq} "
                f"(seq {position} is missing or out of order)",
                position,
            )
        return (
            f"seq {event.seq} appears again after seq {position - 1} (duplicate or reordered)",
            event.seq,
        )
    if event.prev_hash != prev_hash:
        before = f"seq {position - 1}" if position > 1 else "the genesis hash"
        return (
            f"seq {event.seq}: prev_hash does not match the hash of {before} "
            "(an event was changed, removed or reordered)",
            event.seq,
        )
    try:
        actual = event.compute_hash()
    except (TypeError, ValueError):
        return f"seq {event.seq}: content cannot be encoded canonically", event.seq
    if actual != event.hash:
        return f"seq {event.seq}: hash does not match the event's content", event.seq
    return None


@runtime_checkable
class StrictLoader(Protocol):
    """A store that can also refuse payload text that is not byte-for-byte canonical."""

    def load_strict(
        self, case_id: str, upto: int | None = None, *, after: int = 0
    ) -> list[Event]: ...


#: Events a strict store's case is verified by at a time: the check holds a page, not the case.
VERIFY_PAGE = 5_000


def verify_stored_case(store: EventStore, case_id: str, page: int = VERIFY_PAGE) -> VerifyReport:
    """Verify a case as the store holds it; raises :class:`CaseNotFound` if it has no events.

    A store that reads strictly (SQL) is read ``page`` events at a time up to the head read
    first, each page's artifacts fetched with it, so the check holds one page and not the
    case (at 100,000 events the whole case decoded is about 800 MB, beside a TUI's own fold);
    the verdict is the one the whole case read at once gives, a payload the strict read
    refuses anywhere included (the remaining pages are still read after a first problem)."""
    walk = ChainWalk(case_id)
    try:
        for events in _pages(store, case_id, max(1, page)):
            blobs: Mapping[str, bytes] = {}
            if walk.failure is None:
                wanted: set[str] = set()
                for event in events:
                    wanted |= referenced_artifacts(event)
                wanted -= walk.checked
                blobs = store.artifact_digests(wanted) if wanted else {}
            walk.feed(events, blobs.get)
    except IntegrityError as error:
        return VerifyReport(False, case_id, 0, 0, str(error), seq=error.seq)
    if walk.events == 0:
        known = store.case_ids()
        hint = f" (cases: {', '.join(known[:10])})" if known else " (the database has no cases)"
        raise CaseNotFound(f"no case {case_id!r}{hint}")
    return walk.report()


def _pages(store: EventStore, case_id: str, page: int) -> Iterator[list[Event]]:
    """The case's events as verification reads them: a strict store's by pages up to its head
    read first, another's at once."""
    if not isinstance(store, StrictLoader):
        yield store.load(case_id)
        return
    head = store.head(case_id)[0]
    for after in range(0, head, page):
        yield store.load_strict(case_id, min(after + page, head), after=after)


def envelope_problem(event: Event) -> str | None:
    """What is wrong with the event's envelope by the rules the commands follow, if anything.

    A case id the commands would refuse, a time in no form casefile writes or ever wrote
    (:func:`~casefile.domain.events.parse_time`: a case older casefile wrote must stay
    exportable, and its sealed times cannot be rewritten; ``occurred_at`` may be null), or an
    actor that is empty, has control characters or is longer than :data:`ACTOR_LIMIT`. One
    line, values quoted.
    """
    if not is_case_id(event.case_id):
        return (
            f"seq {event.seq}: case id {event.case_id!r} is not one the commands accept "
            f"(up to {CASE_ID_LIMIT} letters, digits, '-', '_', '.' or ':', starting with a "
            f"letter or digit, at most {CASE_ID_MAX_BYTES} bytes)"
        )
    if not is_stored_time(event.recorded_at):
        return (
            f"seq {event.seq}: recorded_at {event.recorded_at!r} is not a stored time "
            f"({TIME_FORM}, UTC)"
        )
    if event.occurred_at is not None and not is_stored_time(event.occurred_at):
        return (
            f"seq {event.seq}: occurred_at {event.occurred_at!r} is not a stored time "
            f"({TIME_FORM}, UTC, or null)"
        )
    problem = actor_problem(event.actor)
    if problem is not None:
        return f"seq {event.seq}: actor {problem}"
    return None


def check_importable(events: Sequence[Event], artifacts: Mapping[str, bytes]) -> str:
    """What every store checks before importing a stream: one case, an intact chain, envelopes
    the commands could have written, and artifacts that match their names. Returns the case id.

    A store must never hold a chain that does not verify, whoever calls it. A store that
    writes as it checks runs the three parts itself, in this order: :func:`importable_case`,
    :func:`verified_chain` and :func:`check_artifacts`.
    """
    case_id = importable_case(events)
    for _ in verified_chain(case_id, events):
        pass
    check_artifacts(artifacts)
    return case_id


def importable_case(events: Sequence[Event]) -> str:
    """The case the stream belongs to, once every envelope is one the commands could have
    written and all belong to that case; raises :class:`ImportRefused` or :class:`StoreError`."""
    if not events:
        raise StoreError("nothing to import: the case has no events")
    case_id = events[0].case_id
    # what passed once passes again: the case id and each actor are checked when first seen
    # (an import checks every event, and they repeat); the times of each event
    known_case = is_case_id(case_id)
    actors: set[str] = set()
    several = False
    for event in events:
        actor = event.actor
        if (
            (known_case and event.case_id == case_id)
            and type(actor) is str
            and actor in actors
            and is_stored_time(event.recorded_at)
            and (event.occurred_at is None or is_stored_time(event.occurred_at))
        ):
            continue
        problem = envelope_problem(event)
        if problem is not None:
            raise ImportRefused(f"cannot import: {problem}")
        actors.add(actor)
        several = several or event.case_id != case_id
    others = sorted({e.case_id for e in events} - {case_id}) if several else []
    if others:
        raise StoreError(f"cannot import: events of several cases ({case_id}, {others[0]})")
    return case_id


def verified_chain(case_id: str, events: Iterable[Event]) -> Iterator[tuple[Event, str]]:
    """Each event with its payload's canonical JSON, yielded once its place (seq 1, 2, 3 …),
    its link and its hash verify, so a store can write the stream as it checks it; raises
    :class:`IntegrityError` at the first that does not (the caller's transaction then writes
    nothing). The hash and the payload's text come from one encoding of the payload."""
    prev = GENESIS_HASH
    for position, event in enumerate(events, start=1):
        if event.seq == position and event.prev_hash == prev:
            try:
                digest, text = event.hash_and_payload_text()
            except (TypeError, ValueError):
                raise IntegrityError(
                    f"case {case_id}: seq {position}: content cannot be encoded canonically",
                    seq=position,
                ) from None
            if digest == event.hash:
                yield event, text
                prev = digest
                continue
        broken = event.seq if event.seq >= 1 else position
        raise IntegrityError(f"case {case_id}: chain breaks at seq {broken}", seq=broken)


def check_artifacts(artifacts: Mapping[str, bytes]) -> None:
    """Raise :class:`IntegrityError` for the first artifact whose bytes are not its name."""
    for digest, data in artifacts.items():
        if sha256_hex(data) != digest:
            raise IntegrityError(f"artifact {digest} does not match its content", artifact=digest)
