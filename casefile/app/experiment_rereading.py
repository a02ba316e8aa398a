"""Keeping A/B readings in step with the answers, so the order of an answer and an A/B does
not change what the case ends on.

Which rule reads an A/B depends on the case's answers: "CUDA_VISIBLE_DEVICES=0" is fewer GPUs
on a job that uses several and a device chosen on a one-GPU job (a rule an answer in force
rules out does not read), and after an upgrade a slowdown under a version change is read as
the trouble as it happened (``runs_back``). An A/B is read under the answers in force when it
is recorded; an answer given later used to leave that reading as it was, so a case answered
first and the same case answered last ended apart.

So whenever the answers change, each A/B whose reader the playbook chose is read again as it
would be read now. Where that differs (another rule, another outcome, other numbers), evidence
with today's reading supersedes the one in force; where no rule reads it now, evidence that
weighs nothing does (a withdrawal, as for a probe rule's reading); where nothing read it and a
rule does now, it is read. Every such event holds the numbers it applies, so replay needs no
rule. Left as they are: an A/B read by a rule a person named (``--rule``) or by the hypotheses
they named (``--tests``); one recorded with no direction; a retelling and the A/B it retells
(the retelling's evidence stands for both); and one whose reading a person re-assessed by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from casefile.app.experiment_reading import chosen_rule
from casefile.domain import triage
from casefile.domain.event_types.evidence import EvidenceAssessed, IntakeWithdrawal
from casefile.domain.premises import withdrawing
from casefile.domain.reading_scope import SCOPE

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.evidence import EvidenceState
    from casefile.domain.events import NewEvent
    from casefile.domain.experiments import ExperimentRule
    from casefile.domain.playbook import Playbook

#: the prefix of an experiment rule's reference in its evidence (``experiment.fewer-gpus``)
_RULE_PREFIX = "experiment."


@dataclass(frozen=True)
class Reread:
    """An A/B read again because the answers changed which rule reads it, or how."""

    experiment_id: str
    #: the reading in force before (``fewer-gpus 'faster'``), or None where none read it
    before: str | None
    #: the reading now, or None where no rule reads it now
    now: str | None
    #: why: the answer that rules the earlier reader out, or the answers in force
    because: str
    evidence_id: str

    @property
    def said(self) -> str:
        """The line the front ends show: ``A/B x2 read again: visible-devices 'faster', not
        fewer-gpus 'faster' (gpu-count = one (seq 29) rules fewer-gpus out)``."""
        if self.now is None:
            return f"A/B {self.experiment_id}: {self.before} withdrawn ({self.because})"
        if self.before is None:
            return f"A/B {self.experiment_id} now read: {self.now} ({self.because})"
        return (
            f"A/B {self.experiment_id} read again: {self.now}, not {self.before} ({self.because})"
        )


def reread_experiments(draft: Draft, playbooks: Iterable[Playbook]) -> list[Reread]:
    """Draft the evidence that brings each A/B the playbook chose the reader of in step with
    the answers in force now."""
    rules = [rule for playbook in playbooks for rule in playbook.experiments]
    if not rules or not draft.projection.experiments:
        return []
    by_ref = {(f"{_RULE_PREFIX}{r.id}", r.version): r for r in rules}
    firsts = _first_readings(draft.projection)
    recorded = draft.projection.experiments
    retold = {str(r["restates"]) for r in recorded.values() if r.get("restates")}
    done: list[Reread] = []
    for experiment_id, record in list(recorded.items()):
        if experiment_id in retold or not _chosen(record):
            continue
        head = _in_force(draft.projection, experiment_id, firsts.get(experiment_id))
        if head is True:
            continue  # a person re-assessed it, or a retelling stands for it
        held = _reader(head, by_ref)
        if head is not None and held is None and not _withdrawn_here(head):
            continue  # read by a rule the playbook no longer holds, or named before it was kept
        if held is not None and not held.matches(str(record["change"])):
            continue  # a rule whose words do not read the change was named for it
        projection = draft.projection
        rule = chosen_rule(rules, projection, str(record["change"]), record.get("probe"))
        wanted = None if rule is None else triage.evidence_from_experiment(projection, rule, record)
        event = _bring_in_step(draft.projection, head, wanted, held, rule)
        if event is None:
            continue
        draft.add(event)
        done.append(_said(draft.projection, experiment_id, head, event, held, rule))
    return done


def _chosen(record: Mapping[str, Any]) -> bool:
    """Whether the playbook chose the A/B's reader and has something to read: not named by a
    person (a rule or the hypotheses it tests), not a retelling, with a direction or a word."""
    if record.get("named_rule") or record.get("tests") or record.get("restates"):
        return False
    return record.get("speedup") is not None or record.get("stated") is not None


def _first_readings(projection: Projection) -> dict[str, EvidenceState]:
    """Each A/B's first reading, in one pass over the evidence."""
    firsts: dict[str, EvidenceState] = {}
    for evidence in projection.evidence.values():
        eid = evidence.experiment_id
        if eid is not None and eid not in firsts:
            firsts[eid] = evidence
    return firsts


def _in_force(
    projection: Projection, experiment_id: str, first: EvidenceState | None
) -> EvidenceState | Literal[True] | None:
    """The A/B's evidence in force at the end of its chain of readings and withdrawals (None:
    never read); True where something else superseded it (a person, a retelling)."""
    node = first
    while node is not None and node.superseded_by is not None:
        newer = projection.evidence[node.superseded_by]
        if newer.experiment_id != experiment_id and not _withdrawn_here(newer):
            return True
        node = newer
    return node


def _withdrawn_here(evidence: EvidenceState) -> bool:
    """Whether ``evidence`` is a withdrawal this module made (a scope withdrawal of an A/B
    reading: it keeps no requirements, so reading_scope never restores it)."""
    said = evidence.payload_field("withdraws")
    if not isinstance(said, dict) or said.get("because") != SCOPE or said.get("requires"):
        return False
    return str(said.get("id", "")).startswith(_RULE_PREFIX)


def _reader(
    head: EvidenceState | None, by_ref: Mapping[tuple[str, int], ExperimentRule]
) -> ExperimentRule | None:
    rule = None if head is None else head.rule
    if not rule:
        return None
    return by_ref.get((str(rule.get("id")), int(rule.get("version", 0))))


def _bring_in_step(
    projection: Projection,
    head: EvidenceState | None,
    wanted: NewEvent | None,
    held: ExperimentRule | None,
    rule: ExperimentRule | None,
) -> NewEvent | None:
    """The event that makes the A/B's evidence in force what it would be now, or None where
    it already is."""
    reading = head is not None and not _withdrawn_here(head)
    if wanted is None:
        if not reading or head is None:
            return None
        because = _ruled_out(projection, held) or "no rule of the playbook reads it now"
        return withdrawing(
            projection,
            head.id,
            f"Rule {held.id if held else head.rule}'s reading of A/B {head.experiment_id} "
            f"({head.outcome!r}, evidence {head.id}) no longer holds: {because}, and no other "
            "rule reads the change under the answers in force.",
            IntakeWithdrawal(
                id=str((head.rule or {}).get("id", "experiment")),
                answer=str(head.outcome),
                because=SCOPE,
                reason=because,
            ),
        )
    payload = wanted.payload
    if reading and head is not None and _same(head, payload):
        return None
    if head is None:
        return wanted
    why = _why(projection, held, rule)
    return replace(
        wanted,
        payload={
            **payload,
            "supersedes": head.id,
            "rationale": f"Read again under the answers in force ({why}). {payload['rationale']}",
        },
    )


def _same(head: EvidenceState, payload: Mapping[str, Any]) -> bool:
    """Whether the evidence in force already applies what reading it now would."""
    return (
        head.rule == payload.get("rule")
        and head.outcome == payload.get("outcome")
        and head.likelihoods == payload.get("likelihoods")
        and head.otherwise == payload.get("otherwise")
        and head.reliability == payload.get("reliability")
    )


def _ruled_out(projection: Projection, rule: ExperimentRule | None) -> str | None:
    """The answer in force that rules ``rule`` out, as ``gpu-count = one (seq 29)``."""
    if rule is None or not rule.rule.requires:
        return None
    question = projection.questions.get(rule.rule.question)
    return None if question is None else question.contradiction(rule.rule.requires)


def _why(projection: Projection, held: ExperimentRule | None, rule: ExperimentRule | None) -> str:
    if held is not None and rule is not None and held.id != rule.id:
        out = _ruled_out(projection, held)
        if out is not None:
            return f"{out} rules {held.id} out"
        return f"{rule.id} applies again and comes before {held.id}"
    return "the answers the reading depends on changed"


def _said(
    projection: Projection,
    experiment_id: str,
    head: EvidenceState | None,
    event: NewEvent,
    held: ExperimentRule | None,
    rule: ExperimentRule | None,
) -> Reread:
    added = EvidenceAssessed.of(event.payload)
    before = None
    if head is not None and not _withdrawn_here(head) and head.rule:
        before = f"{str(head.rule.get('id')).removeprefix(_RULE_PREFIX)} {head.outcome!r}"
    if added.withdraws is not None:
        return Reread(experiment_id, before, None, added.withdraws.reason, added.evidence_id)
    now = f"{rule.id if rule else '?'} {added.outcome!r}"
    because = _why(projection, held, rule) if before is not None else "a rule reads it now"
    return Reread(experiment_id, before, now, because, added.evidence_id)
