"""Recording the postmortem: a section's text, an action item (new or amended), the document's
title, authors and review date, each as one ``postmortem.*`` event appended at the case's head.

The events move no belief, so a write needs only the head (like a note) and its cost does not
grow with the case; an action item's id and whether it exists are read from the case's events.
What a person writes is scrubbed of secrets before it is sealed, as a note is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from casefile.app.scrubbing import scrub_text
from casefile.app.session import write_retrying
from casefile.app.views.postmortem import build_postmortem
from casefile.domain.event_types import new_event
from casefile.domain.event_types.postmortem import (
    PostmortemAbout,
    PostmortemItem,
    PostmortemSection,
)
from casefile.domain.events import NewEvent
from casefile.errors import SEE_CASES, CaseNotFound, DomainError

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who
    from casefile.domain.events import Event


def record_section(service: CaseService, case_id: str, section: str, text: str, who: Who) -> Event:
    if not text.strip():
        raise DomainError(f"the postmortem's {section} needs some text")
    event = new_event(PostmortemSection, section=section, text=scrub_text(text))
    return _append(service, case_id, event, who)


def record_item(
    service: CaseService,
    case_id: str,
    item: str | None,
    text: str | None,
    owner: str | None,
    priority: str | None,
    status: str | None,
    ticket: str | None,
    who: Who,
) -> Event:
    """A new action item (``item`` None or an id not used yet: text, owner and priority
    required; status "open" unless given) or an amendment of item ``item``."""
    known = {i.id for i in build_postmortem(service.reader.events(case_id)).items}
    if item is None or item not in known:
        missing = [
            n for n, v in (("text", text), ("owner", owner), ("priority", priority)) if not v
        ]
        if missing:
            what = f"action item {item}" if item else "a new action item"
            raise DomainError(f"{what} needs its {' and '.join(missing)}")
        if item is None:
            item = next(f"a{n}" for n in range(1, len(known) + 2) if f"a{n}" not in known)
        status = status or "open"
    elif not any((text, owner, priority, status, ticket)):
        raise DomainError(f"nothing to change in action item {item}")
    event = new_event(
        PostmortemItem,
        item=item,
        text=scrub_text(text) if text else None,
        owner=scrub_text(owner) if owner else None,
        priority=priority,
        status=status,
        ticket=scrub_text(ticket) if ticket else None,
    )
    return _append(service, case_id, event, who)


def record_about(
    service: CaseService,
    case_id: str,
    title: str | None,
    authors: Sequence[str],
    review_date: str | None,
    who: Who,
) -> Event:
    if not (title or authors or review_date):
        raise DomainError("give the postmortem's title, an author or its review date")
    event = new_event(
        PostmortemAbout,
        title=scrub_text(title) if title else None,
        authors=[scrub_text(a) for a in authors] or None,
        review_date=review_date,
    )
    return _append(service, case_id, event, who)


def _append(service: CaseService, case_id: str, event: NewEvent, who: Who) -> Event:
    """Append one event knowing only the case's head (retrying when another writer wins)."""
    stamped = NewEvent(event.type, event.payload, who.actor, who.at, event.version)
    store = service.store

    def attempt() -> Event:
        seq, _ = store.head(case_id)
        if seq == 0:
            raise CaseNotFound(f"no case {case_id!r}", remedy=SEE_CASES)
        return store.append(case_id, seq, [stamped])[0]

    return write_retrying(store, case_id, attempt)
