"""A playbook as a responder reads it before opening it: ``casefile playbook show``.

Without numbers: the question, the intake questions (their answers, the ``--env`` keys, facts
and other questions' answers that answer them), the hypothesis tree with what each would mean
and what it requires, the changes each experiment rule reads, and what each probe rule reads
and which hypotheses each of its outcomes raises or lowers. With numbers: the priors, and every
likelihood table (intake answers, probe rules, experiment outcomes). The JSON has everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casefile.app.views.rules import ExperimentRuleView, experiment_rule_views, requirement_words

if TYPE_CHECKING:
    from casefile.domain.intake import FactAnswer, ImpliedAnswer, IntakeQuestion
    from casefile.domain.playbook import HypothesisSpec, Playbook
    from casefile.domain.rules import Outcome, Rule

Table = dict[str, dict[str, float]]


@dataclass(frozen=True)
class IntakeView:
    id: str
    text: str
    answers: tuple[str, ...]
    help: str
    #: ``--env`` keys whose value is an answer (``nvlink=no``)
    environment: tuple[str, ...]
    #: ``--env`` values matched to an answer (``gpus ~ 'GeForce' → consumer``)
    environment_matches: tuple[str, ...]
    #: facts an earlier probe recorded that answer it (``name ~ 'GeForce' → consumer``)
    facts: tuple[str, ...]
    likelihoods: Table | None = None
    reliability: float | None = None
    #: other questions' answers that settle it (``nodes = multi → several: why``)
    implied_by: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "answers": list(self.answers),
            "help": self.help,
            "environment": list(self.environment),
            "environment_matches": list(self.environment_matches),
            "facts": list(self.facts),
            "implied_by": list(self.implied_by),
            "likelihoods": self.likelihoods,
            "reliability": self.reliability,
        }


@dataclass(frozen=True)
class HypothesisView:
    id: str
    text: str
    parent: str | None
    depth: int
    meaning: str | None
    #: "QUESTION: ANSWER or ANSWER" per requirement the hypothesis declares
    requires: tuple[str, ...]
    prior: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "parent": self.parent,
            "meaning": self.meaning,
            "requires": list(self.requires),
            "prior": self.prior,
        }


@dataclass(frozen=True)
class RuleOutcomeView:
    """One outcome of a probe rule in words: when it holds, and which hypotheses it raises
    and lowers (its row against the rule's ``otherwise`` by more than :data:`CLEARLY`)."""

    name: str
    when: str
    raises: tuple[str, ...]
    lowers: tuple[str, ...]
    load: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "when": self.when,
            "raises": list(self.raises),
            "lowers": list(self.lowers),
            "load": self.load,
        }


@dataclass(frozen=True)
class RuleView:
    """A probe rule: what it reads, from which probes, under which load, what each outcome
    says, and the states it is one witness of; its table with numbers."""

    id: str
    title: str
    probes: tuple[str, ...]
    likelihoods: Table | None
    version: int = 1
    reads: str = ""
    load: str = "any"
    outcomes: tuple[RuleOutcomeView, ...] = ()
    witness: tuple[str, ...] = ()
    #: for each state it reads, the other rules of the playbook that read it too
    witnessed_with: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: the rules that read another kind of the same probe's run (``exclusive``): one run
    #: feeds this rule or one of them
    excludes: tuple[str, ...] = ()
    #: what the case must state for it to be suggested (``gpu-count: several``)
    requires: tuple[str, ...] = ()
    #: its reading counts only while no answer rules those out (``only_where_required``)
    only_where_required: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "version": self.version,
            "title": self.title,
            "probes": list(self.probes),
            "reads": self.reads,
            "load": self.load,
            "outcomes": [o.to_json() for o in self.outcomes],
            "witness": list(self.witness),
            "witnessed_with": {state: list(rules) for state, rules in self.witnessed_with},
            "excludes": list(self.excludes),
            "requires": list(self.requires),
            "only_where_required": self.only_where_required,
            "likelihoods": self.likelihoods,
        }


#: how far an outcome's likelihood under a hypothesis must stand from the ``otherwise`` row
#: (a ratio) for the outcome to be said to raise or lower it
CLEARLY = 1.5


def _rule_view(rule: Rule, rules: tuple[Rule, ...], numbers: bool) -> RuleView:
    spec = rule.statistic
    reads = f"{spec.aggregate} of {', '.join(spec.facts)}" + (
        f" per {spec.per}" if spec.per else ""
    )
    outcomes = []
    for outcome in rule.outcomes:
        base = rule.otherwise[outcome.name]
        rows = {h: row[outcome.name] for h, row in rule.likelihoods.items()}
        raises = sorted((h for h, p in rows.items() if p > base * CLEARLY), key=lambda h: -rows[h])
        lowers = sorted((h for h, p in rows.items() if p * CLEARLY < base), key=lambda h: rows[h])
        outcomes.append(
            RuleOutcomeView(
                outcome.name, _when(outcome), tuple(raises), tuple(lowers), outcome.load
            )
        )
    return RuleView(
        id=rule.id,
        title=rule.title,
        probes=rule.probes,
        likelihoods=_table(rule) if numbers else None,
        version=rule.version,
        reads=reads,
        load=rule.load,
        outcomes=tuple(outcomes),
        witness=rule.witness,
        witnessed_with=tuple(
            (state, tuple(r.id for r in rules if r.id != rule.id and state in r.witness))
            for state in rule.witness
        ),
        excludes=tuple(
            r.id
            for r in rules
            if rule.exclusive is not None and r.id != rule.id and r.exclusive == rule.exclusive
        ),
        requires=requirement_words(rule.requires),
        only_where_required=rule.only_where_required,
    )


def _when(outcome: Outcome) -> str:
    """When an outcome holds, in the rule's own bounds (outcomes are tried in order)."""
    if outcome.any_of:
        return "any of " + ", ".join(outcome.any_of)
    if outcome.equals is not None:
        return f"= {outcome.equals}"
    bounds = [f"≥ {outcome.at_least:g}"] if outcome.at_least is not None else []
    bounds += [f"< {outcome.below:g}"] if outcome.below is not None else []
    return " and ".join(bounds) or "otherwise"


@dataclass(frozen=True)
class PlaybookView:
    ref: str
    title: str
    question_id: str
    question: str
    probes: tuple[str, ...]
    intake: tuple[IntakeView, ...]
    hypotheses: tuple[HypothesisView, ...]
    experiments: tuple[ExperimentRuleView, ...]
    numbers: bool
    catch_all: float | None = None
    rules: tuple[RuleView, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "playbook": self.ref,
            "title": self.title,
            "question": {
                "id": self.question_id,
                "text": self.question,
                "catch_all": self.catch_all,
            },
            "probes": list(self.probes),
            "intake": [item.to_json() for item in self.intake],
            "hypotheses": [h.to_json() for h in self.hypotheses],
            "experiments": [x.to_json() for x in self.experiments],
            "rules": [r.to_json() for r in self.rules],
        }


def _table(rule: Rule) -> Table:
    table = {h: dict(row) for h, row in rule.likelihoods.items()}
    table["otherwise"] = dict(rule.otherwise)
    return table


def fact_condition(spec: FactAnswer, numbers: bool = True) -> str:
    """``name ~ 'GeForce' → consumer``: a fact that answers a question, and when; without
    numbers, a pattern that says what it reads in words is shown as those words."""
    if (spec.at_least is not None or spec.below is not None) and spec.says and not numbers:
        test = f": {spec.says}"
    elif spec.at_least is not None or spec.below is not None:
        bounds = [f"≥ {spec.at_least:g}"] if spec.at_least is not None else []
        bounds += [f"< {spec.below:g}"] if spec.below is not None else []
        test = " " + " and ".join(bounds)
    elif spec.equals is not None:
        test = f" = {spec.equals}"
    elif spec.any_of:
        test = f" in ({', '.join(spec.any_of)})"
    elif spec.matches is not None:
        test = f": {spec.says}" if spec.says and not numbers else f" ~ '{spec.matches}'"
    else:
        test = " is set"
    return f"{spec.fact}{test} → {spec.answer}"


def _environment_matches(question: IntakeQuestion, numbers: bool) -> tuple[str, ...]:
    """``gpus: a count of one GPU → one`` (the pattern with numbers, or where no words
    say what it reads: ``gpus ~ 'GeForce' → consumer``)."""
    # declared by a question only where the playbook gives them (gpu-class from --env gpus)
    specs = getattr(question, "environment_matches", ())
    return tuple(
        f"{s.key}: {s.says} → {s.answer}"
        if s.says and not numbers
        else f"{s.key} ~ '{s.matches}' → {s.answer}"
        for s in specs
    )


def implied_condition(spec: ImpliedAnswer) -> str:
    """``nodes = multi → several: a job on several nodes uses several GPUs``: another
    question's answer that settles this one, and why."""
    why = f": {spec.why}" if spec.why else ""
    return f"{spec.intake} = {' or '.join(spec.answers)} → {spec.answer}{why}"


def _intake(question: IntakeQuestion, numbers: bool) -> IntakeView:
    return IntakeView(
        id=question.id,
        text=question.text,
        answers=question.answers,
        help=question.help,
        environment=question.environment,
        environment_matches=_environment_matches(question, numbers),
        facts=tuple(fact_condition(spec, numbers) for spec in question.facts),
        likelihoods=_table(question.rule) if numbers else None,
        reliability=question.rule.reliability if numbers else None,
        implied_by=tuple(implied_condition(spec) for spec in question.implied_by),
    )


def _hypotheses(specs: tuple[HypothesisSpec, ...], numbers: bool) -> tuple[HypothesisView, ...]:
    """The tree in depth-first order (children under their parent, in the playbook's order)."""
    children: dict[str | None, list[HypothesisSpec]] = {}
    for spec in specs:
        children.setdefault(spec.parent, []).append(spec)
    out: list[HypothesisView] = []

    def walk(parent: str | None, depth: int) -> None:
        for spec in children.get(parent, []):
            requires = getattr(spec, "requires", ())  # a playbook format without it: none
            out.append(
                HypothesisView(
                    id=spec.id,
                    text=spec.text,
                    parent=spec.parent,
                    depth=depth,
                    meaning=spec.meaning,
                    requires=tuple(f"{q}: {' or '.join(answers)}" for q, answers in requires),
                    prior=spec.prior if numbers else None,
                )
            )
            walk(spec.id, depth + 1)

    walk(None, 0)
    return tuple(out)


def build_playbook_view(playbook: Playbook, *, numbers: bool = False) -> PlaybookView:
    return PlaybookView(
        ref=playbook.ref,
        title=playbook.title,
        question_id=playbook.question_id,
        question=playbook.question_text,
        probes=playbook.probes,
        intake=tuple(_intake(q, numbers) for q in playbook.intake),
        hypotheses=_hypotheses(playbook.hypotheses, numbers),
        experiments=tuple(experiment_rule_views([playbook], numbers=numbers)),
        numbers=numbers,
        catch_all=playbook.catch_all if numbers else None,
        rules=tuple(_rule_view(r, playbook.rules, numbers) for r in playbook.rules),
    )
