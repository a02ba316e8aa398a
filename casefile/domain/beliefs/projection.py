"""Fold a case's events into questions, hypotheses, evidence, a graph and a trajectory.

Folding only reads the numbers stored in events (priors, the likelihoods an evidence event
applied); it never consults today's rules, so replaying a case always gives the same
confidences. Events that the state cannot accept (evidence naming an unknown hypothesis in an
imported case, say) raise :class:`~casefile.errors.DomainError` naming the seq.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from casefile.domain.beliefs.question import (
    EvidenceEffect,
    HypothesisNode,
    QuestionState,
)
from casefile.domain.beliefs.warnings import Warning, WarningTracker
from casefile.domain.events import Event
from casefile.errors import DomainError

#: An observation is flagged as surprising when the hypothesis that best explains it made it at
#: least this many bits likelier than the belief held just before did (log₂ max_h P(E|h) / P(E)).
#: Raw surprise (−log₂ P(E)) is shown too, but its scale depends on how finely the evidence's
#: outcomes are cut, so it is a poor threshold on its own.
SURPRISE_FLAG_BITS = 1.0


@dataclass
class EvidenceState:
    id: str
    seq: int
    question_id: str
    likelihoods: dict[str, float]
    otherwise: float
    kind: str
    reliability: float
    rationale: str
    effect: EvidenceEffect
    rule: dict[str, Any] | None = None
    outcome: str | None = None
    statistic: float | str | None = None
    observation_seq: int | None = None
    probe_run_seq: int | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    surprise_bits: float = 0.0
    supports: frozenset[str] = frozenset()  # top-level hypotheses it favours

    @property
    def active(self) -> bool:
        return self.superseded_by is None


@dataclass(frozen=True)
class QuestionSnapshot:
    """One question's confidences at one point of the case."""

    confidences: dict[str, float]
    leader: str
    leading_leaf: str


@dataclass(frozen=True)
class Step:
    """The state right after one event: what replay shows for that step."""

    seq: int
    type: str
    snapshots: dict[str, QuestionSnapshot]
    changed: frozenset[str]
    pivots: dict[str, tuple[str, str]]  # question → (old leader, new leader)
    surprise_bits: float | None
    unexpected_bits: float | None
    raised: tuple[Warning, ...]
    cleared: tuple[Warning, ...]


@dataclass
class Projection:
    case_id: str = ""
    title: str = ""
    symptom: str | None = None
    events: list[Event] = field(default_factory=list)
    questions: dict[str, QuestionState] = field(default_factory=dict)
    hypothesis_question: dict[str, str] = field(default_factory=dict)
    evidence: dict[str, EvidenceState] = field(default_factory=dict)
    observations: dict[int, dict[str, Any]] = field(default_factory=dict)
    probe_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    trajectory: list[Step] = field(default_factory=list)
    warnings: WarningTracker = field(default_factory=WarningTracker)
    graph: Any = field(default_factory=nx.MultiDiGraph)
    concluded: dict[str, Any] | None = None
    snapshots: dict[str, QuestionSnapshot] = field(default_factory=dict)

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else 0

    def confidences(self) -> dict[str, float]:
        """Every hypothesis's (and catch-all's) current confidence, across questions."""
        out: dict[str, float] = {}
        for question in self.questions.values():
            out.update(question.confidences)
        return out

    def pivots(self) -> list[Step]:
        return [step for step in self.trajectory if step.pivots]


def project(events: Iterable[Event], into: Projection | None = None) -> Projection:
    """Fold events into a new projection, or continue folding into ``into``."""
    projection = Projection() if into is None else into
    folder = _Folder(projection)
    for event in events:
        folder.apply(event)
    return projection


class _Folder:
    def __init__(self, projection: Projection) -> None:
        self.p = projection
        self.snapshots = projection.snapshots

    def apply(self, event: Event) -> None:
        p = self.p
        p.events.append(event)
        handler = getattr(self, "_" + event.type.replace(".", "_"), None)
        changed: set[str] = set()
        surprise: float | None = None
        unexpected: float | None = None
        warnings_before = p.warnings.active_keys()
        try:
            if handler is not None:
                result = handler(event, event.payload)
                if isinstance(result, tuple):
                    changed, surprise, unexpected = result
                elif isinstance(result, set):
                    changed = result
        except KeyError as error:
            raise DomainError(f"seq {event.seq} ({event.type}): unknown id {error}") from None
        pivots: dict[str, tuple[str, str]] = {}
        for qid in changed:
            question = p.questions[qid]
            before = self.snapshots.get(qid)
            snap = QuestionSnapshot(
                confidences=dict(question.confidences),
                leader=question.leader(),
                leading_leaf=question.leading_leaf(),
            )
            if before is not None and before.leader != snap.leader and question.evidence_count:
                pivots[qid] = (before.leader, snap.leader)
            self.snapshots[qid] = snap
            p.warnings.check_question(event.seq, question)
        raised, cleared = p.warnings.diff(warnings_before)
        p.trajectory.append(
            Step(
                seq=event.seq,
                type=event.type,
                snapshots=dict(self.snapshots),
                changed=frozenset(changed),
                pivots=pivots,
                surprise_bits=surprise,
                unexpected_bits=unexpected,
                raised=raised,
                cleared=cleared,
            )
        )

    # --- case ------------------------------------------------------------------------------

    def _case_opened(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.case_id = event.case_id
        self.p.title = payload["title"]
        self.p.symptom = payload.get("symptom")
        self.p.graph.add_node(f"case:{event.case_id}", kind="case", label=payload["title"])

    def _case_concluded(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.concluded = dict(payload, seq=event.seq)

    # --- questions and hypotheses ----------------------------------------------------------

    def _question_proposed(self, event: Event, payload: dict[str, Any]) -> set[str]:
        qid = payload["question_id"]
        if qid in self.p.questions:
            raise DomainError(f"seq {event.seq}: question {qid!r} already exists")
        question = QuestionState(
            id=qid,
            text=payload["text"],
            catch_all_reserve=payload.get("catch_all", 0.1),
            playbook=payload.get("playbook"),
            proposed_seq=event.seq,
        )
        question.refresh_priors()
        self.p.questions[qid] = question
        graph = self.p.graph
        graph.add_node(f"q:{qid}", kind="question", label=payload["text"])
        graph.add_node(
            f"h:{question.catch_all_id}", kind="catch-all", label="something not yet named"
        )
        graph.add_edge(f"q:{qid}", f"h:{question.catch_all_id}", key="has", kind="has")
        return {qid}

    def _hypothesis_proposed(self, event: Event, payload: dict[str, Any]) -> set[str]:
        qid = payload["question_id"]
        hid = payload["hypothesis_id"]
        question = self.p.questions[qid]
        if hid in self.p.hypothesis_question:
            raise DomainError(f"seq {event.seq}: hypothesis {hid!r} already exists")
        parent = payload.get("parent_id")
        if parent is not None and parent not in question.nodes:
            raise DomainError(f"seq {event.seq}: parent {parent!r} is not in question {qid!r}")
        question.add(
            HypothesisNode(
                id=hid,
                question_id=qid,
                parent_id=parent,
                text=payload["text"],
                prior=payload["prior"],
                meaning=payload.get("meaning"),
                proposed_seq=event.seq,
            )
        )
        self.p.hypothesis_question[hid] = qid
        graph = self.p.graph
        graph.add_node(f"h:{hid}", kind="hypothesis", label=payload["text"])
        if parent is None:
            graph.add_edge(f"q:{qid}", f"h:{hid}", key="has", kind="has")
        else:
            graph.add_edge(f"h:{parent}", f"h:{hid}", key="refines", kind="refines")
        return {qid}

    def _node(self, hid: str) -> tuple[QuestionState, HypothesisNode]:
        question = self.p.questions[self.p.hypothesis_question[hid]]
        return question, question.nodes[hid]

    def _hypothesis_refined(self, event: Event, payload: dict[str, Any]) -> set[str]:
        _, node = self._node(payload["hypothesis_id"])
        node.text = payload["text"]
        self.p.graph.nodes[f"h:{node.id}"]["label"] = node.text
        return set()

    def _hypothesis_retired(self, event: Event, payload: dict[str, Any]) -> set[str]:
        question, node = self._node(payload["hypothesis_id"])
        node.retired = True
        node.retired_reason = payload["reason"]
        question.refresh_priors()
        return {question.id}

    def _hypothesis_reinstated(self, event: Event, payload: dict[str, Any]) -> set[str]:
        question, node = self._node(payload["hypothesis_id"])
        node.retired = False
        node.retired_reason = None
        question.refresh_priors()
        return {question.id}

    # --- probes and observations -----------------------------------------------------------

    def _probe_ran(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.probe_runs[event.seq] = payload
        self.p.graph.add_node(f"run:{event.seq}", kind="probe_run", label=payload["probe"])

    def _observation_recorded(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.observations[event.seq] = payload
        graph = self.p.graph
        graph.add_node(f"obs:{event.seq}", kind="observation", label=payload["probe"])
        run = payload["probe_run_seq"]
        if f"run:{run}" in graph:
            graph.add_edge(f"run:{run}", f"obs:{event.seq}", key="produced", kind="produced")
        if not payload.get("parsed", True):
            self.p.warnings.unparsed(event.seq, payload)

    def _reading_set_aside(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.warnings.set_aside(event.seq, payload)
        obs = f"obs:{payload['observation_seq']}"
        if obs in self.p.graph:
            self.p.graph.nodes[obs].setdefault("set_aside", []).append(payload["reason"])

    # --- evidence --------------------------------------------------------------------------

    def _evidence_assessed(
        self, event: Event, payload: dict[str, Any]
    ) -> tuple[set[str], float, float]:
        p = self.p
        eid = payload["evidence_id"]
        if eid in p.evidence:
            raise DomainError(f"seq {event.seq}: evidence {eid!r} already exists")
        likelihoods: dict[str, float] = payload["likelihoods"]
        qid = payload.get("question_id") or question_of(p, likelihoods, event.seq)
        question = p.questions[qid]
        for hid in likelihoods:
            if hid not in question.nodes:
                raise DomainError(
                    f"seq {event.seq}: evidence names {hid!r}, not a hypothesis of {qid!r}"
                )
        otherwise = payload.get("otherwise", 0.5)
        reliability = payload["reliability"]
        effect = question.effect(likelihoods, otherwise, reliability)
        old_id = payload.get("supersedes")
        if old_id is not None:
            old = p.evidence[old_id]
            if old.active:
                # Recomputed on today's tree: hypotheses proposed since then inherited the same
                # numbers, so they must lose them too.
                question.apply(question.effect(old.likelihoods, old.otherwise, old.reliability), -1)
                count_support(question, old, -1)
            old.superseded_by = eid
        predictive = question.predictive(effect)
        surprise = -math.log2(predictive) if predictive > 0.0 else math.inf
        best = question.best_explanation(effect)
        unexpected = math.log2(best / predictive) if predictive > 0.0 else math.inf
        question.apply(effect)
        state = EvidenceState(
            id=eid,
            seq=event.seq,
            question_id=qid,
            likelihoods=likelihoods,
            otherwise=otherwise,
            kind=payload.get("kind", "measured"),
            reliability=reliability,
            rationale=payload["rationale"],
            effect=effect,
            rule=payload.get("rule"),
            outcome=payload.get("outcome"),
            statistic=payload.get("statistic"),
            observation_seq=payload.get("observation_seq"),
            probe_run_seq=payload.get("probe_run_seq"),
            supersedes=old_id,
            surprise_bits=surprise,
            supports=supported_tops(question, effect, otherwise, reliability),
        )
        p.evidence[eid] = state
        count_support(question, state, +1)
        self._graph_evidence(state)
        return {qid}, surprise, max(0.0, unexpected)

    def _graph_evidence(self, state: EvidenceState) -> None:
        graph = self.p.graph
        node = f"e:{state.id}"
        graph.add_node(node, kind="evidence", label=state.rationale, evidence_kind=state.kind)
        for hid, value in state.likelihoods.items():
            graph.add_edge(node, f"h:{hid}", key="bears_on", kind="bears_on", likelihood=value)
        if state.observation_seq is not None and f"obs:{state.observation_seq}" in graph:
            graph.add_edge(f"obs:{state.observation_seq}", node, key="assessed", kind="assessed")
        elif state.probe_run_seq is not None and f"run:{state.probe_run_seq}" in graph:
            graph.add_edge(f"run:{state.probe_run_seq}", node, key="assessed", kind="assessed")
        if state.supersedes is not None:
            graph.add_edge(node, f"e:{state.supersedes}", key="supersedes", kind="supersedes")


def question_of(p: Projection, likelihoods: dict[str, float], seq: int) -> str:
    """The one question whose hypotheses an evidence event names."""
    questions = {p.hypothesis_question[h] for h in likelihoods if h in p.hypothesis_question}
    unknown = [h for h in likelihoods if h not in p.hypothesis_question]
    if unknown:
        raise DomainError(f"seq {seq}: evidence names unknown hypothesis {unknown[0]!r}")
    if len(questions) != 1:
        raise DomainError(f"seq {seq}: evidence must name hypotheses of exactly one question")
    return questions.pop()


def count_support(question: QuestionState, state: EvidenceState, sign: int) -> None:
    for top in state.supports:
        kinds = question.support.setdefault(top, {})
        kinds[state.kind] = kinds.get(state.kind, 0) + sign


def supported_tops(
    question: QuestionState, effect: EvidenceEffect, otherwise: float, reliability: float
) -> frozenset[str]:
    """Top-level hypotheses that some leaf of which this evidence favours (P'(E|h) > o)."""
    if reliability <= 0.0:
        return frozenset()
    favoured = set()
    for node_id, value in effect.leaf_likelihoods.items():
        if value > otherwise:
            favoured.add(question.top_of(node_id))
    return frozenset(favoured)
