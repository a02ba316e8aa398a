"""What a case can do next: the playbook versions its questions were opened from, and every
step those playbooks offer (probe + rule pairs, A/B experiments, intake questions).

Ranking them is the belief engine's work; which steps exist is the installation's (the
registry's playbooks and probes), so this module joins the two for the reader, the writer's
experiment verbs and the report alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from casefile.app.rule_verdicts import opened_from
from casefile.errors import PluginError

if TYPE_CHECKING:
    from casefile.domain.beliefs import Projection
    from casefile.domain.beliefs.ranking import Candidate
    from casefile.domain.playbook import Playbook
    from casefile.plugins import Registry


def case_playbooks(registry: Registry, projection: Projection) -> list[Playbook]:
    """The playbook versions the case's questions were opened from (installed ones)."""
    out: list[Playbook] = []
    for question in projection.questions.values():
        if question.playbook is None:
            continue
        try:
            playbook = registry.playbook(question.playbook)
        except PluginError:
            continue  # opened from a playbook this installation does not have
        if playbook.question_id == question.id and playbook not in out:
            out.append(playbook)
    return out


def candidates(registry: Registry, projection: Projection) -> list[Candidate]:
    """Every step the case can take now (:func:`offers`, less the A/Bs and intake questions
    whose rules its evidence has read)."""
    from casefile.domain.beliefs.rules_read import rules_read

    read = rules_read(projection).keys()  # kept with the fold, not walked per status
    return [c for c in offers(registry, projection) if c.offered_after(read)]


def offers(registry: Registry, projection: Projection) -> list[Candidate]:
    """Every probe + rule pair that the playbooks opened in this case offer, less the pairs
    whose rule reads facts the probe says it cannot give (see ``ranking.feeds``), or whose probe
    cannot look inside the software the case states it runs (``Probe.suits``): a probe is
    credited only with the rules its run can feed. Each experiment rule is offered too, as
    ``A/B <id>`` at the experiment's own cost (a benchmark rerun, or a reboot into firmware
    settings; the ranking resolves its ``cost_when`` under the answers at the step ranked:
    going back to the framework the case says was upgraded costs less than going back to its
    driver), and each intake question as ``intake <id>``, at no cost: a person knows whether
    the slowdown followed an upgrade sooner than a benchmark can show it. Those two are offered
    until their rule is read (and a question until a probe's rule reads the fact that answers
    it: not twice), which a step of the case decides (``Candidate.offered_after``): a replay or
    a report offers at each step what was still open then."""
    from casefile.domain.beliefs.ranking import EXPERIMENT_PREFIX, INTAKE_PREFIX, Candidate, feeds

    probes = registry.all_probes()
    out = []
    for playbook in registry.all_playbook_versions():
        for rule in playbook.rules:
            if not opened_from(projection, rule.question, playbook.ref):
                continue
            for name in rule.probes:
                probe = probes.get(name)
                if probe is not None and not (
                    probe.offered
                    and feeds(rule, probe.facts)
                    and probe.suits(projection.environment)
                ):
                    continue
                out.append(Candidate(name, rule, probe.cost if probe else "moderate"))
        for experiment in playbook.experiments:
            rule = experiment.rule
            if opened_from(projection, rule.question, playbook.ref):
                out.append(
                    Candidate(
                        EXPERIMENT_PREFIX + experiment.id,
                        rule,
                        experiment.cost,
                        (rule.id,),
                        experiment.cost_when,
                    )
                )
        for question in playbook.intake:
            rule = question.rule
            if not opened_from(projection, rule.question, playbook.ref):
                continue
            answering = {spec.fact for spec in question.facts}
            answered_by = [o.id for o in playbook.rules if answering and answering & set(o.reads)]
            out.append(
                Candidate(INTAKE_PREFIX + question.id, rule, "instant", (rule.id, *answered_by))
            )
    return out
