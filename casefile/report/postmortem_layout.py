"""The report's opening, as a team circulates it: the postmortem's header and status, the
template's sections and action items, the root cause with how sure it is, the key moments and
what the case teaches. The audit sections follow (``casefile.report.layout``).
"""

from __future__ import annotations

from casefile.report.blocks import (
    Block,
    Bullets,
    Cell,
    Heading,
    Mono,
    Para,
    Span,
    Strong,
    Table,
    opt,
)
from casefile.report.model import Report, RootCause
from casefile.report.numbers import pct
from casefile.report.postmortem_model import Postmortem

#: the words for a root cause the case does not settle
UNCONFIRMED = "probable, unconfirmed"


def cause_label(cause: RootCause) -> str:
    label = "Root cause" if cause.concluded else "Leading (not concluded)"
    return f"{label} ({UNCONFIRMED})" if cause.unconfirmed else label


def opening(report: Report) -> list[Block]:
    blocks: list[Block] = []
    if report.postmortem is not None:
        blocks += _document(report.postmortem)
    blocks += _root_cause(report)
    blocks += _moments(report)
    blocks += _lessons(report)
    return blocks


def _not_recorded(command: str | None) -> Cell:
    return ("not recorded", *((" — record it: ", Mono(command)) if command else ()))


def _document(pm: Postmortem) -> list[Block]:
    head = pm.header
    status: list[Span] = [Strong(head.status)]
    if head.missing:
        status.append(" — " + "; ".join(head.missing))
    about = head.record_about
    rows: list[tuple[Cell, ...]] = [
        (("Status",), tuple(status)),
        (
            ("Authors",),
            (", ".join(head.authors), " — ", head.authors_ref)
            if head.authors and head.authors_ref
            else _not_recorded(about),
        ),
        (("Incident",), (head.incident,)),
        (("Concluded",), opt(head.concluded)),
        (
            ("Review date",),
            (head.review_date, " — ", head.review_ref)
            if head.review_date and head.review_ref
            else _not_recorded(about),
        ),
    ]
    blocks: list[Block] = [
        Heading(2, "1. Postmortem", "postmortem"),
        Table(("", ""), tuple(rows), widths=(18, 82)),
    ]
    missing: list[tuple[Cell, ...]] = []
    for section in pm.sections:
        if section.text is None or section.ref is None:
            missing.append(((section.heading,), _not_recorded(section.record)))
            continue
        blocks.append(Heading(3, section.heading, f"pm-{section.key}"))
        blocks.append(Para((section.text, " (", section.ref, ")")))
    if missing:
        blocks.append(Heading(3, "Not recorded yet", "pm-missing"))
        blocks.append(Table(("section", ""), tuple(missing), widths=(22, 78)))
    blocks.append(Heading(3, "Action items", "pm-items"))
    if pm.items:
        rows = [
            (
                (Strong(i.id),),
                (i.text,),
                (i.owner,),
                (i.priority,),
                (i.status,),
                opt(i.ticket),
                tuple(x for n, r in enumerate(i.refs) for x in ((", ", r) if n else (r,))),
            )
            for i in pm.items
        ]
        blocks.append(
            Table(
                ("item", "what", "owner", "priority", "status", "ticket", "events"),
                tuple(rows),
                widths=(6, 40, 11, 8, 10, 10, 15),
            )
        )
        if head.record_amend and head.missing:
            blocks.append(Para(("Amend an item: ", Mono(head.record_amend))))
    else:
        blocks.append(Para(_not_recorded(head.record_item)))
    return blocks


def _root_cause(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, "2. Root cause", "root-cause")]
    for cause in report.summary.root_causes:
        cell: list[Span] = [
            Strong(cause_label(cause) + ":"),
            " ",
            Strong(cause.text),
            f" ({cause.hypothesis}), {pct(cause.confidence)}",
        ]
        if cause.runner_up is not None:
            cell.append(f"; the runner-up, {cause.runner_up}, {pct(cause.runner_up_confidence)}")
        if cause.unconfirmed:
            why = []
            if cause.runner_up_confidence * 2.0 >= cause.confidence:
                why.append("the runner-up is within a factor of two")
            if not cause.measured:
                why.append("no measured evidence supports it")
            cell.append(f". {UNCONFIRMED.capitalize()}: " + "; ".join(why) + ".")
        else:
            cell.append(".")
        blocks.append(Para(tuple(cell)))
    return blocks


def _moments(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, "3. Key moments", "moments")]
    if not report.moments:
        return [*blocks, Para(("No pivot, decisive evidence, experiment or conclusion yet.",))]
    rows = tuple(
        ((m.ref,), (m.when,), (m.kind,), (m.text,), opt(m.suggested)) for m in report.moments
    )
    blocks.append(
        Table(
            ("event", "time", "kind", "what happened", "casefile suggested"),
            rows,
            widths=(12, 13, 9, 44, 22),
        )
    )
    return blocks


def _lessons(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, "4. What the case teaches", "teaches")]
    if not report.lessons:
        return [*blocks, Para(("Nothing the log shows stands out.",))]
    items: list[Cell] = []
    for lesson in report.lessons:
        cell: list[Span] = [lesson.text, " ("]
        for n, ref in enumerate(lesson.refs):
            cell += [", ", ref] if n else [ref]
        items.append((*cell, ")"))
    blocks.append(Bullets(tuple(items)))
    return blocks
