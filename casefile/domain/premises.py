"""An intake answer that rests on another answer stands only while that answer does.

Some answers settle others by what the words mean: a one-GPU job runs on one node, so
``gpu-count = one`` answers ``nodes`` too, and the hypotheses that need several nodes stop
applying. When the person then corrects the premise (``gpu-count = several``), the answer it
implied has lost its reason: kept, it would go on ruling out the inter-node causes on the word
of an answer nobody holds any more. So the implied answer is withdrawn, by evidence that
supersedes it and weighs nothing (every likelihood 1, reliability 0), whose rationale says
what it rested on and what changed; the question is open again, and the hypotheses it had
ruled out apply again. Where the new premise implies another answer, that answer is recorded
instead, as any implied answer is. An answer to a question that an answer given since makes
moot (scaling, once the job is said to run on one GPU) is withdrawn the same way; should the
question apply again (the GPU count corrected back), the person's answer is offered as known
and recorded with the others, since nobody took it back (:func:`moot_withdrawn`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from casefile.domain import commands
from casefile.domain.event_types.evidence import IntakeWithdrawal
from casefile.domain.intake import Known

if TYPE_CHECKING:
    from casefile.domain.beliefs.projection import Projection
    from casefile.domain.events import NewEvent
    from casefile.domain.intake import IntakeQuestion

#: the source an implied answer's evidence records (an answer a person gave has no basis)
IMPLIED = "answered"
#: the source of a known answer that restores a person's answer withdrawn as moot: recorded
#: as the person's own (source "answered", no basis), with the restoring said in its rationale
RESTORED = "restored"


def rests_on_another(intake: Mapping[str, object] | None) -> str | None:
    """What an answer's evidence says it rests on, where another answer implied it (its
    ``basis``, ``gpu-count = one: a one-GPU job runs on one node``); None for an answer a
    person gave, or one the ``--env`` or a reading gave."""
    if intake is None or intake.get("source") != IMPLIED:
        return None
    basis = intake.get("basis")
    return basis if isinstance(basis, str) and basis else None


def withdrawal(
    projection: Projection,
    question: IntakeQuestion,
    evidence_id: str,
    basis: str,
    answers: Mapping[str, str],
) -> NewEvent:
    """Evidence that withdraws the implied answer ``evidence_id`` gave ``question``: it
    supersedes it and weighs nothing. ``answers`` are the answers in force now, to say what
    became of the premise."""
    old = projection.evidence[evidence_id]
    now = [
        f"{spec.intake} is {answers[spec.intake]!r}" if spec.intake in answers else
        f"{spec.intake} is unanswered"
        for spec in question.implied_by
    ]  # fmt: skip
    return withdrawing(
        projection,
        evidence_id,
        f"Intake {question.id}: the answer {old.outcome!r} rested on {basis}, which no longer "
        f"holds ({'; '.join(now)}); withdrawn, so the question is open again and what it ruled "
        "out applies again.",
        IntakeWithdrawal(id=question.id, answer=str(old.outcome), because="premise", reason=basis),
    )


def moot_withdrawal(
    projection: Projection, question: IntakeQuestion, evidence_id: str, reason: str
) -> NewEvent:
    """Evidence that withdraws the answer ``evidence_id`` gave ``question``, a question an
    answer given since makes moot (``reason``: ``gpu-count = one (seq 30)``): scaling means
    nothing for a job on one GPU, yet its likelihoods would go on weighing the causes that
    still apply. It supersedes the answer and weighs nothing; should the question apply again,
    it is open again, with the withdrawn answer offered as known (:func:`moot_withdrawn`)."""
    old = projection.evidence[evidence_id]
    return withdrawing(
        projection,
        evidence_id,
        f"Intake {question.id}: the answer {old.outcome!r} is to a question that does not apply "
        f"now ({reason}); withdrawn, so it weighs on nothing while the question is moot.",
        IntakeWithdrawal(id=question.id, answer=str(old.outcome), because="moot", reason=reason),
    )


def withdrawing(
    projection: Projection, evidence_id: str, why: str, withdraws: IntakeWithdrawal
) -> NewEvent:
    """Evidence that supersedes ``evidence_id`` and weighs nothing (every likelihood 1,
    reliability 0): the one way an answer or a rule's reading is withdrawn, whatever withdraws
    it (:mod:`casefile.domain.reading_scope` for readings). What it withdraws, why and what
    changed are said in the event beside the rationale."""
    old = projection.evidence[evidence_id]
    named = {h: 1.0 for h in old.likelihoods}
    return commands.assess_evidence(
        projection,
        named,
        rationale=f"{why} This evidence weighs nothing.",
        otherwise=1.0,
        kind="reported",
        reliability=0.0,
        supersedes=evidence_id,
        allow_retired=True,
        withdraws=withdraws,
    )


def recorded_as(known: Known | None) -> tuple[str, str, str | None]:
    """How an answer is recorded: its evidence's source, what its rationale says of where it
    came from, and its basis. A restored answer is the person's own again (no basis, so no
    premise withdraws it), and its rationale says why it is back."""
    if known is None:
        return "answered", "answered", None
    if known.source == RESTORED:
        return "answered", f"answered; restored: {known.basis}", None
    return known.source, f"from {known.basis}", known.basis


def moot_withdrawn(projection: Projection, question: IntakeQuestion) -> Known | None:
    """A person's answer to ``question`` that was withdrawn as moot, where nothing has answered
    it or superseded the withdrawal since: offered as known (source :data:`RESTORED`), so that
    the answer comes back once the question applies again. Only a person's own: an answer the
    ``--env`` or a reading gave comes back from there, and an implied one from its premise.
    The fold keeps each question's last such withdrawal
    (:attr:`~casefile.domain.beliefs.question.QuestionState.withdrawn`), so asking costs no
    walk over the case's evidence."""
    state = projection.questions.get(question.rule.question)
    withdrawal = projection.evidence.get(state.withdrawn.get(question.id, "")) if state else None
    if withdrawal is None or not withdrawal.active or withdrawal.supersedes is None:
        return None
    given = projection.evidence.get(withdrawal.supersedes)
    intake = given.payload_field("intake") if given is not None else None
    if (
        given is None
        or not isinstance(intake, dict)
        or intake.get("id") != question.id
        or intake.get("source", IMPLIED) != IMPLIED
        or intake.get("basis")
        or intake.get("answer") not in question.answers
    ):
        return None  # not a person's answer to this question (an event made by hand)
    withdrawn = withdrawal.payload_field("withdraws") or {}
    return Known(
        str(intake["answer"]),
        RESTORED,
        f"the answer recorded at seq {given.seq}, withdrawn at seq {withdrawal.seq} while "
        f"{withdrawn.get('reason', 'another answer')} made the question moot",
    )
