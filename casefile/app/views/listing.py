"""One line per thing: the events of a case (``log``) and the cases of a store (``cases``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from casefile.app.views.names import hypothesis_text
from casefile.app.views.summaries import summarise
from casefile.domain.beliefs import Projection
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.events import Event


@dataclass(frozen=True, slots=True)
class LogRow:
    """One event of the log: when, who, what, and its hash for provenance."""

    seq: int
    when: str
    recorded_at: str
    occurred_at: str | None
    actor: str
    type: str
    summary: str
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "when": self.when,
            "recorded_at": self.recorded_at,
            "occurred_at": self.occurred_at,
            "actor": self.actor,
            "type": self.type,
            "summary": self.summary,
            "hash": self.hash,
        }


def build_log(events: Iterable[Event], projection: Projection | None = None) -> list[LogRow]:
    """The log rows of ``events`` (a summary needs only its event; ``projection`` is accepted so
    that a later summary may name what an id stands for)."""
    return [
        LogRow(
            seq=e.seq,
            when=e.when,
            recorded_at=e.recorded_at,
            occurred_at=e.occurred_at,
            actor=e.actor,
            type=e.type,
            summary=summarise(e, projection),
            hash=e.hash,
        )
        for e in events
    ]


@dataclass(frozen=True, slots=True)
class LeaderRow:
    """Who leads one question of a case."""

    question: str
    id: str
    text: str
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "id": self.id,
            "text": self.text,
            "confidence": self.confidence,
        }


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case in a store's list; ``leaders`` is None when the case was not folded."""

    id: str
    title: str
    symptom: str | None
    opened: str | None
    last_activity: str | None
    events: int
    head_hash: str | None
    leaders: tuple[LeaderRow, ...] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "opened": self.opened,
            "events": self.events,
            "symptom": self.symptom,
            "last_activity": self.last_activity,
            "head_hash": self.head_hash,
            "leaders": None if self.leaders is None else [r.to_json() for r in self.leaders],
        }


def build_case_row(
    case_id: str,
    first_event: Event | None,
    head_seq: int,
    head_hash: str | None,
    last_recorded_at: str | None,
    projection: Projection | None = None,
) -> CaseRow:
    """A case's row from its first event and its head (cheap to read), plus who leads each
    question when the caller has folded it."""
    opening = first_event.payload if first_event is not None else {}
    leaders = None
    if projection is not None:
        leaders = tuple(_leader_row(q) for q in projection.questions.values())
    return CaseRow(
        id=case_id,
        title=str(opening.get("title", "")),
        symptom=opening.get("symptom"),
        opened=first_event.when if first_event is not None else None,
        last_activity=last_recorded_at,
        events=head_seq,
        head_hash=head_hash,
        leaders=leaders,
    )


def _leader_row(question: QuestionState) -> LeaderRow:
    leader = question.leader()
    return LeaderRow(
        question.id,
        leader,
        hypothesis_text(question, leader),
        question.confidences.get(leader, 0.0),
    )
