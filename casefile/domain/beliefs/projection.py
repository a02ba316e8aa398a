"""Fold a case's events into questions, hypotheses, evidence, a graph and a trajectory.

Folding only reads the numbers stored in events (priors, the likelihoods an evidence event
applied); it never consults today's rules, so replaying a case always gives the same
confidences. Events that the state cannot accept (evidence naming an unknown hypothesis in an
imported case, say) raise :class:`~casefile.errors.DomainError` naming the seq.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from casefile.domain.beliefs.evidence import EvidenceState as EvidenceState
from casefile.domain.beliefs.evidence import SavedEvidence as SavedEvidence
from casefile.domain.beliefs.question import (
    HypothesisNode,
    QuestionSnapshot,
    QuestionState,
    Surprise,
)
from casefile.domain.beliefs.tree import moved_depth
from casefile.domain.beliefs.warnings import CaseWarning, WarningTracker
from casefile.domain.catalogue import CURRENT_VERSIONS
from casefile.domain.events import GENESIS_HASH, Event
from casefile.domain.ids import ID_PATTERN
from casefile.domain.upcasters import read_event
from casefile.errors import DomainError, InvalidEvent

#: An observation is flagged as surprising when the hypothesis that best explains it made it at
#: least this many bits likelier than the belief held just before did (log₂ max_h P(E|h) / P(E)).
#: Raw surprise (−log₂ P(E)) is shown too, but its scale depends on how finely the evidence's
#: outcomes are cut, so it is a poor threshold on its own.
SURPRISE_FLAG_BITS = 1.0


#: question → (depth, old leading leaf, new leading leaf): see :attr:`Step.pivot_depths`
PivotDepths = dict[str, tuple[int, str, str]]
_NO_DEPTHS: PivotDepths = {}


class Step(NamedTuple):
    """The state right after one event: what replay shows for that step.

    A named tuple rather than a frozen dataclass: a long fold makes one per event, and frozen
    dataclasses pay for every field on construction.
    """

    seq: int
    type: str
    snapshots: dict[str, QuestionSnapshot]
    changed: frozenset[str]
    pivots: dict[str, tuple[str, str]]  # question → (old leader, new leader)
    surprise: Surprise | None
    raised: tuple[CaseWarning, ...]
    cleared: tuple[CaseWarning, ...]
    #: where the leader path (the leader, then the leading child at each depth down to the
    #: leading leaf) changed: depth 0 with every entry of ``pivots``, deeper where the leader
    #: at that depth changed under the same top-level leader (a pivot inside a subtree)
    pivot_depths: PivotDepths = _NO_DEPTHS

    @property
    def surprise_bits(self) -> float | None:
        """−log₂ P(E) of the evidence this step recorded, under the belief just before."""
        return None if self.surprise is None else self.surprise.bits

    @property
    def unexpected_bits(self) -> float | None:
        return None if self.surprise is None else self.surprise.unexpected_bits


@dataclass
class Projection:
    """Everything a fold of a case's events knows.

    A projection either holds the whole history (``base_seq`` 0) or was restored from a saved
    fold (``fold_codec``) up to ``base_seq`` and continued from there: then ``events`` and
    ``trajectory`` hold only what came after ``base_seq``, and ``probe_runs`` and
    ``observations`` before it are small stubs (the keys views and commands read, no facts).

    Provenance: ``EvidenceState.hash``, each ``set_asides`` record's ``"hash"``, and
    ``probe_run_hashes`` / ``observation_hashes`` (seq → hash, kept apart so the payload
    dicts stay exactly the events' own) give the hash of the event each came from.
    """

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
    set_asides: list[dict[str, Any]] = field(default_factory=list)
    #: experiment id → the ``experiment.recorded`` payload with its ``seq`` and ``hash``
    experiments: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the case's environment as opened (``--env KEY=VALUE``): intake reads it
    environment: dict[str, str] = field(default_factory=dict)
    concluded: dict[str, Any] | None = None
    _graph: Any = None
    snapshots: dict[str, QuestionSnapshot] = field(default_factory=dict)
    base_seq: int = 0
    base_hash: str = GENESIS_HASH
    probe_run_hashes: dict[int, str] = field(default_factory=dict)
    observation_hashes: dict[int, str] = field(default_factory=dict)
    #: results derived from one step, which never change once that step is folded (see
    #: ``scoring``); keyed by (what, seq), bounded by whoever fills it
    _derived: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    #: whether folding records a step per event (replay, pivots, surprise); a fold for the
    #: current state only (a one-shot status, a write) skips it: same state, a third faster
    keeps_trajectory: bool = True

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else self.base_seq

    @property
    def last_hash(self) -> str:
        """The hash of the last event folded (what the next event must chain to)."""
        return self.events[-1].hash if self.events else self.base_hash

    @property
    def event_count(self) -> int:
        """Events in the case so far, restored ones included (seqs run 1, 2, …)."""
        return self.last_seq

    def step_at(self, seq: int) -> Step | None:
        """The trajectory step of event ``seq``, or ``None`` if this projection does not hold
        it (a restored projection's trajectory starts after ``base_seq``)."""
        trajectory = self.trajectory
        if not trajectory:
            return None
        position = seq - trajectory[0].seq
        if 0 <= position < len(trajectory) and trajectory[position].seq == seq:
            return trajectory[position]
        # seqs not contiguous (a hand-built stream): search
        low, high = 0, len(trajectory)
        while low < high:
            middle = (low + high) // 2
            if trajectory[middle].seq < seq:
                low = middle + 1
            else:
                high = middle
        if low < len(trajectory) and trajectory[low].seq == seq:
            return trajectory[low]
        return None

    def held_step(self, seq: int | None) -> Step | None:
        """The step views should read for "the state right after ``seq``": ``None`` for the
        live state (``seq`` is ``None`` or the last seq, even with no trajectory), else the
        trajectory's step. Raises ``DomainError`` for a seq this projection does not hold."""
        if seq is None or seq == self.last_seq:
            return None
        step = self.step_at(seq)
        if step is None:
            first = self.trajectory[0].seq if self.trajectory else self.last_seq
            restored = f"; restored from a saved fold at {self.base_seq}" if self.base_seq else ""
            raise DomainError(
                f"seq {seq} is not a step of this case as held "
                f"(steps {first}–{self.last_seq}{restored})"
            )
        return step

    def adopt(self, sealed: Sequence[Event]) -> None:
        """Swap the last events folded for the same events as the store sealed them.

        A draft folds events sealed provisionally (their seq predicted, their hash not real);
        once appended, the store's events carry the same seqs, types and payloads and the real
        hashes, which the provenance fields then take. Raises ``DomainError`` if the sealed
        events are not the ones folded last (the fold would no longer describe the case).
        """
        count = len(sealed)
        if not count:
            return
        held = self.events[-count:]
        if len(held) != count or any(
            a.seq != b.seq or a.type != b.type or a.payload != b.payload
            for a, b in zip(held, sealed, strict=True)
        ):
            raise DomainError("the sealed events are not the events folded last")
        self.events[-count:] = list(sealed)
        for event in sealed:
            if event.type == "evidence.assessed":
                self.evidence[event.payload["evidence_id"]].hash = event.hash
            elif event.type == "probe.ran":
                self.probe_run_hashes[event.seq] = event.hash
            elif event.type == "observation.recorded":
                self.observation_hashes[event.seq] = event.hash
            elif event.type == "reading.set_aside":
                for record in reversed(self.set_asides):
                    if record["seq"] == event.seq:
                        record["hash"] = event.hash
                        break
        self._derived.clear()  # cached results carry hashes

    def confidences(self) -> dict[str, float]:
        """Every hypothesis's (and catch-all's) current confidence, across questions."""
        out: dict[str, float] = {}
        for question in self.questions.values():
            out.update(question.confidences)
        return out

    @property
    def graph(self) -> Any:
        """The networkx graph of questions, hypotheses, evidence, observations and probe runs.

        Built from the folded state on first use (and again after more events are folded), so
        folding a long case pays nothing for it until a view asks.
        """
        if self._graph is None:
            from casefile.domain.beliefs.graph import build_graph

            self._graph = build_graph(self)
        return self._graph

    def pivots(self) -> list[Step]:
        return [step for step in self.trajectory if step.pivots]


def project(
    events: Iterable[Event], into: Projection | None = None, *, trajectory: bool = True
) -> Projection:
    """Fold events into a new projection, or continue folding into ``into``.

    ``trajectory=False`` makes a projection of the current state only: no step per event
    (so no replay, pivots or surprise from it), the same questions, evidence, warnings and
    confidences to the bit. A projection keeps the mode it was made with.

    The cyclic garbage collector is paused while folding: a fold allocates many small objects
    that all stay alive (the trajectory), so each generation-2 pass would rescan a heap that only
    grows, making a long fold quadratic. Nothing the fold builds forms a reference cycle.
    """
    projection = Projection(keeps_trajectory=trajectory) if into is None else into
    folder = _Folder(projection)
    apply = folder.apply if projection.keeps_trajectory else folder.apply_state
    collecting = gc.isenabled()
    gc.disable()
    try:
        current = CURRENT_VERSIONS
        for event in events:
            if event.version != current.get(event.type, event.version):
                event = _read_through_upcasters(event)
            apply(event)
    finally:
        if not projection.keeps_trajectory:
            folder.settle_snapshots()
        # the handler table holds the folder's bound methods: a cycle that would keep the
        # projection alive until the cyclic collector ran (and one-shot commands pause it)
        folder.handlers.clear()
        if collecting:
            gc.enable()
    return projection


def _read_through_upcasters(event: Event) -> Event:
    """An event of an older version of its type, as today's fold reads it (see
    :mod:`casefile.domain.upcasters`); a newer one is refused naming its seq."""
    try:
        return read_event(event, CURRENT_VERSIONS)
    except InvalidEvent as error:
        raise DomainError(f"seq {event.seq}: {error}") from None


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (see :func:`project`): work that allocates tens of
    thousands of objects next to a long fold would otherwise trigger passes over the whole
    heap, costing more than the work itself. Nothing built under it forms a cycle."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


_NO_PIVOTS: dict[str, tuple[str, str]] = {}
_NOTHING_CHANGED: frozenset[str] = frozenset()


class _Folder:
    def __init__(self, projection: Projection) -> None:
        self.p = projection
        self.snapshots = projection.snapshots
        # the snapshots dict of the last step, shared by every step that changed nothing
        self.shared = dict(self.snapshots)
        #: questions a state-only fold changed, whose snapshot is taken once at the end
        self.dirty: set[str] = set()
        self.handlers: dict[str, Any] = {
            name: getattr(self, "_" + name.replace(".", "_"))
            for name in (
                "case.opened",
                "case.concluded",
                "question.proposed",
                "hypothesis.proposed",
                "hypothesis.refined",
                "hypothesis.retired",
                "hypothesis.reinstated",
                "priors.rebalanced",
                "probe.ran",
                "observation.recorded",
                "reading.set_aside",
                "evidence.assessed",
                "experiment.recorded",
            )
        }

    def apply(self, event: Event) -> None:
        p = self.p
        p.events.append(event)
        p._graph = None
        handler = self.handlers.get(event.type)
        changed: set[str] | frozenset[str] = _NOTHING_CHANGED
        surprise: Surprise | None = None
        warnings = p.warnings
        warnings.begin_step()
        try:
            if handler is not None:
                result = handler(event, event.payload)
                if result.__class__ is tuple:
                    changed, surprise = result
                elif result is not None:
                    changed = result
        except KeyError as error:
            raise DomainError(f"seq {event.seq} ({event.type}): unknown id {error}") from None
        pivots = _NO_PIVOTS
        depths = _NO_DEPTHS
        if changed:
            pivots = {}
            depths = {}
            for qid in changed:
                question = p.questions[qid]
                before = self.snapshots.get(qid)
                snap = question.snapshot()
                if before is not None and question.evidence_count:
                    if before.leader != snap.leader:
                        pivots[qid] = (before.leader, snap.leader)
                        depths[qid] = (0, before.leading_leaf, snap.leading_leaf)
                    elif snap.leads_a_subtree() or before.leads_a_subtree():
                        # only a leader with children can move inside its subtree
                        depth = moved_depth(before.leader_path, snap.leader_path)
                        if depth is not None:
                            depths[qid] = (depth, before.leading_leaf, snap.leading_leaf)
                self.snapshots[qid] = snap
                warnings.check_question(event.seq, question)
            self.shared = dict(self.snapshots)
        raised, cleared = warnings.end_step()
        p.trajectory.append(
            Step(
                event.seq,
                event.type,
                self.shared,
                changed if changed.__class__ is frozenset else frozenset(changed),
                pivots,
                surprise,
                raised,
                cleared,
                depths or _NO_DEPTHS,
            )
        )

    def apply_state(self, event: Event) -> None:
        """:meth:`apply` without the step: the state changes exactly as there."""
        p = self.p
        p.events.append(event)
        p._graph = None
        handler = self.handlers.get(event.type)
        warnings = p.warnings
        warnings.begin_step()
        changed: Any = None
        try:
            if handler is not None:
                result = handler(event, event.payload)
                changed = result[0] if result.__class__ is tuple else result
        except KeyError as error:
            raise DomainError(f"seq {event.seq} ({event.type}): unknown id {error}") from None
        if changed:
            self.dirty.update(changed)
            for qid in changed:
                warnings.check_question(event.seq, p.questions[qid])
        warnings.end_step()

    def settle_snapshots(self) -> None:
        """The current snapshot of every question a state-only fold changed."""
        for qid in self.dirty:
            self.snapshots[qid] = self.p.questions[qid].snapshot()
        self.dirty.clear()

    # --- case ------------------------------------------------------------------------------

    def _case_opened(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.case_id = event.case_id
        self.p.title = payload["title"]
        self.p.symptom = payload.get("symptom")
        self.p.environment = dict(payload.get("environment") or {})

    def _case_concluded(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.concluded = dict(payload, seq=event.seq)

    # --- questions and hypotheses ----------------------------------------------------------

    def _question_proposed(self, event: Event, payload: dict[str, Any]) -> set[str]:
        qid = payload["question_id"]
        if qid in self.p.questions:
            raise DomainError(f"seq {event.seq}: question {qid!r} already exists")
        if not ID_PATTERN.match(qid) or "/" in qid:
            raise DomainError(f"seq {event.seq}: question id {qid!r} is not a plain id")
        question = QuestionState(
            id=qid,
            text=payload["text"],
            catch_all_reserve=payload.get("catch_all", 0.1),
            playbook=payload.get("playbook"),
            proposed_seq=event.seq,
        )
        question.refresh_priors()
        self.p.questions[qid] = question
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
        check_tree_change(event.seq, question, hid, parent, payload["prior"])
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
        return {qid}

    def _node(self, hid: str) -> tuple[QuestionState, HypothesisNode]:
        question = self.p.questions[self.p.hypothesis_question[hid]]
        return question, question.nodes[hid]

    def _hypothesis_refined(self, event: Event, payload: dict[str, Any]) -> set[str]:
        _, node = self._node(payload["hypothesis_id"])
        node.text = payload["text"]
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

    def _priors_rebalanced(self, event: Event, payload: dict[str, Any]) -> set[str]:
        question = self.p.questions[payload["question_id"]]
        try:
            question.reweigh(payload["priors"], MIN_CATCH_ALL_PRIOR)
        except ValueError as error:
            raise DomainError(f"seq {event.seq}: {error}") from None
        return {question.id}

    # --- probes and observations -----------------------------------------------------------

    def _probe_ran(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.probe_runs[event.seq] = payload
        self.p.probe_run_hashes[event.seq] = event.hash

    def _observation_recorded(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.observations[event.seq] = payload
        self.p.observation_hashes[event.seq] = event.hash
        if not payload.get("parsed", True):
            run = self.p.probe_runs.get(payload["probe_run_seq"])
            self.p.warnings.unparsed(event.seq, payload, run)

    def _reading_set_aside(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.warnings.set_aside(event.seq, payload)
        self.p.set_asides.append(dict(payload, seq=event.seq, hash=event.hash))

    def _experiment_recorded(self, event: Event, payload: dict[str, Any]) -> None:
        eid = payload["experiment_id"]
        if eid in self.p.experiments:
            raise DomainError(f"seq {event.seq}: experiment {eid!r} already exists")
        for key in ("baseline_seq", "variant_seq"):
            if payload.get(key) is not None and payload[key] not in self.p.probe_runs:
                raise DomainError(f"seq {event.seq}: {key} {payload[key]} is not a probe run")
        self.p.experiments[eid] = dict(payload, seq=event.seq, hash=event.hash)

    # --- evidence --------------------------------------------------------------------------

    def _evidence_assessed(
        self, event: Event, payload: dict[str, Any]
    ) -> tuple[set[str], Surprise]:
        p = self.p
        eid = payload["evidence_id"]
        if eid in p.evidence:
            raise DomainError(f"seq {event.seq}: evidence {eid!r} already exists")
        likelihoods: dict[str, float] = payload["likelihoods"]
        qid = payload.get("question_id") or question_of(p, likelihoods, event.seq)
        question = p.questions[qid]
        if not likelihoods.keys() <= question.nodes.keys():
            hid = next(h for h in likelihoods if h not in question.nodes)
            raise DomainError(
                f"seq {event.seq}: evidence names {hid!r}, not a hypothesis of {qid!r}"
            )
        otherwise = payload.get("otherwise", 0.5)
        reliability = payload["reliability"]
        effect = question.effect(likelihoods, otherwise, reliability)
        old_id = payload.get("supersedes")
        if old_id is not None:
            old = p.evidence.get(old_id)
            if old is None or old.question_id != qid or not old.active:
                why = (
                    "is unknown"
                    if old is None
                    else f"bears on question {old.question_id!r}"
                    if old.question_id != qid
                    else f"was already superseded by {old.superseded_by!r}"
                )
                raise DomainError(f"seq {event.seq}: supersedes evidence {old_id!r}, which {why}")
            if old.active:
                # Recomputed on today's tree: hypotheses proposed since then inherited the same
                # numbers, so they must lose them too.
                question.apply(question.effect(old.likelihoods, old.otherwise, old.reliability), -1)
                count_support(question, old, -1)
            old.superseded_by = eid
        surprise = question.surprise(effect)
        question.apply(effect)
        state = EvidenceState(
            eid,
            event.seq,
            qid,
            likelihoods,
            otherwise,
            payload.get("kind", "measured"),
            reliability,
            payload,
            effect,
            surprise,
            supported_tops(question, likelihoods, otherwise, reliability),
            event.hash,
        )
        p.evidence[eid] = state
        count_support(question, state, +1)
        return {qid}, surprise


#: The least prior the catch-all may be left with: "something not yet named" never reaches 0,
#: or no later hypothesis could be carved out of it and no evidence could make it rise.
MIN_CATCH_ALL_PRIOR = 1e-6


def check_tree_change(
    seq: int, question: QuestionState, hid: str, parent: str | None, prior: float
) -> None:
    """Refuse a hypothesis that would leave an impossible tree (an imported case may hold one
    that the commands would never have written)."""
    if not ID_PATTERN.match(hid) or "/" in hid:
        raise DomainError(f"seq {seq}: hypothesis id {hid!r} is not a plain id")
    if parent is None:
        left = question.catch_all_prior() - prior
        if left < MIN_CATCH_ALL_PRIOR:
            raise DomainError(
                f"seq {seq}: prior {prior:g} of {hid!r} leaves the catch-all of "
                f"{question.id!r} nothing"
            )
    elif question.children_share(parent) + prior > 1.0 + 1e-9:
        raise DomainError(f"seq {seq}: children of {parent!r} would have shares above 1")


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
    # sorted: a frozenset's order follows string hashing, which changes from run to run, and
    # ``support`` is saved with the fold in its own order
    for top in sorted(state.supports):
        kinds = question.support.setdefault(top, {})
        kinds[state.kind] = kinds.get(state.kind, 0) + sign


def supported_tops(
    question: QuestionState, likelihoods: dict[str, float], otherwise: float, reliability: float
) -> frozenset[str]:
    """Top-level hypotheses this evidence favours: it names one of their subtree with
    P(E|h) > o (tempering keeps the direction, so only r = 0 supports nothing)."""
    if reliability <= 0.0:
        return frozenset()
    return frozenset([question.top_id(h) for h, value in likelihoods.items() if value > otherwise])
