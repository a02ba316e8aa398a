"""What the rules of a case's playbooks make of one run's facts: evidence, set-aside records,
and what a rule that could not read the run still needs.

Each rule reads only a question opened from its own playbook version; a reading taken under
the wrong conditions is set aside visibly, and one taken under an answer that rules its rule
out is recorded and withdrawn (:mod:`casefile.domain.reading_scope`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from casefile.app.rescoping import withdraw_out_of_scope
from casefile.domain import commands, triage
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.fabric import still_needed
from casefile.domain.facts import Fact
from casefile.domain.host_link import link_needed
from casefile.domain.rules import Applied, Rule, SetAside, can_read, contradicted, evaluate
from casefile.domain.stated import still_needs
from casefile.domain.witnesses import corroborated
from casefile.errors import DomainError

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.domain.beliefs import Projection
    from casefile.domain.expected import CaseContext
    from casefile.domain.playbook import Playbook


@dataclass
class Verdicts:
    """What the rules made of one run: the evidence ids; the rules that set it aside; what
    each rule that could not read it still needed (for a statement, the facts it lacked:
    ``power-headroom also needs power.limit``; for a run, what the case must state:
    ``rdma-rate also needs the ports' rate …``); and the readings withdrawn at once because
    an answer in force rules their rule out (``nccl-network (does not apply: nodes = single
    (seq 29))``)."""

    evidence_ids: list[str] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)
    wanting: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)


def opened_from(projection: Projection, question_id: str, playbook_ref: str) -> bool:
    """Whether the case's question was opened from that playbook version (``ID@VERSION``).

    A case keeps the version it was opened from: installing a newer playbook never changes
    which rules read its runs. A question that names a playbook without a version (written by
    hand) takes any version's rules."""
    question = projection.questions.get(question_id)
    if question is None or question.playbook is None:
        return False
    if "@" not in question.playbook:
        return question.playbook == playbook_ref.split("@", 1)[0]
    return question.playbook == playbook_ref


def case_needs(
    projection: Projection,
    playbook: Playbook,
    rule: Rule,
    facts: Sequence[Fact],
    stated: Callable[[], CaseContext],
    statement: Sequence[Fact] = (),
) -> list[str]:
    """What a rule worth suggesting here still needs to read a run it could not: for a
    ``statement``, first the facts it lacked (:func:`casefile.domain.stated.still_needs`);
    then what the case must state (an RDMA run's port rate:
    :func:`casefile.domain.fabric.still_needed`; a copy test's GPU:
    :func:`casefile.domain.host_link.link_needed`). Nothing for a rule whose requirements the
    case contradicts (a job on one node asks no port rate)."""
    if contradicted(rule.requires, triage.answers_in_force(projection, rule.question)):
        return []
    lacking = still_needs(rule, statement, facts) if statement else []
    if lacking:
        return lacking
    reads = rule.statistic.facts
    needs = still_needed(reads, facts, stated) or link_needed(
        playbook.host_links, reads, facts, stated
    )
    return [] if needs is None else [f"{rule.id} also needs {needs}"]


def apply_rules(
    draft: Draft,
    rules: Sequence[tuple[Playbook, Rule]],
    facts: Sequence[Fact],
    load: str,
    obs_seq: int,
    run_seq: int,
    *,
    reported: bool = False,
) -> Verdicts:
    """Apply each rule to a question opened from its own playbook (never to a question that
    merely shares its id); ``reported``: the facts were stated by a person, so the evidence
    counts as reported, as far as a person's stated figures are trusted. A rule an answer in
    force rules out still reads the run, and its reading is withdrawn at once
    (:mod:`casefile.domain.reading_scope`): the log keeps what it said, and it comes back
    should that answer change."""
    verdicts = Verdicts()
    evidence_ids, set_aside, wanting = verdicts.evidence_ids, verdicts.set_aside, verdicts.wanting
    context: dict[str, list[Fact]] = {}
    for playbook, rule in rules:
        if not opened_from(draft.projection, rule.question, playbook.ref):
            continue
        stated = partial(triage.case_context, draft.projection, playbook)
        if playbook.ref not in context:
            context[playbook.ref] = [*facts, *playbook.context_facts(list(facts), stated)]
        if reported and not can_read(rule, context[playbook.ref]):
            # a statement of one or two facts is no reading for the rules that read others:
            # nothing to set aside for a load it was not taken under
            wanting.extend(
                case_needs(draft.projection, playbook, rule, context[playbook.ref], stated, facts)
            )
            continue
        verdict = evaluate(rule, context[playbook.ref], load)
        if not isinstance(verdict, Applied | SetAside):
            wanting.extend(
                case_needs(draft.projection, playbook, rule, context[playbook.ref], stated)
            )
        if isinstance(verdict, SetAside):
            draft.add(commands.set_aside(verdict, obs_seq))
            set_aside.append(rule.id)
        elif isinstance(verdict, Applied):
            host = draft.projection.probe_runs[run_seq].get("host")
            joins = corroborated(draft.projection, rule, playbook.rules, host)
            try:
                event = commands.evidence_from_rule(
                    draft.projection,
                    verdict,
                    obs_seq,
                    run_seq,
                    fresh=True,
                    reported=reported,
                    corroborates=joins,
                )
            except DomainError:
                continue  # none of the hypotheses the rule names are in this case
            draft.add(event)
            evidence_id = EvidenceAssessed.of(event.payload).evidence_id
            evidence_ids.append(evidence_id)
            ruled_out = withdraw_out_of_scope(draft, rule, evidence_id)
            if ruled_out is not None:
                verdicts.withdrawn.append(f"{rule.id} (does not apply: {ruled_out})")
    return verdicts
