"""What every part of the service stands on: the store and plugins, the sessions that hold
cases folded, and the write loop (decide on the fold, append, retry on a lost race).

The writer, the reader, the case library and probing each hold the same
:class:`CaseSessions`, so a case a TUI keeps folded is folded once for all four: a write
decides on the fold the reader then shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from casefile.app.draft import Draft
from casefile.app.session import CaseSession, write_retrying
from casefile.app.who import Who
from casefile.domain.events import NewEvent
from casefile.errors import SEE_CASES, CaseNotFound

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.domain.events import Event
    from casefile.plugins import Registry
    from casefile.store.base import EventStore


class CaseSessions:
    """One store, its plugins and the cases folded so far (kept for this object's lifetime)."""

    def __init__(self, store: EventStore, registry: Registry | None = None) -> None:
        if registry is None:
            from casefile.plugins import Registry

            registry = Registry()
        self.store = store
        self.registry = registry
        self._sessions: dict[tuple[str, bool], CaseSession] = {}

    def flush(self) -> None:
        """Write the fold snapshots that folding big cases made due (after a command has
        answered: the next one on that case then starts from it)."""
        for session in self._sessions.values():
            session.save_snapshot()

    def close(self) -> None:
        self.flush()
        self._sessions.clear()
        self.store.close()

    def session(self, case_id: str, *, history: bool = True) -> CaseSession:
        """The session on a case, kept for this object's lifetime (a TUI's case stays folded).

        ``history=False`` holds the current state only (no trajectory) and may start from a
        stored snapshot: the state and its views are the same (one-shot commands use that).
        """
        full = self._sessions.get((case_id, True))
        if full is not None:
            return full  # a session with the whole history serves every view and verb
        key = (case_id, history)
        session = self._sessions.get(key)
        if session is None:
            session = CaseSession(self.store, case_id, history=history)
            self._sessions[key] = session
            if history:
                state_only = self._sessions.pop((case_id, False), None)
                if state_only is not None:  # one fold per case: the full one from now on
                    state_only.save_snapshot()
        return session

    def loaded(self, case_id: str) -> Projection | None:
        """The fold a session already holds for the case, without reading anything."""
        session = self._sessions.get((case_id, True)) or self._sessions.get((case_id, False))
        return session.projection if session is not None and session.loaded else None

    def forget(self, case_id: str) -> None:
        """Drop the case's sessions (a removed case leaves no fold to snapshot on close)."""
        for key in [k for k in self._sessions if k[0] == case_id]:
            del self._sessions[key]

    def current(self, case_id: str, *, history: bool) -> Projection:
        """The case folded up to its newest event."""
        session = self.session(case_id, history=history)
        session.refresh()
        return session.projection

    def glance(self, case_id: str, *, most: int) -> Projection | None:
        """The case's current state, from the session already held if there is one, else
        folded without keeping it (its snapshot written if due): a list of every case's
        leaders costs one fold at a time, not a fold of every case for this object's life.
        ``None`` when that fold would read more than ``most`` events (see ``fold_within``)."""
        held = self._sessions.get((case_id, True)) or self._sessions.get((case_id, False))
        if held is not None:
            held.refresh()
            return held.projection
        from casefile.app.fold_cache import fold_within

        projection = fold_within(self.store, case_id, most)
        if projection is not None and projection.last_seq == 0:
            raise CaseNotFound(f"no case {case_id!r}", remedy=SEE_CASES)
        return projection

    def events(self, case_id: str, *, after: int = 0, upto: int | None = None) -> list[Event]:
        events = self.store.load(case_id, upto, after=after)
        if not events and after == 0:
            raise CaseNotFound(f"no case {case_id!r}", remedy=SEE_CASES)
        return events

    def projection(self, case_id: str, upto: int | None = None) -> Projection:
        """The case folded with its whole history (up to ``upto``)."""
        from casefile.domain.beliefs import project

        if upto is None:
            return self.current(case_id, history=True)
        return project(self.events(case_id, upto=upto))

    def integrity_warnings(self, case_id: str) -> list[str]:
        """What the sessions noticed about the record (a rewritten history)."""
        return [
            message
            for (cid, _), session in self._sessions.items()
            if cid == case_id
            for message in session.integrity_warnings
        ]

    def require(self, case_id: str) -> None:
        """Refuse a case that does not exist (one indexed read of its head)."""
        if self.store.head(case_id)[0] == 0:
            raise CaseNotFound(f"no case {case_id!r}", remedy=SEE_CASES)

    def execute(
        self, case_id: str, decide: Callable[[Draft], Any], who: Who
    ) -> tuple[list[Event], Any]:
        """Decide on the case's fold and append what the draft holds, retrying on a lost race."""
        return self.session(case_id, history=False).execute(decide, who)

    def append_at_head(self, case_id: str, event: NewEvent, who: Who) -> Event:
        """Append one event that needs no belief state, knowing only the head: its cost does
        not grow with the case."""
        stamped = NewEvent(event.type, event.payload, who.actor, who.at, event.version)

        def attempt() -> Event:
            seq, _ = self.store.head(case_id)
            if seq == 0:
                raise CaseNotFound(f"no case {case_id!r}", remedy=SEE_CASES)
            return self.store.append(case_id, seq, [stamped])[0]

        return write_retrying(self.store, case_id, attempt)

    def one(self, case_id: str, make: Callable[[Projection], NewEvent], who: Who) -> Event:
        """Append the one event ``make`` decides on the fold."""
        appended, _ = self.execute(case_id, lambda draft: draft.add(make(draft.projection)), who)
        event: Event = appended[0]
        return event
