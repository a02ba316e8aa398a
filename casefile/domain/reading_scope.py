"""A rule's reading weighs only while the case's answers let the rule apply at all.

A rule may need the case to be of one kind (``requires``): ``nccl-network`` reads the network
NCCL uses between nodes, which says nothing about a job on one node; ``topology-p2p-path`` the
paths between GPUs a one-GPU job does not use. Such a rule is not suggested once an answer in force
contradicts it, but a run pasted anyway is still read (NCCL names the network it set up on a
one-node job too), and before this module its reading went on weighing the causes that do
apply, on the word of a rule that has nothing to say there.

So a reading whose rule the answers in force contradict is withdrawn, the way an intake answer
that a later answer makes moot is (:mod:`casefile.domain.premises`): by evidence that supersedes
it and weighs nothing, and says which answer rules the rule out. That happens when the reading
is taken under such an answer (the reading is recorded, then withdrawn, so the log keeps what
it said) and when such an answer comes later. Should the answers change so the rule applies
again (the node count corrected), the reading is restored: evidence carrying the reading's own
numbers supersedes the withdrawal. Both are events holding the numbers they apply, so replay
needs no rule, and a case replays to the same confidences whatever the playbook says today.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from typing import TYPE_CHECKING

from casefile.domain import commands
from casefile.domain.event_types.evidence import IntakeWithdrawal, RuleRef, WithdrawnBecause
from casefile.domain.event_types.hypothesis import Requirement
from casefile.domain.premises import withdrawing

if TYPE_CHECKING:
    from casefile.domain.beliefs.evidence import EvidenceState
    from casefile.domain.beliefs.projection import Projection
    from casefile.domain.events import NewEvent

#: what a withdrawal of a reading gives as its cause (see :class:`IntakeWithdrawal`)
SCOPE: WithdrawnBecause = "scope"
#: a rule's requirements: (intake question id, the answers it allows)
Requires = Collection[tuple[str, Collection[str]]]
#: a rule's requirements by its reference (``rule`` of its evidence), ``None`` where the case's
#: playbooks do not hold that rule at that version (its evidence is then left as it is)
RequiresOf = Callable[[str, int], "Requires | None"]


def out_of_scope(projection: Projection, question_id: str, requires: Requires) -> str | None:
    """The answer in force that rules a rule out (``nodes = single (seq 29)``), or None."""
    question = projection.questions.get(question_id)
    return None if question is None or not requires else question.contradiction(requires)


def scope_withdrawal(
    projection: Projection, evidence_id: str, reason: str, requires: Requires
) -> NewEvent:
    """Evidence that withdraws the rule reading ``evidence_id`` while ``reason`` (the answer
    in force that rules its rule out) holds: it supersedes the reading and weighs nothing, and
    keeps what the rule needs (``requires``), so that the reading comes back when no answer
    rules that out, whatever the playbook says by then."""
    old = projection.evidence[evidence_id]
    rule = old.rule or {}
    return withdrawing(
        projection,
        evidence_id,
        f"Rule {rule.get('id')}'s reading {old.outcome!r} (evidence {evidence_id}) speaks to a "
        f"case of another kind: {reason} rules the rule out. Withdrawn, so it weighs on nothing "
        "while that answer holds.",
        IntakeWithdrawal(
            id=str(rule.get("id")),
            answer=str(old.outcome),
            because=SCOPE,
            reason=reason,
            requires=[Requirement(intake=q, answers=list(a)) for q, a in requires],
        ),
    )


def restoration(projection: Projection, withdrawal_id: str) -> NewEvent | None:
    """Evidence that restores the reading a scope withdrawal withdrew, with the reading's own
    numbers, superseding the withdrawal; None where the withdrawn evidence is not a rule's
    reading (an event made by hand)."""
    withdrawal = projection.evidence[withdrawal_id]
    reading = projection.evidence.get(withdrawal.supersedes or "")
    rule = reading.rule if reading is not None else None
    if reading is None or not rule:
        return None
    said = withdrawal.payload_field("withdraws") or {}
    first = _first_telling(projection, reading)
    return commands.assess_evidence(
        projection,
        dict(reading.likelihoods),
        rationale=(
            f"Restored: the reading of evidence {first.id}, withdrawn at seq {withdrawal.seq} "
            f"while {said.get('reason', 'an answer')} ruled its rule out, which no answer in "
            f"force does now. {first.rationale}"
        ),
        otherwise=reading.otherwise,
        kind=reading.kind,
        reliability=reading.reliability,
        probe_run_seq=reading.probe_run_seq,
        observation_seq=reading.observation_seq,
        supersedes=withdrawal_id,
        rule=RuleRef(id=str(rule["id"]), version=int(rule["version"])),
        outcome=reading.outcome,
        statistic=reading.statistic,
        allow_retired=True,
        experiment_id=reading.experiment_id,
    )


def _first_telling(projection: Projection, reading: EvidenceState) -> EvidenceState:
    """The reading as first recorded: a restored reading supersedes a scope withdrawal, which
    supersedes the reading before it (so a reading withdrawn and restored many times is
    named, and its rationale said, once)."""
    seen = {reading.id}
    while True:
        withdrawal = projection.evidence.get(reading.supersedes or "")
        said = withdrawal.payload_field("withdraws") if withdrawal is not None else None
        if withdrawal is None or not isinstance(said, dict) or said.get("because") != SCOPE:
            return reading
        earlier = projection.evidence.get(withdrawal.supersedes or "")
        if earlier is None or earlier.id in seen:
            return reading
        seen.add(earlier.id)
        reading = earlier


def _stored_requires(withdrawn: dict[str, object]) -> Requires | None:
    """What a scope withdrawal says the reading's rule needs; None where it says nothing."""
    stored = withdrawn.get("requires")
    if not isinstance(stored, list) or not stored:
        return None
    return [
        (str(need["intake"]), tuple(str(a) for a in need["answers"]))
        for need in stored
        if isinstance(need, dict) and "intake" in need and isinstance(need.get("answers"), list)
    ]


def rescoped(projection: Projection, requires_of: RequiresOf) -> Iterator[NewEvent]:
    """The withdrawals and restorations the answers in force call for now: each active rule
    reading whose rule they rule out is withdrawn, and each reading withdrawn so whose rule
    they no longer rule out is restored. Yields the events one at a time; the caller folds
    each before asking for the next (each supersedes evidence the next must see as gone)."""
    for evidence in _active(projection):
        withdrawn = evidence.payload_field("withdraws")
        if isinstance(withdrawn, dict):
            if withdrawn.get("because") != SCOPE:
                continue
            requires = _stored_requires(withdrawn)
            if requires is not None and not out_of_scope(
                projection, evidence.question_id, requires
            ):
                restored = restoration(projection, evidence.id)
                if restored is not None:
                    yield restored
            continue
        requires = _requires(projection, evidence, requires_of)
        reason = out_of_scope(projection, evidence.question_id, requires) if requires else None
        if reason is not None and requires:
            yield scope_withdrawal(projection, evidence.id, reason, requires)


def _active(projection: Projection) -> Iterable[EvidenceState]:
    """The active evidence, as a list: folding a withdrawal changes what is active."""
    return [e for e in projection.evidence.values() if e.active]


def _requires(
    projection: Projection, evidence: EvidenceState, requires_of: RequiresOf
) -> Requires | None:
    """The requirements of the rule behind a reading; None for evidence no rule gave, an
    intake answer (withdrawn by :mod:`casefile.domain.premises`), or a rule not held. A
    reading restored from a scope withdrawal keeps the requirements that withdrawal kept,
    whatever the playbook holds now (it was withdrawn by them, and is again)."""
    rule = evidence.rule
    if not rule or evidence.payload_field("intake") is not None:
        return None
    held = requires_of(str(rule.get("id")), int(rule.get("version", 0)))
    if held is not None:
        return held
    withdrawal = projection.evidence.get(evidence.supersedes or "")
    said = withdrawal.payload_field("withdraws") if withdrawal is not None else None
    if isinstance(said, dict) and said.get("because") == SCOPE:
        return _stored_requires(said)
    return None
