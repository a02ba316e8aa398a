"""The postmortem as it stands: each section's newest text, each action item with the newest
value of each field, and the document's title, authors and review date, read from the
``postmortem.*`` events in order (a later event amends an earlier one).

Each value keeps the seq of the event that last set it, so the report can cite it; an item
keeps every seq that shaped it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from casefile.domain.postmortem_terms import SECTIONS


@dataclass(frozen=True, slots=True)
class Said:
    """A value and the event that last set it."""

    text: str
    seq: int


#: the fields of an action item a later event may amend
ITEM_FIELDS = ("text", "owner", "priority", "status", "ticket")


@dataclass(frozen=True, slots=True)
class ItemView:
    id: str
    text: str | None
    owner: str | None
    priority: str | None
    status: str | None
    ticket: str | None
    seqs: tuple[int, ...]  # every event that shaped it, oldest first


@dataclass(frozen=True, slots=True)
class PostmortemView:
    sections: Mapping[str, Said] = field(default_factory=dict)  # section → its newest text
    items: tuple[ItemView, ...] = ()  # in the order they were first recorded
    title: Said | None = None
    authors: tuple[str, ...] = ()
    authors_seq: int | None = None
    review_date: Said | None = None

    @property
    def missing(self) -> tuple[str, ...]:
        """The template's sections not recorded yet, in the template's order."""
        return tuple(s for s in SECTIONS if s not in self.sections)

    @property
    def complete(self) -> bool:
        """Every section, at least one action item and the authors are recorded."""
        return not self.missing and bool(self.items) and bool(self.authors)

    @property
    def seqs(self) -> tuple[int, ...]:
        """Every event the postmortem rests on, in order."""
        out = {s.seq for s in self.sections.values()}
        for item in self.items:
            out.update(item.seqs)
        for said in (self.title, self.review_date):
            if said is not None:
                out.add(said.seq)
        if self.authors_seq is not None:
            out.add(self.authors_seq)
        return tuple(sorted(out))


def build_postmortem(events: Iterable[Any]) -> PostmortemView:
    """The postmortem from ``events`` (any objects with ``seq``, ``type`` and ``payload``)."""
    sections: dict[str, Said] = {}
    items: dict[str, ItemView] = {}
    title: Said | None = None
    authors: tuple[str, ...] = ()
    authors_seq: int | None = None
    review: Said | None = None
    for event in events:
        kind = event.type
        if not kind.startswith("postmortem."):
            continue
        p = event.payload
        seq = int(event.seq)
        if kind == "postmortem.section":
            sections[str(p["section"])] = Said(str(p["text"]), seq)
        elif kind == "postmortem.item":
            iid = str(p["item"])
            old = items.get(iid) or ItemView(iid, None, None, None, None, None, ())
            changed = {k: str(p[k]) for k in ITEM_FIELDS if k in p}
            items[iid] = replace(old, **changed, seqs=(*old.seqs, seq))
        elif kind == "postmortem.about":
            if p.get("title"):
                title = Said(str(p["title"]), seq)
            if p.get("authors"):
                authors, authors_seq = tuple(str(a) for a in p["authors"]), seq
            if p.get("review_date"):
                review = Said(str(p["review_date"]), seq)
    ordered = {s: sections[s] for s in SECTIONS if s in sections}
    return PostmortemView(ordered, tuple(items.values()), title, authors, authors_seq, review)
