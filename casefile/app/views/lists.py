"""Lists of a case's questions and hypotheses: ``hypothesis list`` and ``question list``.

A responder who comes back to a case wants the ids to type next (``--under q``, ``retire
pcie``) with what each says and where it stands, without the whole status page. Both lists
are built from the folded projection, in the order the case proposed things (a hypothesis
tree depth first, each question's catch-all last), so the same case always lists the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from casefile.app.views.common import (
    CaseHeader,
    HypothesisRow,
    build_case_header,
    hypothesis_rows,
)
from casefile.app.views.names import hypothesis_text
from casefile.domain.beliefs import Projection


@dataclass(frozen=True, slots=True)
class HypothesisList:
    """Every hypothesis of a case (catch-alls included), question by question."""

    case: CaseHeader
    hypotheses: tuple[HypothesisRow, ...]

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case.to_json(), "hypotheses": [h.to_json() for h in self.hypotheses]}


@dataclass(frozen=True, slots=True)
class QuestionListRow:
    """One question: its id and text, how many hypotheses it names, and who leads it."""

    id: str
    text: str
    status: str  # "open" (a case's questions are never closed; the case is concluded)
    hypotheses: int
    open_hypotheses: int
    evidence: int
    leader: str
    leader_text: str
    confidence: float  # the leader's
    catch_all: float  # the catch-all's prior now
    catch_all_reserve: float  # what it keeps until evidence arrives
    playbook: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "status": self.status,
            "hypotheses": self.hypotheses,
            "open_hypotheses": self.open_hypotheses,
            "evidence": self.evidence,
            "leader": self.leader,
            "leader_text": self.leader_text,
            "confidence": self.confidence,
            "catch_all": self.catch_all,
            "catch_all_reserve": self.catch_all_reserve,
            "playbook": self.playbook,
        }


@dataclass(frozen=True, slots=True)
class QuestionList:
    case: CaseHeader
    questions: tuple[QuestionListRow, ...]

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case.to_json(), "questions": [q.to_json() for q in self.questions]}


def build_hypothesis_list(projection: Projection, question_id: str | None = None) -> HypothesisList:
    """Every question's tree (or only ``question_id``'s), in proposal order."""
    rows: list[HypothesisRow] = []
    for qid, question in projection.questions.items():
        if question_id is None or qid == question_id:
            rows.extend(hypothesis_rows(question))
    return HypothesisList(build_case_header(projection), tuple(rows))


def build_question_list(projection: Projection) -> QuestionList:
    rows = []
    for question in projection.questions.values():
        leader = question.leader()
        rows.append(
            QuestionListRow(
                id=question.id,
                text=question.text,
                status="open",
                hypotheses=len(question.nodes),
                open_hypotheses=sum(1 for h in question.nodes if question.is_active(h)),
                evidence=question.evidence_count,
                leader=leader,
                leader_text=hypothesis_text(question, leader),
                confidence=question.confidences.get(leader, 0.0),
                catch_all=question.catch_all_prior(),
                catch_all_reserve=question.catch_all_reserve,
                playbook=question.playbook,
            )
        )
    return QuestionList(build_case_header(projection), tuple(rows))
