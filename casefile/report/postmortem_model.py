"""The postmortem's own part of the report as plain data: the document's header, the template's
sections, the owned action items, the key moments and what the case teaches.

Like the rest of the model, every claim carries the events it rests on (:class:`Ref`), so
``report verify`` checks these sections too, and redaction treats their text as it treats a
note's.
"""

from __future__ import annotations

from dataclasses import dataclass

from casefile.report.model import Ref


@dataclass(frozen=True, slots=True)
class PmSection:
    key: str  # impact, trigger, … (the event's ``section``)
    heading: str
    text: str | None  # None: not recorded yet
    ref: Ref | None
    record: str | None  # the command that records it (shown while it is not recorded)


@dataclass(frozen=True, slots=True)
class PmItem:
    id: str
    text: str
    owner: str
    priority: str
    status: str
    ticket: str | None
    refs: tuple[Ref, ...]  # every event that shaped it


@dataclass(frozen=True, slots=True)
class PmHeader:
    title: str
    status: str  # "draft" until every section, an action item and the authors are recorded
    authors: tuple[str, ...]
    authors_ref: Ref | None
    review_date: str | None
    review_ref: Ref | None
    title_ref: Ref | None
    incident: str  # the case's first to last event, as the summary says it
    concluded: str | None  # when the conclusion was recorded
    missing: tuple[str, ...]  # what keeps it a draft, in words
    record_about: str | None  # the command that records title, authors and review date
    record_item: str | None  # the command that records an action item
    record_amend: str | None  # the command that amends one


@dataclass(frozen=True, slots=True)
class Postmortem:
    header: PmHeader
    sections: tuple[PmSection, ...]
    items: tuple[PmItem, ...]


@dataclass(frozen=True, slots=True)
class Moment:
    """One step that mattered: a pivot, decisive evidence, an experiment, the conclusion."""

    ref: Ref
    when: str
    kind: str  # pivot, evidence, experiment, conclusion
    text: str
    suggested: str | None  # what casefile suggested at that step (and whether it was taken)


@dataclass(frozen=True, slots=True)
class Lesson:
    """One thing the log itself teaches, with the events it is read from."""

    text: str
    refs: tuple[Ref, ...]
