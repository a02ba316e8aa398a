"""The report's evidence section: every piece of evidence with its provenance, decisive first,
and the first lines of the raw output the most decisive rests on.

Evidence that moved nothing (0.00 bits: its question's distribution is the same without it)
is bookkeeping to a reader; a run of it is one row, as the appendix groups a run of proposed
hypotheses, and every event of the run is still there as its own link. A withdrawn intake answer
is not among it: the withdrawal weighs nothing, but the answer it undoes had weighed, so its row
stands alone and says which answer it withdraws and why.
"""

from __future__ import annotations

from collections.abc import Sequence

from casefile.report.appendix import GROUPED_AT
from casefile.report.blocks import Block, Cell, Code, Heading, Para, Span, Table, opt
from casefile.report.model import EvidenceRow, Report
from casefile.report.numbers import bits, likelihoods, prob

#: What rounds to "0.00 bits": evidence that moved its question by less is grouped.
MOVED_NOTHING_BELOW = 0.005


def evidence_section(report: Report) -> list[Block]:
    rows: list[tuple[Cell, ...]] = []
    for run in _runs(report.evidence):
        if len(run) >= GROUPED_AT:
            rows.append(_grouped(run))
        else:
            rows += [_row(e) for e in run]
    blocks: list[Block] = [
        Heading(2, "6. Evidence", "evidence"),
        Para(
            (
                "Decisive first: the bits each active piece moved its question's distribution "
                "(leave-one-out); superseded evidence counts for nothing and comes last, and "
                "a run of evidence that moved nothing (0.00 bits) is one row, each of its events "
                "linked. The artifact is the SHA-256 of the raw output (first 16 hex digits), "
                "the conditions those the probe ran under.",
            )
        ),
    ]
    if rows:
        blocks.append(
            Table(
                (
                    "evidence",
                    "rule → outcome",
                    "likelihoods applied",
                    "raw output, conditions",
                    "bits",
                    "rationale",
                ),
                tuple(rows),
                widths=(14, 14, 22, 15, 7, 28),
            )
        )
    else:
        blocks.append(Para(("No evidence was recorded.",)))
    for ex in report.excerpts:
        more = f" (… {ex.more} more lines)" if ex.more else ""
        blocks.append(
            Code(
                (
                    "Raw output of ",
                    ex.ref,
                    f" {ex.probe} on {ex.host}: {ex.command} — artifact {ex.artifact[:16]}{more}",
                ),
                ex.lines,
            )
        )
    return blocks


def moved_nothing(row: EvidenceRow) -> bool:
    """Active evidence whose bits read 0.00 (superseded evidence is said apart), other than a
    withdrawal: it weighs nothing itself, but the answer it undoes did."""
    return row.bits is not None and abs(row.bits) < MOVED_NOTHING_BELOW and not row.withdraws


def _runs(rows: Sequence[EvidenceRow]) -> list[list[EvidenceRow]]:
    """The rows in table order, those that moved nothing next to each other together."""
    out: list[list[EvidenceRow]] = []
    for row in rows:
        if out and moved_nothing(row) and moved_nothing(out[-1][-1]):
            out[-1].append(row)
        else:
            out.append([row])
    return out


def _row(e: EvidenceRow) -> tuple[Cell, ...]:
    rule = f"{e.rule} v{e.rule_version} → " if e.rule else ""
    outcome = " ".join(x for x in (e.outcome, e.statistic and f"({e.statistic})") if x)
    if e.withdraws:
        rule, outcome = "", e.withdraws
    provenance = "; ".join(
        x for x in (e.artifact and f"artifact {e.artifact[:16]}", e.conditions) if x
    )
    return (
        (e.ref, f" {e.evidence}, {e.kind}, r={prob(e.reliability)}"),
        ((rule + outcome) or "—",),
        (likelihoods(e.likelihoods, e.otherwise),),
        opt(provenance),
        ("superseded",) if e.bits is None else (bits(e.bits),),
        (e.rationale,),
    )


def _grouped(run: Sequence[EvidenceRow]) -> tuple[Cell, ...]:
    """One row for a run that moved nothing, in the order recorded: each event's link and id,
    what each read (a rule's outcome, counted where several read the same), and why the run is
    one row."""
    in_order = sorted(run, key=lambda e: e.ref.seq)
    events: list[Span] = []
    for n, e in enumerate(in_order):
        events += [", " if n else "", e.ref, f" {e.evidence}"]
    readings: dict[str, int] = {}
    for e in in_order:
        said = f"{e.rule} v{e.rule_version} → {e.outcome}" if e.rule else f"{e.evidence} ({e.kind})"
        readings[said] = readings.get(said, 0) + 1
    read = "; ".join(f"{said} ×{n}" if n > 1 else said for said, n in readings.items())
    why = (
        f"{len(run)} pieces of evidence that moved nothing: without any one of them its "
        "question's distribution is the same to 0.005 bits. Each links to its row of the "
        "audit trail; the JSON report keeps each one's likelihoods and rationale."
    )
    return (tuple(s for s in events if s), (read,), ("—",), ("—",), (bits(0.0),), (why,))
