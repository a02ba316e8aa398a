"""Keeping rule readings in step with the answers that let their rules apply.

The domain says when a reading stops counting and when it counts again
(:mod:`casefile.domain.reading_scope`); this module finds the rules behind a case's readings in
its playbooks and drafts those events where the verbs change what the case holds: a reading
taken under an answer that rules its rule out (``apply_rules``), and answers recorded or
withdrawn (``casefile intake``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.reading_scope import Requires, RequiresOf, out_of_scope, rescoped
from casefile.domain.reading_scope import scope_withdrawal as _withdrawal

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.domain.playbook import Playbook
    from casefile.domain.rules import Rule


def requires_of(playbooks: Iterable[Playbook]) -> RequiresOf:
    """The requirements of each probe rule whose reading means nothing outside them
    (``only_where_required``), by its id and version, from the case's playbooks: only the
    version a reading names counts, so a reading of a rule a playbook has since revised is
    left as it is (an A/B's reader is chosen under the answers when it is recorded, and is
    never withdrawn)."""
    held: dict[tuple[str, int], Requires] = {}
    for playbook in playbooks:
        for rule in playbook.rules:
            if rule.only_where_required:
                held[(rule.id, rule.version)] = rule.requires
    return lambda rule_id, version: held.get((rule_id, version))


def required_questions(playbooks: Iterable[Playbook]) -> frozenset[str]:
    """The intake questions on whose answers some reading of the case's playbooks' rules
    stands (``only_where_required``)."""
    return frozenset(
        intake
        for playbook in playbooks
        for rule in playbook.rules
        if rule.only_where_required
        for intake, _ in rule.requires
    )


def withdraw_out_of_scope(draft: Draft, rule: Rule, evidence_id: str) -> str | None:
    """Withdraw the reading ``evidence_id`` just drafted for ``rule`` where the rule reads only
    where its requirements hold and an answer in force rules it out; returns that answer
    (``nodes = single (seq 29)``), or None."""
    if not rule.only_where_required:
        return None
    reason = out_of_scope(draft.projection, rule.question, rule.requires)
    if reason is not None:
        draft.add(_withdrawal(draft.projection, evidence_id, reason, rule.requires))
    return reason


@dataclass(frozen=True)
class Rescoped:
    """A reading withdrawn or restored because the answers changed what its rule applies to."""

    rule: str
    outcome: str
    #: True: withdrawn; False: restored
    withdrawn: bool
    #: the answer that rules the rule out (for a restored reading: the one that had)
    because: str
    evidence_id: str

    @property
    def said(self) -> str:
        """The line the front ends show: ``rule nccl-network's reading 'rdma' withdrawn:
        does not apply now (nodes = single (seq 29))``."""
        how = (
            f"withdrawn: does not apply now ({self.because})"
            if self.withdrawn
            else f"restored ({self.because} no longer holds)"
        )
        return f"rule {self.rule}'s reading {self.outcome!r} {how}"


def rescope(draft: Draft, playbooks: Iterable[Playbook]) -> list[Rescoped]:
    """Draft every withdrawal and restoration the answers in force call for now."""
    done: list[Rescoped] = []
    for event in rescoped(draft.projection, requires_of(playbooks)):
        draft.add(event)
        payload = EvidenceAssessed.of(event.payload)
        if payload.withdraws is not None:
            said = payload.withdraws
            done.append(Rescoped(said.id, said.answer, True, said.reason, payload.evidence_id))
            continue
        withdrawal = draft.projection.evidence[str(payload.supersedes)]
        why = withdrawal.payload_field("withdraws") or {}
        rule = payload.rule.id if payload.rule else ""
        done.append(
            Rescoped(rule, str(payload.outcome), False, str(why.get("reason")), payload.evidence_id)
        )
    return done
