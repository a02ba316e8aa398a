"""Experiment rules as a responder reads them: which changes each reads, and what it compares.

``casefile experiment rules`` and ``casefile playbook show`` list them. Without numbers, a
rule is its id, title, the wordings its pattern reads (rendered by
:mod:`casefile.domain.wordings`) with checked examples, the metric it compares and the probes
that measure it; with numbers, its noise margin and likelihood table too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from casefile.domain import effect_size
from casefile.domain.experiment_cost import cost_under
from casefile.domain.experiments import RULE_PREFIX
from casefile.domain.wordings import examples, wordings

if TYPE_CHECKING:
    from casefile.domain.experiments import ExperimentRule
    from casefile.domain.playbook import Playbook


@dataclass(frozen=True)
class ExperimentRuleView:
    playbook: str
    id: str
    title: str
    wordings: tuple[str, ...]
    examples: tuple[str, ...]
    metric: tuple[str, ...]
    probes: tuple[str, ...]
    cost: str
    #: costs that hold where the case states an intake answer (``moderate where after-upgrade
    #: is framework or collective-library``), before ``cost``, which holds otherwise
    cost_when: tuple[str, ...] = ()
    #: the wordings that leave a change to a later rule even where this one reads it
    unless: tuple[str, ...] = ()
    #: whether a later rule of the playbook may read what ``unless`` leaves (False for the
    #: last rule: what it leaves is read by none)
    later_rules: bool = True
    #: which way round a change is read, where the rule says (a version A/B may run either
    #: way, a setting set or removed alike); empty where the change's arrow decides
    way: str = ""
    #: which hypotheses a large effect counts for, in words (see
    #: :mod:`casefile.domain.effect_size`); empty where the rule reads no size
    size: str = ""
    #: with numbers only: the noise margin per probe, and P(outcome | h) per hypothesis
    noise: dict[str, float] | None = None
    likelihoods: dict[str, dict[str, float]] | None = None
    #: what the case must state for it to be read (``gpu-count: several``), and whether its
    #: reading counts only while no answer rules that out (``only_where_required``)
    requires: tuple[str, ...] = ()
    only_where_required: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "playbook": self.playbook,
            "id": self.id,
            "title": self.title,
            "wordings": list(self.wordings),
            "unless": list(self.unless),
            "way": self.way,
            "size": self.size,
            "examples": list(self.examples),
            "metric": list(self.metric),
            "probes": list(self.probes),
            "cost": self.cost,
            "cost_when": list(self.cost_when),
            "requires": list(self.requires),
            "only_where_required": self.only_where_required,
            # whether a later rule may read what ``unless`` leaves (the last rule's: none)
            "later_rules": self.later_rules,
        }
        if self.likelihoods is not None:
            out["noise"] = self.noise
            out["likelihoods"] = self.likelihoods
        return out


def experiment_rule_view(
    playbook: str,
    rule: ExperimentRule,
    *,
    numbers: bool = False,
    answer_of: Callable[[str], str | None] | None = None,
) -> ExperimentRuleView:
    """One rule as a responder reads it; ``numbers`` adds its noise and likelihoods. Given a
    case's answers in force (``answer_of``), its cost is the one that holds there (its
    ``cost_when``), as the case's next steps rank it; without, the rule's own."""
    # the playbook's own examples, where it gives them, say it better than samples drawn from
    # the pattern ("disablecustomallreduce" is what an optional "[-_ ]?" draws)
    shown = rule.examples or examples(rule.change, rule.matches)
    table = None
    if numbers:
        table = {h: dict(row) for h, row in rule.rule.likelihoods.items()}
        table["otherwise"] = dict(rule.rule.otherwise)
    return ExperimentRuleView(
        playbook=playbook,
        id=rule.rule.id,
        title=rule.title,
        wordings=wordings(rule.change),
        examples=shown[:6],
        metric=rule.metric,
        probes=rule.probes,
        cost=rule.cost if answer_of is None else cost_under(rule.cost, rule.cost_when, answer_of),
        cost_when=tuple(
            f"{w.cost} where {w.intake} is {' or '.join(w.answers)}" for w in rule.cost_when
        ),
        unless=wordings(rule.unless) if rule.unless else (),
        way=_way(rule),
        size=effect_size.in_words(rule.large),
        noise=dict(rule.noise) if numbers else None,
        likelihoods=table,
        requires=requirement_words(rule.rule.requires),
        only_where_required=rule.rule.only_where_required,
    )


def requirement_words(requires: Iterable[tuple[str, Iterable[str]]]) -> tuple[str, ...]:
    """A rule's requirements as the playbook listings say them: ``gpu-count: several``."""
    return tuple(f"{q}: {' or '.join(answers)}" for q, answers in requires)


def _way(rule: ExperimentRule) -> str:
    """Which way round the rule reads a change, in words, where it is not the arrow's."""
    if rule.runs_back is not None:
        intake, answers = rule.runs_back
        return (
            "going back to an earlier version (a rollback, a downgrade, falling versions) is "
            f"its own A/B; where {intake} is {' or '.join(answers)}, a change that does not "
            "go back is read the way the trouble happened, so a slowdown there counts as its "
            "faster"
        )
    if rule.either_way:
        return "a setting set or removed alike: the difference is what it reads"
    if rule.gpu_counts:
        return (
            'any change of how many GPUs the job runs on ("8x A100 -> 4x A100", "on 2 GPUs '
            'instead of all 8", "using 4 of the 8 GPUs", a server\'s "--tensor-parallel-size '
            '2 -> 1"), before any other rule where the count is all it changes: fewer is its '
            "own A/B; more is read backwards"
        )
    if rule.switches_to is not None:
        other = "off" if rule.switches_to == "on" else "on"
        return (
            f"a switch turned {rule.switches_to} is its own A/B; one turned {other} "
            f'("{rule.switches_to} -> {other}") is read backwards'
        )
    if rule.toward is not None and rule.toward.order:
        return (
            f"a move up {' < '.join(rule.toward.order)} is its own A/B; one down it is read "
            "backwards"
        )
    if rule.toward is not None:
        return (
            f"a change onto {', '.join(wordings(rule.toward.to))} is its own A/B; one onto "
            f"{', '.join(wordings(rule.toward.away))} is read backwards"
        )
    if rule.raises is not None:
        own, other = ("raised", "lowered") if rule.raises else ("lowered", "raised")
        if rule.counts:
            return (
                f"its count {own} is its own A/B; {other}, set to 0 or 'without' it, it is "
                "read backwards"
            )
        return f"its number {own} is its own A/B; {other}, it is read backwards"
    return ""


def experiment_rule_views(
    playbooks: Iterable[Playbook],
    *,
    numbers: bool = False,
    answers: Callable[[Playbook], Callable[[str], str | None]] | None = None,
) -> list[ExperimentRuleView]:
    """Each playbook's rules; ``answers`` gives, per playbook, a case's answers in force to
    cost each rule as it holds in that case."""
    return [
        replace(
            experiment_rule_view(
                playbook.ref,
                rule,
                numbers=numbers,
                answer_of=None if answers is None else answers(playbook),
            ),
            later_rules=rule is not playbook.experiments[-1],
        )
        for playbook in playbooks
        for rule in playbook.experiments
    ]


#: How an A/B no rule reads can still count (``--tests``), said wherever rules are listed.
NAMED_NOTE = (
    f"any other change: --tests HYP[,HYP…] names the hypotheses it tests (rule {RULE_PREFIX}named: "
    "they predict faster, the others no change)"
)
