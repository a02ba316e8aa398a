"""The report's document, independent of format: headings, paragraphs, tables, lists, code.

Both writers (Markdown, HTML) render this one layout, so the two formats carry the same
sections, the same claims and the same references; a writer only decides how a block looks
and how text is escaped. Inline content is a sequence of spans: plain strings (text from the
case, escaped by the writer), :class:`Strong` and :class:`~casefile.report.model.Ref`
(written as ``seq@hash``; a link to the event's timeline row in HTML).
"""

from __future__ import annotations

from casefile.app.views.standing import UNLIKELY
from casefile.report import digest
from casefile.report.appendix import appendix
from casefile.report.blocks import (
    Block,
    Bullets,
    Cell,
    ChartBlock,
    Heading,
    Para,
    Span,
    Strong,
    Table,
    opt,
    refs,
)
from casefile.report.evidence_layout import evidence_section
from casefile.report.model import PivotAdvice, Report, RuledOut
from casefile.report.numbers import bits, events, pct, ref_label
from casefile.report.postmortem_layout import cause_label, opening


def layout(report: Report) -> list[Block]:
    blocks: list[Block] = []
    blocks += _summary(report)
    blocks += _trajectory(report)
    blocks += _pivots(report)
    blocks += _ruled_out(report)
    blocks += evidence_section(report)
    blocks += _set_aside(report)
    blocks += _health(report)
    blocks += _closing(report)
    blocks += _integrity(report)
    blocks += appendix(report)
    return _numbered(blocks)


def _numbered(blocks: list[Block]) -> list[Block]:
    """The sections numbered in the order they stand (each is written as ``N. …``)."""
    out: list[Block] = []
    n = 0
    for block in blocks:
        if isinstance(block, Heading) and block.level == 2 and block.text[:1].isdigit():
            n += 1
            block = Heading(2, f"{n}. {block.text.split('. ', 1)[1]}", block.anchor)
        out.append(block)
    return out


def _summary(report: Report) -> list[Block]:
    s = report.summary
    i = report.integrity
    made = f"casefile {i.casefile_version}; times in {s.zone}"
    if i.upto is not None:
        made += f"; as of event {i.upto}"
    if report.redacted:
        made += (
            "; redacted (host names, addresses, user names and identifiers are pseudonyms; "
            "credentials are secret-N, kept nowhere)"
        )
    rows: list[tuple[Cell, ...]] = [
        (("Title",), (s.title,)),
        (("Case",), (s.case_id,)),
        (("Symptom",), opt(s.symptom)),
    ]
    for key, value in s.environment:
        rows.append(((f"Environment: {key}",), (value,)))
    rows.append(
        (("Outcome",), (*opt(s.outcome), *((" — ", s.outcome_ref) if s.outcome_ref else ())))
    )
    for cause in s.root_causes:
        label = cause_label(cause)
        cell: list[Span] = [
            Strong(cause.text),
            f" ({cause.hypothesis}, question {cause.question}): {pct(cause.confidence)} at the end",
        ]
        if cause.rests_on:
            cell.append("; rests on ")
            for n, support in enumerate(cause.rests_on):
                if n:
                    cell.append("; ")
                cell += [support.ref, f" {support.evidence} ({bits(support.bits, True)}: "]
                cell.append(f"{support.reading})")
        rows.append(((label,), tuple(cell)))
    rows.append(
        (
            ("Duration",),
            (
                f"{s.duration} (by event time, {s.started} to {s.ended}: ",
                s.first,
                " to ",
                s.last,
                ")",
            ),
        )
    )
    people = ", ".join(f"{p.actor} ({events(p.events)})" for p in s.participants)
    rows.append((("Took part",), (people,)))
    title = report.postmortem.header.title if report.postmortem is not None else s.title
    return [
        Heading(1, f"Postmortem: {title}", "top"),
        Para((made,)),
        *opening(report),
        Heading(2, "1. Case summary", "summary"),
        Table(("", ""), tuple(rows), widths=(18, 82)),
    ]


def _trajectory(report: Report) -> list[Block]:
    blocks: list[Block] = [
        Heading(2, "2. Confidence trajectory", "trajectory"),
        Para(
            (
                "Each top-level hypothesis (and the final leader's children, dashed) at every "
                "evidence event and pivot; x is the step, labelled with its event time.",
            )
        ),
        ChartBlock(report.charts),
    ]
    for chart in report.charts:
        headers = ("pivot", "time", *(s.hypothesis for s in chart.series))
        rows: tuple[tuple[Cell, ...], ...] = tuple(
            ((p.ref,), (p.when,), *((pct(v),) for v in p.values)) for p in chart.pivots
        )
        blocks.append(Para((Strong(f"Numbers at each pivot ({chart.question})"),)))
        if rows:
            blocks.append(Table(headers, rows))
        else:
            blocks.append(Para(("No pivot: the leader never changed.",)))
    return blocks


def _pivots(report: Report) -> list[Block]:
    rows = []
    for p in report.pivots:
        where = (
            p.question if p.parent is None else f"{p.question}, under {p.parent} (depth {p.depth})"
        )
        before = ", ".join(f"{s.hypothesis} {pct(s.confidence)}" for s in p.belief_before)
        after = ", ".join(f"{s.hypothesis} {pct(s.confidence)}" for s in p.belief_after)
        reading: list[Span] = [p.reading]
        if p.reading_ref is not None:
            reading += [" (reading ", p.reading_ref, ")"]
        rows.append(
            (
                (p.ref,),
                (where,),
                (f"{p.before} → {p.after}",),
                tuple(reading),
                (bits(p.surprise_bits),),
                (before or "—",),
                (after or "—",),
            )
        )
    blocks: list[Block] = [Heading(2, "4. Pivots", "pivots")]
    if rows:
        blocks.append(
            Table(
                ("event", "where", "leader", "reading", "surprise", "before", "after"),
                tuple(rows),
                widths=(12, 10, 14, 24, 8, 16, 16),
            )
        )
    else:
        blocks.append(Para(("The leader never changed.",)))
    return blocks


def _standing_words(r: RuledOut) -> str:
    return ", retired" if r.retired else ", unlikely" if r.standing == UNLIKELY else ""


def _ruled_out(report: Report) -> list[Block]:
    rows = tuple(
        (
            (Strong(r.hypothesis),),
            (r.text,),
            (pct(r.confidence) + _standing_words(r),),
            (r.reason,),
            refs([r.ref]),
            (bits(r.bits, True),),
        )
        for r in report.ruled_out
    )
    blocks: list[Block] = [Heading(2, "5. Ruled out", "ruled-out")]
    if rows:
        blocks.append(
            Table(
                ("hypothesis", "text", "final", "ruled out by", "event", "weight"),
                rows,
                widths=(13, 22, 9, 37, 12, 7),
            )
        )
        blocks.append(
            Para(
                (
                    "Weight: log₂ of the likelihood that evidence gave the hypothesis over the "
                    "one it gave the others (tempered by its reliability); a retirement has none.",
                )
            )
        )
    else:
        blocks.append(Para(("No hypothesis ended below 5 % or retired.",)))
    for alt in report.alternatives:
        spans: list[Span] = [
            Strong("Strongest alternative"),
            f" to {alt.against} ({alt.question}): {alt.text} ({alt.hypothesis}), "
            f"{pct(alt.confidence)} at the end.",
        ]
        if alt.probe is not None:
            spans.append(
                f" The probe expected to tell the two apart best: {alt.probe} with rule "
                f"{alt.rule} ({bits(alt.gain_bits)} of expected information between them)."
            )
        else:
            spans.append(" No probe offered by the case's playbooks tells the two apart.")
        blocks.append(Para(tuple(spans)))
    return blocks


def _set_aside(report: Report) -> list[Block]:
    blocks: list[Block] = [Heading(2, "7. Readings set aside, and unparsed outputs", "set-aside")]
    if report.set_aside:
        blocks.append(
            Table(
                ("event", "reading", "probe", "rule", "conditions", "why"),
                tuple(
                    (
                        (r.ref,),
                        refs([r.observation]),
                        opt(r.probe),
                        (f"{r.rule} v{r.rule_version}",),
                        opt(r.conditions),
                        (r.reason,),
                    )
                    for r in report.set_aside
                ),
                widths=(13, 13, 12, 16, 16, 30),
            )
        )
    else:
        blocks.append(Para(("No reading was set aside.",)))
    if report.unparsed:
        blocks.append(
            Table(
                ("event", "probe", "problems", "artifact"),
                tuple(
                    ((u.ref,), (u.probe,), (u.problems,), opt(u.artifact and u.artifact[:16]))
                    for u in report.unparsed
                ),
                widths=(14, 16, 52, 18),
            )
        )
    else:
        blocks.append(Para(("Every probe output parsed.",)))
    return blocks


def _health(report: Report) -> list[Block]:
    health = report.health
    blocks: list[Block] = [Heading(2, "8. Reasoning health", "health")]
    spans: list[Cell] = []
    for span in health.unmeasured:
        end: Cell = (
            (" until ", span.end) if span.end is not None else (" to the end of the report",)
        )
        spans.append(
            (
                f"{span.leader} led {span.question} without a measurement from ",
                span.start,
                *end,
                f": {events(span.events)}, {span.duration}.",
            )
        )
    if not health.unmeasured:
        spans.append(("The leader never went without a measurement.",))
    if health.first_measurement is not None and health.first_pivot_after is not None:
        spans.append(
            (
                "From the first measurement (",
                health.first_measurement,
                ") to the pivot (",
                health.first_pivot_after,
                f"): {health.measurement_to_pivot}.",
            )
        )
    elif health.first_measurement is not None:
        spans.append(("First measurement ", health.first_measurement, "; no pivot followed it."))
    else:
        spans.append(("Nothing was measured.",))
    blocks.append(Bullets(tuple(spans)))
    if health.advice:
        blocks.append(
            Table(
                ("pivot", "question", "next step suggested", "expected", "taken"),
                tuple(
                    (
                        (a.pivot,),
                        (a.question,),
                        opt(
                            a.probe
                            and (a.probe + (" under load" if a.load == "under-load" else ""))
                        ),
                        (bits(a.gain_bits),),
                        _taken(a),
                    )
                    for a in health.advice
                ),
                widths=(18, 16, 28, 14, 24),
            )
        )
    return blocks


def _taken(advice: PivotAdvice) -> Cell:
    if advice.taken is not None:
        return (advice.taken,)
    if advice.otherwise is not None:
        return ("not taken (run not under load at ", advice.otherwise, ")")
    return ("not taken",)


def _closing(report: Report) -> list[Block]:
    closing = report.closing
    blocks: list[Block] = [Heading(2, "9. Actions, recommendations, lessons", "closing")]
    if closing.actions:
        blocks.append(
            Table(
                ("event", "action", "outcome"),
                tuple(((a.ref,), (a.text,), opt(a.outcome)) for a in closing.actions),
                widths=(16, 50, 34),
            )
        )
    source: Cell = ("(from the conclusion, ", closing.conclusion, ")") if closing.conclusion else ()
    blocks.append(Para((Strong("Recommendations"), " ", *source)))
    blocks.append(Bullets(tuple((r,) for r in closing.recommendations) or (("none recorded",),)))
    blocks.append(Para((Strong("Lessons"), " ", *source)))
    blocks.append(Bullets(tuple((x,) for x in closing.lessons) or (("none recorded",),)))
    return blocks


def _integrity(report: Report) -> list[Block]:
    i = report.integrity
    digits = len(ref_label(i.head).split("@")[1])
    return [
        Heading(2, "10. Integrity", "integrity"),
        Bullets(
            (
                ("Chain head: ", i.head, f" (full hash {i.head.hash})"),
                (f"Events: {i.events}" + (f" (report as of event {i.upto})" if i.upto else ""),),
                (f"casefile version: {i.casefile_version}",),
                (
                    f"Re-check every reference against the case, and this text: "
                    f"{i.verify_command} (exit 1 names the first reference the case does not "
                    "hold, or says the text was changed).",
                ),
            )
        ),
        Para(
            (
                f"References are written seq@hash (the first {digits} hex digits of the event's "
                f"SHA-256). The file ends with {digest.MARK}, the SHA-256 of the rest of its "
                "text, which verify recomputes: an edit fails even where it leaves the "
                "references alone.",
            )
        ),
    ]
