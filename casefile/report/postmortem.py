"""The postmortem's sections of the report: the document's header and the template's sections
(from the ``postmortem.*`` events), the key moments of the case and what the case teaches
(read from the log).

A section not recorded yet says so, with the command that records it; that command comes from
the action table through ``record`` (the report sits below the actions and cannot read the
table itself: the front end that asks for the report lends it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from casefile.app.views.postmortem import build_postmortem
from casefile.domain.event_types import EVENT_TYPES
from casefile.domain.event_types.stored import StoredSetAside
from casefile.domain.postmortem_terms import SECTIONS
from casefile.report.model import EvidenceRow, Health, Pivot, PivotAdvice, Ref, Summary
from casefile.report.numbers import bits, events
from casefile.report.postmortem_model import (
    Lesson,
    Moment,
    PmHeader,
    PmItem,
    PmSection,
    Postmortem,
)
from casefile.report.sources import Sources, quote

#: key ("impact" …, "item", "about") → the command line that records it, for this case
Record = Callable[[str], str]
#: How many pieces of evidence count as decisive moments (the largest leave-one-out shifts).
DECISIVE_MOMENTS = 3


def build_postmortem_part(src: Sources, summary: Summary, record: Record | None) -> Postmortem:
    view = build_postmortem(src.events)

    def hint(key: str) -> str | None:
        return None if record is None else record(key)

    sections = tuple(
        PmSection(
            key,
            heading,
            None if key not in view.sections else view.sections[key].text,
            None if key not in view.sections else src.ref(view.sections[key].seq),
            None if key in view.sections else hint(key),
        )
        for key, heading in SECTIONS.items()
    )
    items = tuple(
        PmItem(
            i.id,
            i.text or "",
            i.owner or "—",
            i.priority or "—",
            i.status or "open",
            i.ticket,
            tuple(src.ref(seq) for seq in i.seqs),
        )
        for i in view.items
    )
    missing = []
    if view.missing:
        missing.append(", ".join(SECTIONS[k].lower() for k in view.missing) + " not recorded")
    if not view.items:
        missing.append("no action item")
    if not view.authors:
        missing.append("no authors")
    concluded = src.status.concluded
    header = PmHeader(
        title=summary.title if view.title is None else view.title.text,
        status="complete" if view.complete else "draft",
        authors=view.authors,
        authors_ref=None if view.authors_seq is None else src.ref(view.authors_seq),
        review_date=None if view.review_date is None else view.review_date.text,
        review_ref=None if view.review_date is None else src.ref(view.review_date.seq),
        title_ref=None if view.title is None else src.ref(view.title.seq),
        incident=f"{summary.started} to {summary.ended} ({summary.duration})",
        concluded=None if concluded is None else src.when(concluded.seq),
        missing=tuple(missing),
        record_about=hint("about") if not (view.authors and view.review_date) else None,
        record_item=hint("item"),
        record_amend=hint("amend") if view.items else None,
    )
    return Postmortem(header, sections, items)


def build_moments(
    src: Sources, pivots: Sequence[Pivot], evidence: Sequence[EvidenceRow], health: Health
) -> tuple[Moment, ...]:
    """The pivots (top level), the most decisive evidence, the experiments and the conclusion,
    in the order they happened, each with what casefile suggested there where it did."""
    advice = {a.pivot.seq: a for a in health.advice}
    moments: dict[int, Moment] = {}
    for p in pivots:
        if p.parent is not None:
            continue
        text = f"{p.question}: {p.before} → {p.after} on {p.reading}"
        found = advice.get(p.ref.seq)
        moments[p.ref.seq] = Moment(
            p.ref, src.when(p.ref.seq), "pivot", text, None if found is None else _said(found)
        )
    decisive = [e for e in evidence if e.bits is not None and e.bits > 0.0]
    for row in decisive[:DECISIVE_MOMENTS]:
        text = f"decisive evidence {row.evidence} ({bits(row.bits)}): {quote(row.rationale, 160)}"
        if row.ref.seq in moments:
            old = moments[row.ref.seq]
            moments[row.ref.seq] = Moment(
                old.ref, old.when, old.kind, f"{old.text}; {text}", old.suggested
            )
        else:
            moments[row.ref.seq] = Moment(row.ref, src.when(row.ref.seq), "evidence", text, None)
    for event in src.events:
        if event.type == "experiment.recorded":
            kind = EVENT_TYPES[event.type]
            moments.setdefault(
                event.seq,
                Moment(
                    Ref(event.seq, event.hash),
                    src.when(event.seq),
                    "experiment",
                    quote(kind.summary(event.payload)),
                    None,
                ),
            )
    concluded = src.status.concluded
    if concluded is not None:
        moments[concluded.seq] = Moment(
            src.ref(concluded.seq),
            src.when(concluded.seq),
            "conclusion",
            quote(concluded.summary),
            None,
        )
    return tuple(moments[seq] for seq in sorted(moments))


def _said(advice: PivotAdvice) -> str:
    if advice.probe is None:
        return "nothing left to suggest"
    load = " under load" if advice.load == "under-load" else ""
    said = f"run {advice.probe}{load}"
    if advice.gain_bits is not None:
        said += f" ({bits(advice.gain_bits)} expected)"
    if advice.taken is not None:
        return f"{said}: taken at event {advice.taken.seq}"
    if advice.otherwise is not None:
        return f"{said}: run at event {advice.otherwise.seq}, but not under the load it needed"
    return f"{said}: not taken"


def build_lessons(src: Sources, health: Health) -> tuple[Lesson, ...]:
    """What the log itself shows: how long a leader led on no measurement, the readings set
    aside and why, and the step that turned the case."""
    out = []
    for span in health.unmeasured:
        until = "the end" if span.end is None else f"event {span.end.seq}"
        out.append(
            Lesson(
                f"{span.leader} led {span.question} for {events(span.events)} ({span.duration}), "
                f"from event {span.start.seq} to {until}, with no measurement behind it.",
                tuple(r for r in (span.start, span.end) if r is not None),
            )
        )
    set_asides = [StoredSetAside(record) for record in src.projection.set_asides]
    reasons = Counter(r.reason for r in set_asides)
    if reasons:
        total = sum(reasons.values())
        why = "; ".join(f"{n}× {quote(reason, 120)}" for reason, n in reasons.most_common(3))
        refs = tuple(Ref(r.seq, r.hash) for r in set_asides[:3])
        out.append(Lesson(f"{total} readings were set aside, unused: {why}.", refs))
    if health.first_measurement is not None and health.first_pivot_after is not None:
        gap = f" ({health.measurement_to_pivot} later)" if health.measurement_to_pivot else ""
        out.append(
            Lesson(
                f"The first measurement (event {health.first_measurement.seq}) turned the case: "
                f"the leader changed at event {health.first_pivot_after.seq}{gap}.",
                (health.first_measurement, health.first_pivot_after),
            )
        )
    for advice in health.advice:
        if advice.probe is not None and advice.taken is None and advice.otherwise is not None:
            out.append(
                Lesson(
                    f"After the pivot at event {advice.pivot.seq} casefile suggested "
                    f"{advice.probe} under load; it was run at event {advice.otherwise.seq}, "
                    "at idle, where its reading could not count.",
                    (advice.pivot, advice.otherwise),
                )
            )
    return tuple(out)
