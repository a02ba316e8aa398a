"""The end of a replay in a few lines: each pivot (of the top-level leader, and inside the
leader's subtree), and who leads each question at the end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from casefile.app.views.replay import ReplayStep


@dataclass(frozen=True, slots=True)
class PivotRow:
    seq: int
    question: str
    previous_leader: str
    leader: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "question": self.question,
            "previous_leader": self.previous_leader,
            "leader": self.leader,
        }


@dataclass(frozen=True, slots=True)
class SubpivotRow:
    """A pivot inside the leader's subtree: the top-level leader held, the leader at
    ``depth`` changed (so the leading leaf went from ``previous_leaf`` to ``leaf``)."""

    seq: int
    question: str
    depth: int
    previous_leaf: str
    leaf: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "question": self.question,
            "depth": self.depth,
            "previous_leaf": self.previous_leaf,
            "leaf": self.leaf,
        }


@dataclass(frozen=True, slots=True)
class FinalLeader:
    question: str
    leader: str
    confidence: float
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "leader": self.leader,
            "confidence": self.confidence,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    """Where the story went: each pivot, and who leads each question after the last step."""

    pivots: tuple[PivotRow, ...]
    leaders: tuple[FinalLeader, ...]
    subpivots: tuple[SubpivotRow, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "pivots": [p.to_json() for p in self.pivots],
            "leaders": [f.to_json() for f in self.leaders],
            "subpivots": [p.to_json() for p in self.subpivots],
        }


def summarise_replay(steps: Sequence[ReplayStep], names: Mapping[str, str]) -> ReplaySummary:
    """Each pivot among ``steps`` (top-level ones in ``pivots``, those inside the leader's
    subtree in ``subpivots``), and who leads each question after the last of them."""
    pivots = tuple(
        PivotRow(step.seq, qid, question.previous_leader, question.leader)
        for step in steps
        for qid, question in step.questions.items()
        if question.pivot and question.previous_leader is not None
    )
    subpivots = tuple(
        SubpivotRow(
            step.seq,
            qid,
            question.pivot_depth,
            question.previous_leading_leaf,
            question.leading_leaf,
        )
        for step in steps
        for qid, question in step.questions.items()
        if not question.pivot
        and question.pivot_depth is not None
        and question.previous_leading_leaf is not None
    )
    last = steps[-1].questions if steps else {}
    leaders = tuple(
        FinalLeader(
            qid,
            question.leader,
            question.confidences.get(question.leader, 0.0),
            names.get(question.leader, question.leader),
        )
        for qid, question in last.items()
    )
    return ReplaySummary(pivots, leaders, subpivots)


def joined(head: Mapping[str, Any], tail: Mapping[str, Any]) -> dict[str, Any]:
    """The summary of a replay walked in two parts, from theirs (each a
    :meth:`ReplaySummary.to_json`): the pivots of both, in order, and the leaders after the
    tail's last step."""
    return {
        "pivots": [*head["pivots"], *tail["pivots"]],
        "leaders": tail["leaders"],
        "subpivots": [*head["subpivots"], *tail["subpivots"]],
    }
