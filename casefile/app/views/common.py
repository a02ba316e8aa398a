"""Rows that several views share: the case header, hypothesis rows and question rows.

Each row is a frozen, slotted dataclass of plain values copied out of the projection, so a view
built in a worker thread can be handed to a UI while the fold carries on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from casefile.app.views.names import CATCH_ALL_MEANING, CATCH_ALL_TEXT, hypothesis_text
from casefile.domain.beliefs import Projection
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.beliefs.ranking import question_entropy
from casefile.domain.events import Event


@dataclass(frozen=True, slots=True)
class CaseHeader:
    """Which case a view shows and how far into it: ``head_hash`` names the last event folded."""

    id: str
    title: str
    symptom: str | None
    events: int
    last_seq: int
    head_hash: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "symptom": self.symptom,
            "events": self.events,
            "last_seq": self.last_seq,
            "head_hash": self.head_hash,
        }


def build_case_header(projection: Projection) -> CaseHeader:
    """The header of ``projection`` (restored from a saved fold or not: counts cover the whole
    case, and an empty case has no head)."""
    return CaseHeader(
        id=projection.case_id,
        title=projection.title,
        symptom=projection.symptom,
        events=projection.event_count,
        last_seq=projection.last_seq,
        head_hash=projection.last_hash if projection.last_seq else None,
    )


@dataclass(frozen=True, slots=True)
class HypothesisRow:
    """One node of a question's tree (or its catch-all) as status shows it."""

    id: str
    text: str
    parent: str | None
    question: str
    confidence: float
    prior: float
    status: str  # "open", "retired" or "does not apply"
    meaning: str | None
    depth: int
    #: with "does not apply": the answer that rules it out and its seq
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        extra = {"does_not_apply": self.reason} if self.reason is not None else {}
        return {
            "id": self.id,
            "text": self.text,
            "parent": self.parent,
            "question": self.question,
            "confidence": self.confidence,
            "prior": self.prior,
            "status": self.status,
            "meaning": self.meaning,
            "depth": self.depth,
            **extra,
        }


def hypothesis_rows(question: QuestionState) -> tuple[HypothesisRow, ...]:
    """The question's tree in display order (depth first), catch-all last."""
    confidences = question.confidences
    rows: list[HypothesisRow] = []

    def walk(hid: str, depth: int) -> None:
        node = question.nodes[hid]
        reason = question.inapplicable_reason(hid)
        status = "retired" if node.retired else "does not apply" if reason else "open"
        rows.append(
            HypothesisRow(
                id=hid,
                text=node.text,
                parent=node.parent_id,
                question=question.id,
                confidence=confidences.get(hid, 0.0),
                prior=node.prior,
                status=status,
                meaning=node.meaning,
                depth=depth,
                reason=reason,
            )
        )
        for child in node.children:
            walk(child, depth + 1)

    for top in question.top:
        walk(top, 0)
    rows.append(
        HypothesisRow(
            id=question.catch_all_id,
            text=CATCH_ALL_TEXT,
            parent=None,
            question=question.id,
            confidence=confidences.get(question.catch_all_id, 0.0),
            prior=question.catch_all_prior(),
            status="open",
            meaning=CATCH_ALL_MEANING,
            depth=0,
        )
    )
    return tuple(rows)


def runner_up(question: QuestionState) -> str | None:
    """The strongest alternative: the open top-level hypothesis (or catch-all) second to the
    leader; ties go to the one proposed first."""
    confidences = question.confidences
    leader = question.leader()
    others = [h for h in question.structure.tops if h != leader]
    if not others:
        return None
    return max(others, key=lambda h: (confidences.get(h, 0.0), -others.index(h)))


@dataclass(frozen=True, slots=True)
class QuestionRow:
    """A question with who leads it, the strongest alternative and how open it still is."""

    id: str
    text: str
    leader: str
    leader_text: str
    leading_leaf: str
    runner_up: str | None
    runner_up_text: str | None
    entropy_bits: float
    evidence: int
    playbook: str | None
    #: the single likeliest leaf, and its confidence (see ``QuestionState.likeliest_leaf``)
    likeliest_leaf: str
    likeliest_confidence: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "leader": self.leader,
            "leading_leaf": self.leading_leaf,
            "runner_up": self.runner_up,
            "entropy_bits": self.entropy_bits,
            "evidence": self.evidence,
            "playbook": self.playbook,
            "leader_text": self.leader_text,
            "runner_up_text": self.runner_up_text,
            "likeliest_leaf": self.likeliest_leaf,
            "likeliest_confidence": self.likeliest_confidence,
        }


def question_row(question: QuestionState) -> QuestionRow:
    leader = question.leader()
    second = runner_up(question)
    likeliest, share = question.likeliest_leaf()
    return QuestionRow(
        id=question.id,
        text=question.text,
        leader=leader,
        leader_text=hypothesis_text(question, leader),
        leading_leaf=question.leading_leaf(),
        runner_up=second,
        runner_up_text=None if second is None else hypothesis_text(question, second),
        entropy_bits=question_entropy(question),
        evidence=question.evidence_count,
        playbook=question.playbook,
        likeliest_leaf=likeliest,
        likeliest_confidence=share,
    )


def event_at(projection: Projection, seq: int) -> Event | None:
    """The folded event with ``seq``, found by position (events are folded in seq order);
    None for one a restored projection no longer holds."""
    events = projection.events
    if not events:
        return None
    index = seq - events[0].seq
    if 0 <= index < len(events) and events[index].seq == seq:
        return events[index]
    return next((e for e in events if e.seq == seq), None)
