"""The postmortem's actions: write a section, record or amend an action item, say the
document's title, authors and review date.

A ``casefile postmortem`` group rather than more ``conclude`` options: the conclusion is
recorded once, when the case is solved, by whoever solved it; the postmortem is written after
it, by several people over days, one section at a time, and amended as action items move
(an owner changes, an item is done). One small command per entry fits that; a ``conclude``
with fifteen options would record the whole document at once, and amending one line would
mean concluding again. Each row's command line is what the report shows beside a section
not yet recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from casefile.actions.spec import ActionSpec, Option, Outcome, command_line
from casefile.domain.postmortem_terms import ITEM_STATUSES, PRIORITIES, SECTIONS

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who


@dataclass(frozen=True)
class WriteSection:
    section: str
    text: str

    def __post_init__(self) -> None:
        if self.section not in SECTIONS:
            raise ValueError(f"section must be one of {', '.join(SECTIONS)}")

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        from casefile.app.postmortem import record_section

        event = record_section(service, case_id, self.section, self.text, who)
        said = f"postmortem {self.section} recorded as event {event.seq}"
        return Outcome(said, str(event.seq), (event.seq,))


@dataclass(frozen=True)
class RecordItem:
    text: str | None = None
    owner: str | None = None
    priority: str | None = None
    status: str | None = None
    ticket: str | None = None
    item: str | None = None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        from casefile.app.postmortem import record_item

        event = record_item(
            service,
            case_id,
            self.item,
            self.text,
            self.owner,
            self.priority,
            self.status,
            self.ticket,
            who,
        )
        from casefile.domain.event_types.postmortem import PostmortemItem  # not for --help

        item = PostmortemItem.of(event.payload).item
        return Outcome(f"action item {item} recorded as event {event.seq}", item, (event.seq,))


@dataclass(frozen=True)
class AboutPostmortem:
    title: str | None = None
    authors: tuple[str, ...] = ()
    review_date: str | None = None

    def __post_init__(self) -> None:
        if self.review_date is not None:
            try:
                date.fromisoformat(self.review_date)
            except ValueError:
                raise ValueError("review date must be a date: YYYY-MM-DD") from None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        from casefile.app.postmortem import record_about

        event = record_about(service, case_id, self.title, self.authors, self.review_date, who)
        return Outcome(f"postmortem recorded as event {event.seq}", str(event.seq), (event.seq,))


# --- the rows of the action table ------------------------------------------------------

SECTION = ActionSpec(
    "postmortem-section",
    "Postmortem section",
    WriteSection,
    (
        Option(
            "section",
            "Section",
            "choice",
            required=True,
            choices=tuple(SECTIONS),
            example="impact",
            noun="section",
            help="one of " + ", ".join(SECTIONS),
        ),
        Option(
            "text",
            "Text (several lines allowed)",
            "note",
            required=True,
            noun="text",
            help="the section's text, or - to read it from stdin (replaces what it said)",
        ),
    ),
    ("postmortem", "section"),
    "write (or rewrite) a section of the postmortem",
    ("Postmortem section", "Write a postmortem section: impact, trigger, detection, …"),
    heading="Write a postmortem section",
)

ITEM = ActionSpec(
    "postmortem-item",
    "Action item",
    RecordItem,
    (
        Option("text", "What is to be done", flag="--text", noun="action item"),
        Option("owner", "Owner", flag="--owner", example="ana", noun="owner"),
        Option(
            "priority",
            "Priority (P0 … P3)",
            "choice",
            flag="--priority",
            choices=PRIORITIES,
            noun="priority",
        ),
        Option(
            "status",
            "Status (new items: open)",
            "choice",
            flag="--status",
            choices=ITEM_STATUSES,
            noun="status",
        ),
        Option("ticket", "Ticket (optional)", flag="--ticket", example="OPS-123", noun="ticket"),
        Option(
            "item",
            "Item to amend (empty: a new one)",
            flag="--id",
            example="a1",
            noun="item",
            help="the action item to amend (default: a new one; prints its id)",
        ),
    ),
    ("postmortem", "item"),
    "record a postmortem action item, or amend one (--id)",
    ("Action item", "Record or amend a postmortem action item: owner, priority, status"),
    heading="Record a postmortem action item",
)

ABOUT = ActionSpec(
    "postmortem-about",
    "Postmortem",
    AboutPostmortem,
    (
        Option("title", "Title", flag="--title", noun="title"),
        Option(
            "authors",
            "Authors, one per line",
            "lines",
            flag="--author",
            default=(),
            noun="author",
            help="an author (repeatable; replaces the list)",
        ),
        Option(
            "review_date",
            "Review date (YYYY-MM-DD)",
            flag="--review-date",
            example="2026-03-09",
            noun="review date",
        ),
    ),
    ("postmortem", "about"),
    "the postmortem's title, authors and review date",
    ("Postmortem title", "The postmortem's title, authors and review date"),
    heading="The postmortem's title, authors and review date",
)


def record_hint(case_id: str) -> Callable[[str], str]:
    """For the report: key (a section, ``item``, ``amend``, ``about``) → the command line that
    records it in ``case_id``, from the rows above, with words to replace in capitals."""

    def hint(key: str) -> str:
        if key in SECTIONS:
            return command_line(SECTION, WriteSection(key, "TEXT"), case_id, "user")
        if key == "item":
            made = RecordItem("WHAT", "OWNER", "P2")
            return command_line(ITEM, made, case_id, "user")
        if key == "amend":
            return command_line(ITEM, RecordItem(status="done", item="ID"), case_id, "user")
        if key == "about":
            line = command_line(ABOUT, AboutPostmortem(authors=("NAME",)), case_id, "user")
            return f"{line} {ABOUT.option('review_date').flag} YYYY-MM-DD"
        raise KeyError(key)

    return hint
