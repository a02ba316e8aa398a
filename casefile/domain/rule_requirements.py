"""Whether a rule may read a run at all, given what the case states: a rule's ``requires``
names the intake answers it speaks to (a job on several nodes), and a reading where an answer
in force contradicts them is recorded as set aside rather than weighed."""

from __future__ import annotations

from casefile.domain.beliefs.projection import Projection
from casefile.domain.rules import Applied, SetAside


def within_requirements(projection: Projection, verdict: Applied) -> Applied | SetAside:
    """A rule's reading, set aside where an answer in force contradicts what the rule needs:
    the network NCCL would use between nodes says nothing of a job on one node, a collective
    kernel share nothing of one GPU, yet its likelihoods for the causes that still apply would
    move them as if it did. Read when it is recorded: an answer changed later leaves the record
    as it was (record the run again to have it read)."""
    rule = verdict.rule
    question = projection.questions.get(rule.question)
    reason = None if question is None else question.contradiction(rule.requires)
    if reason is None:
        return verdict
    needs = " and ".join(f"{intake} = {' or '.join(answers)}" for intake, answers in rule.requires)
    return SetAside(rule, f"the case answers {reason}; rule {rule.id} reads only jobs with {needs}")
