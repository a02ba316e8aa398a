"""The report's appendix: the full audit trail, every event the narrative tells as one row,
closed in HTML (a ``<details>`` the reader opens; a link into it opens it), with runs of
bookkeeping (hypotheses proposed one after another) on one row that every event of the run
still links to.
"""

from __future__ import annotations

from collections.abc import Sequence

from casefile.report.blocks import Block, Cell, Fold, Heading, Para, Table, opt
from casefile.report.model import Report, TimelineRow

#: A run of at least this many hypotheses proposed one after another is one timeline row.
GROUPED_AT = 3


def appendix(report: Report) -> list[Block]:
    rows: list[tuple[Cell, ...]] = []
    anchors: list[str | None] = []
    also: list[tuple[str, ...]] = []
    for run in _runs(report.timeline):
        row = run[0]
        if len(run) >= GROUPED_AT:
            what = "; ".join(r.text.split(":", 1)[0].removeprefix("proposed ") for r in run)
            refs = (row.ref, " to ", run[-1].ref)
            text = f"{len(run)} hypotheses proposed: {what}"
            rows.append((refs, (row.when,), (row.kind,), (row.actor,), (text,), ("—",)))
            anchors.append(row.ref.anchor)
            also.append(tuple(r.ref.anchor for r in run[1:]))
            continue
        when = row.when if row.recorded is None else f"{row.when} (recorded {row.recorded})"
        shown_host = row.host and f"host={row.host}" not in (row.conditions or "")
        where = [x for x in (shown_host and f"host {row.host}", row.conditions) if x]
        detail = "; ".join(where)
        if row.facts:
            detail = f"{detail}; facts: {row.facts}" if detail else f"facts: {row.facts}"
        rows.append(((row.ref,), (when,), (row.kind,), (row.actor,), (row.text,), opt(detail)))
        anchors.append(row.ref.anchor)
        also.append(())
    table = Table(
        ("event", "time", "kind", "actor", "what", "host and conditions"),
        tuple(rows),
        tuple(anchors),
        widths=(12, 13, 10, 10, 35, 20),
        also=tuple(also),
    )
    return [
        Heading(2, "Appendix: the full audit trail", "timeline"),
        Para(
            (
                f"Every step the narrative tells ({len(report.timeline)} events: notes, "
                "questions, hypotheses (a run of proposals on one row), probe runs, evidence, "
                "actions, pivots, the conclusion and the postmortem's entries; readings and "
                "set-asides have sections of their own), each a link target of the references "
                "above.",
            )
        ),
        Fold(f"The timeline, {len(rows)} rows", (table,)),
    ]


def _runs(rows: Sequence[TimelineRow]) -> list[list[TimelineRow]]:
    """The timeline in runs: consecutive hypotheses by the same actor, proposed one after
    another, together; every other row alone."""
    out: list[list[TimelineRow]] = []
    for row in rows:
        proposed = row.kind == "hypothesis" and row.text.startswith("proposed ")
        last = out[-1][-1] if out else None
        if (
            proposed
            and last is not None
            and last.kind == "hypothesis"
            and last.text.startswith("proposed ")
            and last.actor == row.actor
            and last.ref.seq + 1 == row.ref.seq
        ):
            out[-1].append(row)
        else:
            out.append([row])
    return out
