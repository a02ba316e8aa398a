"""Small helpers shared by the reasoning-engine tests: build cases through the domain commands."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from casefile.domain import commands
from casefile.domain.beliefs import Projection, project
from casefile.domain.events import Event

from .builder import CaseBuilder

QID = "q"
CATCH = f"{QID}/catch-all"


def new_case(
    catch_all: float = 0.1, question_id: str = QID, incremental: bool = False
) -> CaseBuilder:
    """A case with one question and no hypotheses yet."""
    b = IncrementalCase() if incremental else CaseBuilder()
    b.add(
        commands.propose_question(
            b.projection, "what limits throughput?", question_id=question_id, catch_all=catch_all
        )
    )
    return b


def hyp(b: CaseBuilder, hid: str, under: str, prior: float) -> Event:
    """Propose ``hid`` under a question (absolute prior) or a hypothesis (a share)."""
    return b.add(commands.propose_hypothesis(b.projection, f"hypothesis {hid}", under, prior, hid))


def ev(
    b: CaseBuilder,
    likelihoods: Mapping[str, float],
    otherwise: float = 0.5,
    kind: str = "measured",
    reliability: float | None = 1.0,
    **extra: Any,
) -> Event:
    """Assess one piece of evidence (reliability 1 unless told otherwise)."""
    return b.add(
        commands.assess_evidence(
            b.projection,
            likelihoods,
            rationale="because",
            otherwise=otherwise,
            kind=kind,
            reliability=reliability,
            **extra,
        )
    )


def retire(b: CaseBuilder, hid: str) -> Event:
    return b.add(commands.retire_hypothesis(b.projection, hid, "ruled out"))


def reinstate(b: CaseBuilder, hid: str) -> Event:
    return b.add(commands.reinstate_hypothesis(b.projection, hid))


def conf(b: CaseBuilder | Projection) -> dict[str, float]:
    projection = b.projection if isinstance(b, CaseBuilder) else b
    return projection.confidences()


def check_coherent(projection: Projection, tol: float = 1e-12) -> None:
    """Every question sums to 1, and every parent is the sum of its subtree's leaves."""
    for question in projection.questions.values():
        c = question.confidences
        total = math.fsum(c[h] for h in question.top) + c[question.catch_all_id]
        assert abs(total - 1.0) <= tol, (question.id, total)
        keys, probs = question.leaf_distribution
        assert abs(math.fsum(probs) - 1.0) <= tol
        leaves = dict(zip(keys, probs, strict=True))
        for node_id, node in question.nodes.items():
            if not question.is_active(node_id):
                assert c[node_id] == 0.0
                continue
            subtree = math.fsum(leaves.get(n, 0.0) for n in question.subtree(node_id))
            assert abs(c[node_id] - subtree) <= tol, node_id
            assert 0.0 <= c[node_id] <= 1.0 + tol
            if node.children:
                kids = math.fsum(c[k] for k in node.children)
                assert c[node_id] >= kids - tol


class IncrementalCase(CaseBuilder):
    """A CaseBuilder whose projection is folded incrementally (fast for property tests).

    ``project(new, into=p)`` must agree with a full replay; the property tests check that too.
    """

    def __init__(self, title: str = "test case") -> None:
        self._folded = Projection()
        super().__init__(title)

    @property
    def projection(self) -> Projection:
        done = self._folded.last_seq
        if done < len(self.events):
            project(self.events[done:], into=self._folded)
        return self._folded
