"""The postmortem's events: its sections, its action items and what the document says of itself.

The postmortem is written after (or while) a case is worked, by several people, section by
section, as the Google SRE template asks: impact, trigger, detection, resolution and how it was
verified, what went well, what went badly, where the team got lucky, and owned action items.
Each is an event, so a later event amends an earlier one (the newest text of a section, the
newest value of each field of an action item, the newest title, authors and review date) and
the history of the document is the case's own. None of these is folded: they move no belief.
"""

from __future__ import annotations

from pydantic import Field

from casefile.domain.event_types.base import (
    EventType,
    Fields,
    NarrativeLine,
    Payload,
)
from casefile.domain.postmortem_terms import SECTIONS, ItemStatus, Priority, Section


class PostmortemSection(Payload):
    """One section's text; a later event for the same section replaces it."""

    section: Section
    text: str = Field(min_length=1)


class PostmortemItem(Payload):
    """An action item, or an amendment of one: the first event of an item gives its text,
    owner, priority and status; a later one gives only what changed."""

    item: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    text: str | None = Field(default=None, min_length=1)
    owner: str | None = Field(default=None, min_length=1)
    priority: Priority | None = None
    status: ItemStatus | None = None
    ticket: str | None = Field(default=None, min_length=1)


class PostmortemAbout(Payload):
    """The document's own lines: its title, its authors and the date it is to be reviewed
    (each as given last)."""

    title: str | None = Field(default=None, min_length=1)
    authors: list[str] | None = Field(default=None, min_length=1)
    review_date: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")


def _section(p: Fields) -> str:
    return f"postmortem {_section_text(p)}"


def _section_text(p: Fields) -> str:
    section = str(p["section"])
    return f"{SECTIONS.get(section, section).lower()}: {p['text']}"


def _item(p: Fields) -> str:
    said = [str(p[k]) for k in ("priority", "status") if p.get(k)]
    if p.get("owner"):
        said.append(f"owner {p['owner']}")
    if p.get("ticket"):
        said.append(f"ticket {p['ticket']}")
    head = f"action item {p['item']}" + (f": {p['text']}" if p.get("text") else "")
    return head + (f" ({', '.join(said)})" if said else "")


def _about(p: Fields) -> str:
    return "postmortem: " + _about_text(p)


def _about_text(p: Fields) -> str:
    said = []
    if p.get("title"):
        said.append(f"title {p['title']}")
    if p.get("authors"):
        said.append("authors " + ", ".join(p["authors"]))
    if p.get("review_date"):
        said.append(f"review {p['review_date']}")
    return "; ".join(said)


POSTMORTEM_SECTION = EventType(
    "postmortem.section",
    1,
    PostmortemSection,
    label="pm section",
    summary=_section,
    beside_label=_section_text,
    narrative=lambda p, ctx: NarrativeLine(ctx.quote(_section(p)), kind="postmortem"),
    folded=False,
    artifact_fields=(),
    redact_fields={"text": "text"},
)

POSTMORTEM_ITEM = EventType(
    "postmortem.item",
    1,
    PostmortemItem,
    label="action item",
    summary=_item,
    narrative=lambda p, ctx: NarrativeLine(ctx.quote(_item(p)), kind="postmortem"),
    folded=False,
    artifact_fields=(),
    redact_fields={"text": "text", "owner": "text", "ticket": "text"},
)

POSTMORTEM_ABOUT = EventType(
    "postmortem.about",
    1,
    PostmortemAbout,
    label="pm about",
    summary=_about,
    beside_label=_about_text,
    narrative=lambda p, ctx: NarrativeLine(ctx.quote(_about(p)), kind="postmortem"),
    folded=False,
    artifact_fields=(),
    redact_fields={"title": "text", "authors": "text"},
)

#: The types of this family, as :data:`~casefile.domain.event_types.EVENT_TYPES` lists them.
TYPES = (POSTMORTEM_SECTION, POSTMORTEM_ITEM, POSTMORTEM_ABOUT)
