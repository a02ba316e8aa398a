"""The evidence table groups a run of evidence that moved nothing (0.00 bits) into one row, as
the appendix groups a run of proposed hypotheses, with every event of the run still linked
(issue 25): on the reference case nine rows become one."""

from __future__ import annotations

import re

import pytest

from casefile.report import Report, ReportOptions, build_report, render
from casefile.report.blocks import Table
from casefile.report.evidence_layout import evidence_section, moved_nothing
from casefile.report.model import EvidenceRow, Likelihood, Ref
from tests.report.cases import REFERENCE, service_with


@pytest.fixture(scope="module")
def report() -> Report:
    service, case_id = service_with(REFERENCE)
    return build_report(service, case_id, ReportOptions())


def _table(report: Report) -> Table:
    (table,) = (b for b in evidence_section(report) if isinstance(b, Table))
    return table


def _evidence_part(text: str) -> str:
    return text[text.index("## 9. Evidence") : text.index("Raw output of")]


def test_the_reference_cases_nine_rows_that_moved_nothing_are_one(report: Report) -> None:
    nothing = [e for e in report.evidence if moved_nothing(e)]
    assert len(nothing) == 9 and len(report.evidence) == 19
    table = _table(report)
    assert len(table.rows) == len(report.evidence) - len(nothing) + 1
    grouped = [row for row in table.rows if row[0].count(", ") == len(nothing) - 1]
    assert len(grouped) == 1
    events, read, _, _, moved, why = grouped[0]
    # every event of the run is there, as its own reference (a link in HTML), in seq order
    refs = [span for span in events if isinstance(span, Ref)]
    assert refs == sorted((e.ref for e in nothing), key=lambda ref: ref.seq)
    assert read == (
        "calc-ep (calculated); link-width-at-max v1 → full ×4; "
        "link-speed-at-max v1 → full ×3; lspci-link-downgraded v1 → at-capability",
    )
    assert moved == ("0.00 bits",) and "9 pieces of evidence" in why[0]


def test_every_grouped_event_is_linked_in_html_and_named_in_markdown(report: Report) -> None:
    html = render(report, "html").decode()
    md = _evidence_part(render(report, "md").decode())
    for e in report.evidence:
        assert f'href="#{e.ref.anchor}"' in html
        assert f"`{e.ref.label}` {e.evidence}" in md
        assert f'id="{e.ref.anchor}"' in html  # the link lands on the event's audit-trail row
    assert len(re.findall(r"\| 0\.00 bits \|", md)) == 1


def _row(seq: int, bits: float | None) -> EvidenceRow:
    return EvidenceRow(
        evidence=f"e{seq}",
        ref=Ref(seq, f"{seq:064x}"),
        question="q",
        kind="measured",
        reliability=0.9,
        rule="r",
        rule_version=1,
        outcome="full",
        statistic=None,
        likelihoods=(Likelihood("h", 0.5),),
        otherwise=0.5,
        artifact=None,
        conditions=None,
        bits=bits,
        rationale=f"why {seq}",
    )


@pytest.mark.parametrize(
    ("bits", "rows"),
    [
        ((0.3, 0.001, 0.0, -0.001), 2),  # three that moved nothing: one row
        ((0.3, 0.001, 0.0), 3),  # two: each its own row, as the appendix keeps a pair
        ((0.3, 0.0, 0.0, 0.0, None, None, None), 5),  # superseded ones are said apart
        ((0.006, 0.006, 0.006), 3),  # 0.01 bits moved something
    ],
)
def test_only_a_run_of_three_that_moved_nothing_is_grouped(
    report: Report, bits: tuple[float | None, ...], rows: int
) -> None:
    from dataclasses import replace

    evidence = tuple(_row(n + 1, b) for n, b in enumerate(bits))
    assert len(_table(replace(report, evidence=evidence, excerpts=())).rows) == rows


def test_a_withdrawn_answer_stands_alone_and_says_what_it_withdraws(report: Report) -> None:
    """A withdrawal weighs nothing itself, yet undoes an answer that had weighed: it is no
    evidence that "moved nothing", so a run of three with it in the middle is not grouped."""
    from dataclasses import replace

    said = "intake scaling: 'no' withdrawn (does not apply now: gpu-count = one (seq 30))"
    withdrawal = replace(_row(2, 0.0), rule=None, rule_version=None, withdraws=said)
    evidence = (_row(1, 0.0), withdrawal, _row(3, 0.0), _row(4, 0.0))
    table = _table(replace(report, evidence=evidence, excerpts=()))
    assert len(table.rows) == 4 and not moved_nothing(withdrawal)
    assert table.rows[1][1] == (said,)
