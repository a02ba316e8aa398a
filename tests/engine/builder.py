"""Build sealed event streams in memory, for testing the domain without a store."""

from __future__ import annotations

from casefile.domain.beliefs import Projection, project
from casefile.domain.catalogue import validate_payload
from casefile.domain.events import GENESIS_HASH, Event, NewEvent, seal


class CaseBuilder:
    """Appends events through the domain commands, the way the service does, minus storage."""

    def __init__(self, title: str = "test case") -> None:
        self.events: list[Event] = []
        self.add(NewEvent("case.opened", {"title": title}))

    @property
    def projection(self) -> Projection:
        return project(self.events)

    def add(self, new: NewEvent) -> Event:
        payload = validate_payload(new.type, new.version, new.payload)
        prev = self.events[-1].hash if self.events else GENESIS_HASH
        event = seal(
            "case-1",
            len(self.events) + 1,
            prev,
            NewEvent(new.type, payload, new.actor, new.occurred_at, new.version),
            recorded_at=f"2026-01-01T00:00:{len(self.events):02d}.000000Z",
        )
        self.events.append(event)
        return event
