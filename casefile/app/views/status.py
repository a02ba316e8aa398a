"""The status view: where a case stands, what is wrong with it and what to do next.

``build_status`` takes a folded projection and what the domain already ranked for it (next
steps, best probes, decisive evidence); it neither folds nor ranks. ``to_json`` is the README's
``status --json`` shape, plus ``case.head_hash``, ``questions[].leader_text`` /
``runner_up_text``, ``warning_groups``, ``next_step_groups``, ``decisive_evidence[].hash`` and
``concluded.hash``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from casefile.app.views.common import (
    CaseHeader,
    HypothesisRow,
    QuestionRow,
    build_case_header,
    hypothesis_rows,
    question_row,
)
from casefile.app.views.steps import (
    DecisiveRow,
    NextStepGroup,
    NextStepRow,
    ProbeRow,
    group_next_steps,
)
from casefile.app.views.warning_groups import (
    LazyWarningRows,
    WarningGroup,
    WarningRow,
    group_warnings,
)
from casefile.domain.beliefs import Projection
from casefile.domain.beliefs.ranking import NextStep, ProbeStep
from casefile.domain.beliefs.scoring import Decisive

_SEQ = itemgetter("seq")


@dataclass(frozen=True, slots=True)
class Conclusion:
    """The recorded conclusion of a case."""

    seq: int
    summary: str
    root_cause: str | None
    recommendations: tuple[str, ...]
    lessons: tuple[str, ...]
    hash: str | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "summary": self.summary,
            "recommendations": list(self.recommendations),
            "lessons": list(self.lessons),
        }
        if self.root_cause is not None:  # absent, not null, as in the stored payload
            out["root_cause"] = self.root_cause
        out["seq"] = self.seq
        out["hash"] = self.hash
        return out


@dataclass(frozen=True, slots=True)
class StatusView:
    case: CaseHeader
    questions: tuple[QuestionRow, ...]
    hypotheses: tuple[HypothesisRow, ...]
    #: every active warning (built when first read: the text status shows only the groups)
    warnings: Sequence[WarningRow]
    warning_groups: tuple[WarningGroup, ...]
    next_steps: tuple[NextStepRow, ...]
    next_step_groups: tuple[NextStepGroup, ...]
    best_probes: tuple[ProbeRow, ...]
    decisive_evidence: tuple[DecisiveRow, ...]
    concluded: Conclusion | None
    #: what the session noticed about the record itself (a history rewritten under it)
    integrity: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case.to_json(),
            "questions": [q.to_json() for q in self.questions],
            "hypotheses": [h.to_json() for h in self.hypotheses],
            "warnings": [w.to_json() for w in self.warnings],
            "warning_groups": [g.to_json() for g in self.warning_groups],
            "next_steps": [s.to_json() for s in self.next_steps],
            "next_step_groups": [g.to_json() for g in self.next_step_groups],
            "best_probes": [b.to_json() for b in self.best_probes],
            "decisive_evidence": [d.to_json() for d in self.decisive_evidence],
            "concluded": None if self.concluded is None else self.concluded.to_json(),
            "integrity": list(self.integrity),
        }


def build_status(
    projection: Projection,
    *,
    next_steps: Sequence[NextStep] = (),
    best_probes: Sequence[ProbeStep] = (),
    decisive: Sequence[Decisive] = (),
    integrity: Sequence[str] = (),
) -> StatusView:
    """The status of ``projection``, with the domain's rankings copied in as plain rows."""
    tracker = projection.warnings
    tallies = tracker.tallies()
    last_seqs = [t.last.seq for t in tallies if t.count > 1 and t.rule is not None]
    steps = tuple(NextStepRow.of(s) for s in next_steps)
    hypotheses: list[HypothesisRow] = []
    for question in projection.questions.values():
        hypotheses.extend(hypothesis_rows(question))
    return StatusView(
        case=build_case_header(projection),
        questions=tuple(question_row(q) for q in projection.questions.values()),
        hypotheses=tuple(hypotheses),
        warnings=LazyWarningRows(tracker.all_deferred()),
        warning_groups=group_warnings(tallies, set_aside_reasons(projection, last_seqs)),
        next_steps=steps,
        next_step_groups=group_next_steps(steps),
        best_probes=tuple(ProbeRow.of(b) for b in best_probes),
        decisive_evidence=tuple(_decisive_row(d) for d in decisive),
        concluded=_conclusion(projection),
        integrity=tuple(integrity),
    )


def set_aside_reasons(projection: Projection, seqs: Iterable[int] | None = None) -> dict[int, str]:
    """The seq of each ``reading.set_aside`` event (of those in ``seqs``, when given: a long
    case holds tens of thousands) → why the reading was set aside."""
    records = projection.set_asides
    if seqs is None:
        return {int(r["seq"]): str(r["reason"]) for r in records}
    found: dict[int, str] = {}
    newest_first = list(map(_SEQ, reversed(records)))
    for seq in seqs:
        if seq in newest_first:  # the last record of a seq, as the whole mapping keeps
            found[seq] = str(records[len(records) - 1 - newest_first.index(seq)]["reason"])
    return found


def _decisive_row(item: Decisive) -> DecisiveRow:
    return DecisiveRow(
        evidence=item.evidence_id,
        seq=item.seq,
        question=item.question_id,
        kind=item.kind,
        bits=item.bits,
        rationale=item.rationale,
        hash=item.hash,
    )


def _conclusion(projection: Projection) -> Conclusion | None:
    done = projection.concluded
    if done is None:
        return None
    seq = int(done["seq"])
    return Conclusion(
        seq=seq,
        summary=str(done["summary"]),
        root_cause=done.get("root_cause"),
        recommendations=tuple(done.get("recommendations", ())),
        lessons=tuple(done.get("lessons", ())),
        hash=projection.concluded_hash,
    )
