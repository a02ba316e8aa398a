"""Fold a case's events into questions, hypotheses, evidence, a graph and a trajectory.

Folding only reads the numbers stored in events (priors, the likelihoods an evidence event
applied); it never consults today's rules, so replaying a case always gives the same
confidences. Events that the state cannot accept (evidence naming an unknown hypothesis in an
imported case, say) raise :class:`~casefile.errors.DomainError` naming the seq.

Each handler reads its event's payload as the typed model of its type
(``EVENT_TYPES[type].model``, validated once here by the model's core validator: 1.4-4 us an
``evidence.assessed``), never by string key, so a default lives in the model alone; a payload
that does not validate raises :class:`~casefile.errors.DomainError` naming the seq. The two
types whose payloads are large and only kept, ``probe.ran`` and ``observation.recorded``
(:data:`KEPT_AS_STORED`), are handed the stored dict: validating an observation of 83 facts
costs 48-74 us, every fact a model, and the fold reads one field of it, through
:func:`~casefile.domain.event_types.stored.unparsed_run`. What a handler keeps (a
conclusion, a set-aside, an experiment, an evidence event and its likelihoods) is the stored
dict, ``event.payload``, so what the fold holds and saves is what it held before, and no
second copy of it.

What a fold knows, :class:`Projection` and a :class:`Step` per event, is
:mod:`casefile.domain.beliefs.projection_state`; both are importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from casefile.domain.beliefs.evidence import EvidenceState as EvidenceState
from casefile.domain.beliefs.evidence import SavedEvidence as SavedEvidence
from casefile.domain.beliefs.nodes import HypothesisNode, Requirement
from casefile.domain.beliefs.projection_state import NO_DEPTHS as _NO_DEPTHS
from casefile.domain.beliefs.projection_state import SURPRISE_FLAG_BITS as SURPRISE_FLAG_BITS
from casefile.domain.beliefs.projection_state import PivotDepths as PivotDepths
from casefile.domain.beliefs.projection_state import Projection as Projection
from casefile.domain.beliefs.projection_state import Step as Step
from casefile.domain.beliefs.question import QuestionState, Surprise
from casefile.domain.beliefs.tree import moved_depth
from casefile.domain.catalogue import CURRENT_VERSIONS
from casefile.domain.collector import collector_paused
from casefile.domain.event_types import EVENT_TYPES, Payload
from casefile.domain.event_types.base import invalid
from casefile.domain.event_types.case import CaseConcluded, CaseOpened
from casefile.domain.event_types.evidence import EvidenceAssessed, IntakeRef, ReadingSetAside
from casefile.domain.event_types.experiment import ExperimentRecorded
from casefile.domain.event_types.hypothesis import (
    HypothesisProposed,
    HypothesisRefined,
    HypothesisReinstated,
    HypothesisRetired,
    PriorsRebalanced,
    QuestionProposed,
)
from casefile.domain.event_types.hypothesis import Requirement as RequirementPayload
from casefile.domain.event_types.stored import kept_likelihoods, unparsed_run
from casefile.domain.events import Event
from casefile.domain.ids import ID_PATTERN
from casefile.domain.upcasters import read_event
from casefile.errors import DomainError, InvalidEvent


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
    with collector_paused():
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
    return projection


def _read_through_upcasters(event: Event) -> Event:
    """An event of an older version of its type, as today's fold reads it (see
    :mod:`casefile.domain.upcasters`); a newer one is refused naming its seq."""
    try:
        return read_event(event, CURRENT_VERSIONS)
    except InvalidEvent as error:
        raise DomainError(f"seq {event.seq}: {error}") from None


#: The types the fold has a handler for (``_Folder._<family>_<verb>``); the others (notes,
#: actions) change no state and only take a step.
FOLDED_TYPES = tuple(name for name, kind in EVENT_TYPES.items() if kind.folded)

#: The folded types whose handlers get the stored payload dict rather than its model: large
#: payloads the fold keeps as they are (see the module's docstring for the figures).
KEPT_AS_STORED = frozenset({"probe.ran", "observation.recorded"})

#: A handler: (event, its payload as the model of its type, or the stored dict) → what changed
Handler = Callable[[Event, Any], Any]
#: A type's payload model's validator, None for :data:`KEPT_AS_STORED` types
Validate = Callable[[Any], Payload] | None


def _validator(model: type[Payload]) -> Callable[[Any], Payload]:
    """``model``'s core validator: what ``model_validate`` runs, without its per-call set-up
    (1.4 against 2.5 us an ``evidence.assessed`` payload; the fold validates each small one)."""
    validate: Callable[[Any], Payload] = model.__pydantic_validator__.validate_python
    return validate


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
        self.handlers: dict[str, tuple[Handler, Validate]] = {
            name: (
                getattr(self, "_" + name.replace(".", "_")),
                None if name in KEPT_AS_STORED else _validator(EVENT_TYPES[name].model),
            )
            for name in FOLDED_TYPES
        }

    def apply(self, event: Event) -> None:
        p = self.p
        p.events.append(event)
        p._graph = None
        entry = self.handlers.get(event.type)
        changed: set[str] | frozenset[str] = _NOTHING_CHANGED
        surprise: Surprise | None = None
        warnings = p.warnings
        warnings.begin_step()
        try:
            if entry is not None:
                handler, validate = entry
                result = handler(
                    event, event.payload if validate is None else validate(event.payload)
                )
                if result.__class__ is tuple:
                    changed, surprise = result
                elif result is not None:
                    changed = result
        except KeyError as error:
            raise DomainError(f"seq {event.seq} ({event.type}): unknown id {error}") from None
        except ValidationError as error:
            raise DomainError(f"seq {event.seq}: {invalid(event.type, error)}") from None
        pivots = _NO_PIVOTS
        depths = _NO_DEPTHS
        if changed:
            p.beliefs_seq = event.seq
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
        entry = self.handlers.get(event.type)
        warnings = p.warnings
        warnings.begin_step()
        changed: Any = None
        try:
            if entry is not None:
                handler, validate = entry
                result = handler(
                    event, event.payload if validate is None else validate(event.payload)
                )
                changed = result[0] if result.__class__ is tuple else result
        except KeyError as error:
            raise DomainError(f"seq {event.seq} ({event.type}): unknown id {error}") from None
        except ValidationError as error:
            raise DomainError(f"seq {event.seq}: {invalid(event.type, error)}") from None
        if changed:
            p.beliefs_seq = event.seq
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

    def _case_opened(self, event: Event, payload: CaseOpened) -> None:
        self.p.case_id = event.case_id
        self.p.title = payload.title
        self.p.symptom = payload.symptom
        self.p.environment = dict(payload.environment)

    def _case_concluded(self, event: Event, payload: CaseConcluded) -> None:
        self.p.concluded = dict(event.payload, seq=event.seq)
        self.p.concluded_hash = event.hash

    # --- questions and hypotheses ----------------------------------------------------------

    def _question_proposed(self, event: Event, payload: QuestionProposed) -> set[str]:
        qid = payload.question_id
        if qid in self.p.questions:
            raise DomainError(f"seq {event.seq}: question {qid!r} already exists")
        if not ID_PATTERN.match(qid) or "/" in qid:
            raise DomainError(f"seq {event.seq}: question id {qid!r} is not a plain id")
        question = QuestionState(
            id=qid,
            text=payload.text,
            catch_all_reserve=payload.catch_all,
            playbook=payload.playbook,
            proposed_seq=event.seq,
        )
        question.refresh_priors()
        self.p.questions[qid] = question
        return {qid}

    def _hypothesis_proposed(self, event: Event, payload: HypothesisProposed) -> set[str]:
        qid = payload.question_id
        hid = payload.hypothesis_id
        question = self.p.questions[qid]
        if hid in self.p.hypothesis_question:
            raise DomainError(f"seq {event.seq}: hypothesis {hid!r} already exists")
        parent = payload.parent_id
        if parent is not None and parent not in question.nodes:
            raise DomainError(f"seq {event.seq}: parent {parent!r} is not in question {qid!r}")
        check_tree_change(event.seq, question, hid, parent, payload.prior)
        question.add(
            HypothesisNode(
                id=hid,
                question_id=qid,
                parent_id=parent,
                text=payload.text,
                prior=payload.prior,
                meaning=payload.meaning,
                proposed_seq=event.seq,
                requires=requirements(payload.requires),
            )
        )
        self.p.hypothesis_question[hid] = qid
        if question.answers:
            question.settle_requirements()
        return {qid}

    def _node(self, hid: str) -> tuple[QuestionState, HypothesisNode]:
        question = self.p.questions[self.p.hypothesis_question[hid]]
        return question, question.nodes[hid]

    def _hypothesis_refined(self, event: Event, payload: HypothesisRefined) -> set[str]:
        _, node = self._node(payload.hypothesis_id)
        node.text = payload.text
        return set()

    def _hypothesis_retired(self, event: Event, payload: HypothesisRetired) -> set[str]:
        question, node = self._node(payload.hypothesis_id)
        node.retired = True
        node.retired_reason = payload.reason
        question.refresh_priors()
        return {question.id}

    def _hypothesis_reinstated(self, event: Event, payload: HypothesisReinstated) -> set[str]:
        question, node = self._node(payload.hypothesis_id)
        node.retired = False
        node.retired_reason = None
        question.refresh_priors()
        return {question.id}

    def _priors_rebalanced(self, event: Event, payload: PriorsRebalanced) -> set[str]:
        question = self.p.questions[payload.question_id]
        try:
            question.reweigh(payload.priors, MIN_CATCH_ALL_PRIOR)
        except ValueError as error:
            raise DomainError(f"seq {event.seq}: {error}") from None
        return {question.id}

    # --- probes and observations (their stored dicts: see KEPT_AS_STORED) ------------------

    def _probe_ran(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.probe_runs[event.seq] = payload
        self.p.probe_run_hashes[event.seq] = event.hash

    def _observation_recorded(self, event: Event, payload: dict[str, Any]) -> None:
        self.p.observations[event.seq] = payload
        self.p.observation_hashes[event.seq] = event.hash
        run_seq = unparsed_run(payload)
        if run_seq is not None:
            self.p.warnings.unparsed(event.seq, payload, self.p.probe_runs.get(run_seq))

    def _reading_set_aside(self, event: Event, payload: ReadingSetAside) -> None:
        self.p.warnings.set_aside(event.seq, event.payload)
        self.p.set_asides.append(dict(event.payload, seq=event.seq, hash=event.hash))

    def _experiment_recorded(self, event: Event, payload: ExperimentRecorded) -> None:
        eid = payload.experiment_id
        if eid in self.p.experiments:
            raise DomainError(f"seq {event.seq}: experiment {eid!r} already exists")
        runs = (("baseline_seq", payload.baseline_seq), ("variant_seq", payload.variant_seq))
        for key, run_seq in runs:
            if run_seq is not None and run_seq not in self.p.probe_runs:
                raise DomainError(f"seq {event.seq}: {key} {run_seq} is not a probe run")
        if payload.restates is not None and payload.restates not in self.p.experiments:
            raise DomainError(
                f"seq {event.seq}: restates experiment {payload.restates!r}, which is unknown"
            )
        self.p.experiments[eid] = dict(event.payload, seq=event.seq, hash=event.hash)

    # --- evidence --------------------------------------------------------------------------

    def _evidence_assessed(
        self, event: Event, payload: EvidenceAssessed
    ) -> tuple[set[str], Surprise]:
        p = self.p
        eid = payload.evidence_id
        if eid in p.evidence:
            raise DomainError(f"seq {event.seq}: evidence {eid!r} already exists")
        likelihoods = kept_likelihoods(event.payload)
        qid = payload.question_id or question_of(p, likelihoods, event.seq)
        question = p.questions[qid]
        if not likelihoods.keys() <= question.nodes.keys():
            hid = next(h for h in likelihoods if h not in question.nodes)
            raise DomainError(
                f"seq {event.seq}: evidence names {hid!r}, not a hypothesis of {qid!r}"
            )
        otherwise = payload.otherwise
        reliability = payload.reliability
        effect = question.effect(likelihoods, otherwise, reliability)
        old_id = payload.supersedes
        intake = payload.intake
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
            replaced = old.payload_field("intake")
            if replaced is not None:
                replaced_id = IntakeRef.model_validate(replaced).id
                if intake is None or intake.id != replaced_id:
                    # superseded by evidence that is not a new answer: nothing answers it now
                    question.forget_answer(replaced_id)
                    effect = question.effect(likelihoods, otherwise, reliability)
        surprise = question.surprise(effect)
        question.apply(effect)
        state = EvidenceState(
            eid,
            event.seq,
            qid,
            likelihoods,
            otherwise,
            payload.kind,
            reliability,
            event.payload,
            effect,
            surprise,
            supported_tops(question, likelihoods, otherwise, reliability),
            event.hash,
        )
        p.evidence[eid] = state
        count_support(question, state, +1)
        moot = payload.withdraws
        question.track_withdrawals(
            eid,
            moot.id if moot is not None and moot.because == "moot" else None,
            intake.id if intake is not None else None,
            old_id,
        )
        if intake is not None:
            question.record_answer(intake.id, intake.answer, event.seq)
        return {qid}, surprise


#: The least prior the catch-all may be left with: "something not yet named" never reaches 0,
#: or no later hypothesis could be carved out of it and no evidence could make it rise.
MIN_CATCH_ALL_PRIOR = 1e-6


def requirements(given: Sequence[RequirementPayload] | None) -> tuple[Requirement, ...]:
    """A ``hypothesis.proposed`` payload's ``requires`` as the fold holds them."""
    if not given:
        return ()
    return tuple(Requirement(r.intake, tuple(r.answers)) for r in given)


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
