"""Commands: check a request against the case's current state and produce the event to append.

Each function takes the current :class:`Projection` and returns the :class:`NewEvent`(s) that
record what happened, or raises :class:`~casefile.errors.DomainError` with a message that names
the problem and what exists instead. The application service appends what these return.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

from casefile.domain.beliefs.projection import MIN_CATCH_ALL_PRIOR, Projection
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.event_types import new_event
from casefile.domain.event_types.case import CaseOpened
from casefile.domain.event_types.evidence import (
    EvidenceAssessed,
    EvidenceKind,
    IntakeRef,
    IntakeWithdrawal,
    ReadingSetAside,
    RuleRef,
)
from casefile.domain.event_types.hypothesis import (
    HypothesisProposed,
    HypothesisRefined,
    HypothesisReinstated,
    HypothesisRetired,
    PriorsRebalanced,
    QuestionProposed,
    Requirement,
)
from casefile.domain.events import NewEvent
from casefile.domain.ids import CASE_ID_LIMIT, ID_PATTERN, is_case_id
from casefile.domain.kinds import DEFAULT_RELIABILITY, KINDS, reported_reliability
from casefile.domain.rules import Applied, SetAside
from casefile.domain.witnesses import ALONE, Corroborated
from casefile.errors import DomainError, Remedy, did_you_mean

#: a prior that does not fit can still be given: the others make room in proportion
REBALANCE = Remedy("scales the other hypotheses down in proportion to make room", "rebalance")

_PRIOR_SLACK = 1e-9


def _check_id(value: str, what: str) -> str:
    if not ID_PATTERN.fullmatch(value) or "/" in value:
        raise DomainError(f"{what} id {value!r}: use letters, digits, '-', '_', '.' or ':'")
    return value


def check_case_id(value: str) -> str:
    """Case ids end up in file names, DOT graphs and one-line listings: keep them plain."""
    if not is_case_id(value):
        raise DomainError(
            f"case id {value!r}: use up to {CASE_ID_LIMIT} letters, digits, '-', '_', '.' or ':'"
        )
    return value


def _next_id(
    prefix: str, taken: set[str] | Mapping[str, Any], projection: Projection | None = None
) -> str:
    """The first of ``prefix``1, 2, … not taken. Ids are never given back, so the first free
    one only moves up: a projection remembers where it was last found, and each new id costs
    a step or two instead of a walk over every id so far (ingest adds thousands)."""
    hints: dict[str, int] = (
        projection.indexes.setdefault("next-ids", {}) if projection is not None else {}
    )
    n = hints.get(prefix, 1)
    while f"{prefix}{n}" in taken:
        n += 1
    hints[prefix] = n
    return f"{prefix}{n}"


def _known_hypotheses(projection: Projection) -> str:
    ids = sorted(projection.hypothesis_question)
    return ", ".join(ids[:12]) + (" …" if len(ids) > 12 else "") if ids else "none yet"


def open_case(title: str, symptom: str | None = None, **environment: str) -> NewEvent:
    if not title.strip():
        raise DomainError("a case needs a title")
    return new_event(
        CaseOpened, title=title.strip(), symptom=symptom or None, environment=environment
    )


def propose_question(
    projection: Projection,
    text: str,
    question_id: str | None = None,
    catch_all: float = 0.1,
    playbook: str | None = None,
) -> NewEvent:
    taken = {*projection.questions, *projection.hypothesis_question}
    qid = _check_id(question_id, "question") if question_id else _next_id("q", taken)
    if qid in projection.questions:
        raise DomainError(f"question {qid!r} already exists")
    if qid in projection.hypothesis_question:
        # One namespace: ``under`` accepts a question or a hypothesis id, so a question named
        # like a hypothesis would hide that hypothesis as a parent.
        raise DomainError(f"id {qid!r} is already taken by a hypothesis")
    if not 0.0 < catch_all < 1.0:
        raise DomainError(f"catch-all prior {catch_all} must be within (0, 1)")
    return new_event(
        QuestionProposed,
        question_id=qid,
        text=text,
        catch_all=catch_all,
        playbook=playbook or None,
    )


def propose_hypothesis(
    projection: Projection,
    text: str,
    under: str,
    prior: float,
    hypothesis_id: str | None = None,
    meaning: str | None = None,
    requires: Sequence[tuple[str, Sequence[str]]] = (),
) -> NewEvent:
    """Propose a hypothesis under a question (absolute prior) or a hypothesis (a share).

    ``requires`` lists (intake question, answers under which it can hold): a playbook's
    structure, recorded in the event so the case never needs the playbook to replay.

    A top-level prior comes out of the catch-all. Until the question has evidence, the
    catch-all keeps its reserve (the ``catch_all`` it was proposed with); afterwards a newly
    named hypothesis may take anything the catch-all still holds, which is how "something not
    yet named" gets a name.
    """
    if not 0.0 < prior <= 1.0:
        raise DomainError(f"prior {prior} must be within (0, 1]")
    hid = (
        _check_id(hypothesis_id, "hypothesis")
        if hypothesis_id
        else _next_id("h", projection.hypothesis_question, projection)
    )
    if hid in projection.hypothesis_question or hid in projection.questions:
        raise DomainError(f"id {hid!r} is already taken")
    if under in projection.questions:
        question = projection.questions[under]
        parent = None
        holds = question.catch_all_prior()
        reserve = question.catch_all_reserve if question.evidence_count == 0 else 0.0
        available = holds - reserve
        if prior > available + _PRIOR_SLACK or holds - prior < MIN_CATCH_ALL_PRIOR:
            left = available if available > _PRIOR_SLACK else 0.0
            raise DomainError(
                f"prior {prior:g} is larger than the catch-all of {question.id!r} has left "
                f"({left:.4g} of its {holds:.4g})",
                remedy=REBALANCE,
            )
    elif under in projection.hypothesis_question:
        question = projection.questions[projection.hypothesis_question[under]]
        if not question.is_active(under):
            raise DomainError(f"hypothesis {under!r} is retired; reinstate it first")
        parent = under
        left = 1.0 - question.children_share(under)
        if prior > left + _PRIOR_SLACK:
            raise DomainError(
                f"share {prior:g} is more than {under!r} has left for children ({left:.4g})"
            )
    else:
        raise DomainError(
            f"no question or hypothesis {under!r} (questions: "
            f"{', '.join(sorted(projection.questions)) or 'none yet'}; hypotheses: "
            f"{_known_hypotheses(projection)})"
        )
    # built unchecked: the store's validation names a refused answer list, as it always did
    needs = [Requirement.model_construct(intake=i, answers=list(a)) for i, a in requires]
    return new_event(
        HypothesisProposed,
        hypothesis_id=hid,
        question_id=question.id,
        parent_id=parent,
        text=text,
        prior=prior,
        meaning=meaning or None,
        requires=needs or None,
    )


def _existing(projection: Projection, hid: str) -> None:
    if hid not in projection.hypothesis_question:
        hint = did_you_mean(hid, projection.hypothesis_question)
        raise DomainError(f"no hypothesis {hid!r}{hint} (known: {_known_hypotheses(projection)})")


def refine_hypothesis(
    projection: Projection, hid: str, text: str, reason: str | None = None
) -> NewEvent:
    _existing(projection, hid)
    return new_event(HypothesisRefined, hypothesis_id=hid, text=text, reason=reason or None)


def retire_hypothesis(projection: Projection, hid: str, reason: str) -> NewEvent:
    _existing(projection, hid)
    question = projection.questions[projection.hypothesis_question[hid]]
    if question.nodes[hid].retired:
        raise DomainError(f"hypothesis {hid!r} is already retired")
    if not reason.strip():
        raise DomainError("retiring a hypothesis needs a reason")
    return new_event(HypothesisRetired, hypothesis_id=hid, reason=reason)


def reinstate_hypothesis(projection: Projection, hid: str, reason: str | None = None) -> NewEvent:
    _existing(projection, hid)
    question = projection.questions[projection.hypothesis_question[hid]]
    if not question.nodes[hid].retired:
        raise DomainError(f"hypothesis {hid!r} is not retired")
    return new_event(HypothesisReinstated, hypothesis_id=hid, reason=reason or None)


def assess_evidence(
    projection: Projection,
    likelihoods: Mapping[str, float],
    rationale: str,
    otherwise: float = 0.5,
    kind: str = "measured",
    reliability: float | None = None,
    probe_run_seq: int | None = None,
    observation_seq: int | None = None,
    supersedes: str | None = None,
    evidence_id: str | None = None,
    rule: RuleRef | None = None,
    outcome: str | None = None,
    statistic: float | str | None = None,
    allow_retired: bool = False,
    intake: IntakeRef | None = None,
    experiment_id: str | None = None,
    withdraws: IntakeWithdrawal | None = None,
) -> NewEvent:
    """Evidence from a person (or, with ``allow_retired``, from a rule: see evidence_from_rule);
    ``intake`` or ``experiment_id`` name the intake answer or the experiment it reads, and
    ``withdraws`` the intake answer it withdraws (:mod:`casefile.domain.premises`)."""
    if kind not in DEFAULT_RELIABILITY:
        raise DomainError(f"evidence kind {kind!r}: use one of {', '.join(KINDS)}")
    if not likelihoods:
        raise DomainError("evidence must give P(E|h) for at least one hypothesis")
    for name, value in [*likelihoods.items(), ("otherwise", otherwise)]:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0.0 < value <= 1.0
        ):
            raise DomainError(f"likelihood for {name!r} is {value!r}: it must be within (0, 1]")
    questions = set()
    for hid in likelihoods:
        _existing(projection, hid)
        question = projection.questions[projection.hypothesis_question[hid]]
        if not allow_retired and not question.is_active(hid):
            raise DomainError(f"hypothesis {hid!r} is retired; evidence cannot bear on it")
        questions.add(question.id)
    if len(questions) != 1:
        raise DomainError(
            f"one piece of evidence bears on one question; these span {sorted(questions)}"
        )
    qid = questions.pop()
    r = DEFAULT_RELIABILITY[kind] if reliability is None else reliability
    if not 0.0 <= r <= 1.0:
        raise DomainError(f"reliability {r} must be within [0, 1]")
    if not rationale.strip():
        raise DomainError("evidence needs a rationale", remedy=Remedy("gives it", "because"))
    if probe_run_seq is not None and probe_run_seq not in projection.probe_runs:
        raise DomainError(f"seq {probe_run_seq} is not a probe run of this case")
    if observation_seq is not None and observation_seq not in projection.observations:
        raise DomainError(f"seq {observation_seq} is not an observation of this case")
    if supersedes is not None:
        old = projection.evidence.get(supersedes)
        if old is None:
            # the latest, in the order recorded: on a long case the ones a person means
            active = [e for e, item in projection.evidence.items() if item.active]
            shown = ("… " if len(active) > 12 else "") + ", ".join(active[-12:])
            raise DomainError(
                f"no evidence {supersedes!r} to supersede (active: {shown or 'none'})"
            )
        if not old.active:
            raise DomainError(
                f"evidence {supersedes!r} was already superseded by {old.superseded_by}"
            )
        if old.question_id != qid:
            raise DomainError(f"evidence {supersedes!r} bears on another question")
    eid = (
        _check_id(evidence_id, "evidence")
        if evidence_id
        else _next_id("e", projection.evidence, projection)
    )
    if eid in projection.evidence:
        raise DomainError(f"evidence {eid!r} already exists")
    return new_event(
        EvidenceAssessed,
        evidence_id=eid,
        question_id=qid,
        likelihoods={h: float(v) for h, v in likelihoods.items()},
        otherwise=float(otherwise),
        kind=cast(EvidenceKind, kind),
        reliability=float(r),
        rationale=rationale,
        probe_run_seq=probe_run_seq,
        observation_seq=observation_seq,
        supersedes=supersedes,
        rule=rule,
        outcome=outcome,
        statistic=statistic,
        intake=intake,
        experiment_id=experiment_id,
        withdraws=withdraws,
    )


def evidence_from_rule(
    projection: Projection,
    verdict: Applied,
    observation_seq: int,
    probe_run_seq: int | None,
    evidence_id: str | None = None,
    *,
    fresh: bool = False,
    reported: bool = False,
    corroborates: Corroborated = ALONE,
) -> NewEvent:
    """Evidence a rule derives from an observation; supersedes the same rule's earlier verdict
    on the same observation, so re-applying a rule never counts a reading twice. ``fresh``:
    the observation was recorded in this very append, so nothing can have read it before (and
    the evidence held need not be scanned, which on a long case is most of a run's cost).
    ``reported``: a person stated the reading (nothing ran), so it counts as reported, as far
    as a person's stated figures are trusted (``kinds.reported_reliability``).
    ``corroborates``: the readings of the same state of the machine already in force, which
    this one joins as one witness (:mod:`casefile.domain.witnesses`)."""
    rule = verdict.rule
    previous = None
    for state in () if fresh else projection.evidence.values():
        if (
            state.active
            and state.observation_seq == observation_seq
            and state.rule is not None
            and state.rule.get("id") == rule.id
        ):
            previous = state.id
    # Retired hypotheses keep their row: a measurement says what it says about them, and if one
    # is reinstated it must stand exactly where it would have without the retirement.
    named = {
        h: v
        for h, v in verdict.likelihoods.items()
        if projection.hypothesis_question.get(h) == rule.question
    }
    if not named:
        raise DomainError(f"rule {rule.id}: none of the hypotheses it names are in this case")
    return assess_evidence(
        projection,
        named,
        allow_retired=True,
        rationale=(
            f"{rule.title}: outcome {verdict.outcome!r}. {rule.rationale}" + corroborates.note()
        ),
        otherwise=verdict.otherwise,
        kind="reported" if reported else "measured",
        reliability=corroborates.share
        * (reported_reliability(rule.reliability, figures=True) if reported else rule.reliability),
        probe_run_seq=probe_run_seq,
        observation_seq=observation_seq,
        supersedes=previous,
        evidence_id=evidence_id,
        rule=RuleRef(id=rule.id, version=rule.version),
        outcome=verdict.outcome,
        statistic=verdict.statistic,
    )


def set_aside(verdict: SetAside, observation_seq: int) -> NewEvent:
    rule = verdict.rule
    return new_event(
        ReadingSetAside,
        observation_seq=observation_seq,
        rule=RuleRef(id=rule.id, version=rule.version),
        reason=verdict.reason,
    )


# --- rebalancing priors ----------------------------------------------------------------------


def _siblings(question: QuestionState, parent: str | None) -> list[str]:
    return list(question.top if parent is None else question.nodes[parent].children)


def _refuse_after_evidence(question: QuestionState, force: bool) -> None:
    """Priors say what was believed before any evidence: set after it, they would be chosen
    knowing how the evidence came out, and that evidence would count twice."""
    if question.evidence_count and not force:
        n = question.evidence_count
        raise DomainError(
            f"question {question.id!r} already has {n} piece{'s' if n != 1 else ''} of "
            "evidence: priors say what was believed before any, and changing them now would "
            "count that evidence twice",
            remedy=Remedy("changes them anyway (the event records that it was forced)", "force"),
        )


def make_room(
    question: QuestionState, parent: str | None, prior: float, keep: str | None = None
) -> dict[str, float]:
    """The new priors of ``parent``'s other children (the question's top-level hypotheses when
    ``parent`` is None) so that one more (or ``keep``, at a new value) with ``prior`` fits.

    The room comes first from what is free — what the catch-all holds beyond its reserve (at
    least :data:`MIN_CATCH_ALL_PRIOR` once there is evidence), or a parent's own remainder —
    and only the rest from the others, scaled in proportion to their priors, so their ratios
    stay as they were. Empty when it already fits. Raises :class:`DomainError` when the
    others together hold too little.
    """
    others = [h for h in _siblings(question, parent) if h != keep]
    held = math.fsum(question.nodes[h].prior for h in others)
    if parent is None:
        reserve = question.catch_all_reserve if question.evidence_count == 0 else 0.0
        # twice the least, so that rounding can never leave the catch-all under it
        free = 1.0 - held - max(reserve, 2 * MIN_CATCH_ALL_PRIOR)
    else:
        free = 1.0 - held
    need = prior - free
    if need <= _PRIOR_SLACK:
        return {}
    if need >= held:
        whose = "the other hypotheses" if parent is None else f"the other children of {parent!r}"
        raise DomainError(
            f"prior {prior:g} cannot fit: {whose} hold {held:.4g} together, and "
            f"{max(0.0, free):.4g} is free"
        )
    factor = (held - need) / held
    return {h: question.nodes[h].prior * factor for h in others}


def rebalance_priors(
    projection: Projection,
    question_id: str,
    priors: Mapping[str, float],
    reason: str | None = None,
    force: bool = False,
) -> NewEvent:
    """The event that gives hypotheses of one question new priors (see :func:`make_room`)."""
    question = projection.questions[question_id]
    _refuse_after_evidence(question, force)
    return new_event(
        PriorsRebalanced,
        question_id=question_id,
        priors=dict(priors),
        reason=reason or None,
        forced=bool(force and question.evidence_count),
    )


def set_prior(
    projection: Projection,
    hid: str,
    prior: float,
    reason: str | None = None,
    force: bool = False,
) -> NewEvent:
    """Set one hypothesis's prior (absolute at the top, a share of its parent's below it).

    A smaller prior gives the difference back to the catch-all (or the parent's own
    remainder); a larger one takes what is free first and the rest from its siblings in
    proportion, all in one ``priors.rebalanced`` event.
    """
    _existing(projection, hid)
    if not 0.0 < prior <= 1.0:
        raise DomainError(f"prior {prior} must be within (0, 1]")
    question = projection.questions[projection.hypothesis_question[hid]]
    _refuse_after_evidence(question, force)
    node = question.nodes[hid]
    priors = {hid: float(prior), **make_room(question, node.parent_id, prior, keep=hid)}
    return rebalance_priors(projection, question.id, priors, reason, force)


def room_for_hypothesis(
    projection: Projection, under: str, prior: float, force: bool = False
) -> NewEvent | None:
    """The ``priors.rebalanced`` event that makes room under ``under`` for a new hypothesis
    with ``prior`` (None when it fits as things are); refused after evidence unless forced."""
    if not 0.0 < prior <= 1.0:
        raise DomainError(f"prior {prior} must be within (0, 1]")
    if under in projection.questions:
        question, parent = projection.questions[under], None
    elif under in projection.hypothesis_question:
        question, parent = projection.questions[projection.hypothesis_question[under]], under
    else:
        return None  # propose_hypothesis names what exists instead
    room = make_room(question, parent, prior)
    if not room:
        return None
    return rebalance_priors(projection, question.id, room, "room for a new hypothesis", force)
