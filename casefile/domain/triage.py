"""Commands for intake answers and A/B experiments: check them, and produce the events.

Both turn something a responder knows or measured into evidence whose likelihoods come from
the playbook, never from the responder: an intake answer is evidence of kind ``reported``
carrying its question's table; an experiment is an ``experiment.recorded`` event holding the
two runs and their numbers, then (when a rule of the playbook reads that change) a measured
evidence event carrying the rule's verdict on the speedup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from casefile.domain import commands, premises
from casefile.domain.ab_runs import (
    Measured,
    check_pair,
)
from casefile.domain.beliefs.projection import Projection
from casefile.domain.beliefs.rules_read import rules_read
from casefile.domain.environment import GPU_ENVIRONMENT
from casefile.domain.environment import values as environment_values
from casefile.domain.event_types import new_event
from casefile.domain.event_types.evidence import IntakeRef, IntakeSource, RuleRef
from casefile.domain.event_types.experiment import ExperimentRecorded, StatedOutcome
from casefile.domain.events import NewEvent
from casefile.domain.expected import CaseContext
from casefile.domain.experiment_outcome import SpeedupReading, read_speedup, read_stated
from casefile.domain.experiments import ExperimentRule
from casefile.domain.fabric import stated_port_rates
from casefile.domain.intake import IntakeQuestion, Known
from casefile.domain.kinds import reported_reliability
from casefile.domain.repeats import refuse_repeated_experiment, reread_pair
from casefile.domain.retelling import restated, superseded_by_retelling
from casefile.domain.rules import Applied, evaluate
from casefile.errors import DomainError, Remedy

#: the remedy of an experiment stated without its change, as each front end's control
STATE_THE_CHANGE = Remedy("states it", "change")

if TYPE_CHECKING:
    from casefile.domain.playbook import Playbook


def active_answer(projection: Projection, question: IntakeQuestion) -> tuple[str, str] | None:
    """(evidence id, answer) of the answer in force for an intake question, if any: the last
    active evidence its rule wrote."""
    return rules_read(projection).get(question.rule_id)


#: What the expected-rate table reads from the case when a run leaves it unsaid: the intake
#: questions about nodes and NVLink, and the ``--env`` keys that name the GPUs.
NODES_QUESTION = "nodes"
NVLINK_QUESTION = "nvlink"
GPU_COUNT_QUESTION = "gpu-count"


def case_context(projection: Projection, playbook: Playbook) -> CaseContext:
    """What the case states about its system: the answers in force (else the ``--env`` value
    that answers them) to the playbook's nodes, NVLink and GPU-count questions, and the GPUs it
    names."""
    answers: dict[str, str] = {}
    for question in playbook.intake:
        if question.id not in (NODES_QUESTION, NVLINK_QUESTION, GPU_COUNT_QUESTION):
            continue
        found = active_answer(projection, question)
        if found is not None:
            answers[question.id] = found[1]
            continue
        known = question.from_environment(projection.environment)
        if known is not None:
            answers[question.id] = known.answer
    environment = projection.environment
    nodes = answers.get(NODES_QUESTION)
    nvlink = answers.get(NVLINK_QUESTION)
    count = answers.get(GPU_COUNT_QUESTION)
    return CaseContext(
        gpus=environment_values(environment, GPU_ENVIRONMENT),
        nodes=nodes if nodes in ("single", "multi") else None,
        nvlink={"yes": True, "no": False}.get(nvlink or ""),
        several_gpus={"one": False, "several": True}.get(count or ""),
        port_rates=stated_port_rates(environment),
    )


def normalised_answer(question: IntakeQuestion, value: str) -> str:
    """``value`` as one of the question's answers (a synonym taken for its answer); a
    ``DomainError`` naming the answers for anything else."""
    answer = question.normalise(value)
    if answer is None:
        choices = " / ".join(question.answers)
        raise DomainError(f"intake {question.id}: {value!r} is not an answer ({choices})")
    return answer


def answer_intake(
    projection: Projection,
    question: IntakeQuestion,
    value: str,
    known: Known | None = None,
) -> NewEvent | None:
    """The evidence an answer gives (``None`` when the same answer is already in force).

    A new answer to a question answered before supersedes the old one, so changing your mind
    never counts twice. ``known`` says the answer came from the case's own records."""
    answer = normalised_answer(question, value)
    if question.rule.question not in projection.questions:
        raise DomainError(
            f"intake {question.id}: the case has no question {question.rule.question!r} "
            "(open the playbook first)"
        )
    previous = active_answer(projection, question)
    if previous is not None and previous[1] == answer:
        return None
    verdict = evaluate(question.rule, [question.answer_fact(answer)], "any")
    if not isinstance(verdict, Applied):  # the answers are the outcomes: cannot happen
        raise DomainError(f"intake {question.id}: answer {answer!r} matches no outcome")
    named = {
        h: v
        for h, v in verdict.likelihoods.items()
        if projection.hypothesis_question.get(h) == question.rule.question
    }
    if not named:
        raise DomainError(f"intake {question.id}: none of its hypotheses are in this case")
    source, said, basis = premises.recorded_as(known)
    return commands.assess_evidence(
        projection,
        named,
        allow_retired=True,
        rationale=(f"Intake: {question.text} {answer!r} ({said}). {question.rule.rationale}"),
        otherwise=verdict.otherwise,
        kind="reported",
        reliability=question.rule.reliability,
        observation_seq=known.observation_seq if known is not None else None,
        supersedes=previous[0] if previous is not None else None,
        rule=RuleRef(id=question.rule_id, version=question.version),
        outcome=answer,
        statistic=answer,
        intake=IntakeRef(
            id=question.id,
            answer=answer,
            source=cast(IntakeSource, source),
            basis=basis,
        ),
    )


def record_experiment(
    projection: Projection,
    change: str,
    baseline: Measured,
    variant: Measured,
    metric: str,
    baseline_value: float,
    variant_value: float,
    higher_is_better: bool | None,
    unit: str | None = None,
    note: str | None = None,
    tests: Sequence[str] = (),
    restates: str | None = None,
    named_rule: str | None = None,
) -> NewEvent:
    """The ``experiment.recorded`` event for two runs of this case; ``higher_is_better``
    None (nothing says which way is better) records the figures and no speedup. ``tests``:
    the hypotheses a person named it a test of; ``restates``: the earlier experiment it tells
    again."""
    check_pair(projection, baseline, variant)
    runs = {
        "baseline_seq": baseline.seq,
        "variant_seq": variant.seq,
        "tests": tests,
        "restates": restates,
        "named_rule": named_rule,
    }
    figures = (metric, baseline_value, variant_value, higher_is_better, unit)
    # the same two runs read again: refused, or another reading that replaces the first
    reading = {**runs, "metric": metric, "higher_is_better": higher_is_better, "unit": unit}
    runs["restates"] = reread_pair(projection.experiments, reading)
    return _experiment(projection, change, baseline.probe, figures, note, runs)


def record_reported_experiment(
    projection: Projection,
    change: str,
    probe: str,
    metric: str,
    baseline_value: float,
    variant_value: float,
    higher_is_better: bool | None,
    unit: str | None = None,
    note: str | None = None,
    tests: Sequence[str] = (),
    restates: str | None = None,
    named_rule: str | None = None,
    probe_inferred: bool = False,
) -> NewEvent:
    """An A/B whose figures a person states ("27 GB/s before the ACS fix, 48 after"): no runs
    to point at, so its evidence counts as reported, with a reported reading's reliability."""
    figures = (metric, baseline_value, variant_value, higher_is_better, unit)
    extra = {"reported": True, "tests": tests, "restates": restates, "named_rule": named_rule}
    extra["probe_inferred"] = probe_inferred or None
    return _experiment(projection, change, probe, figures, note, extra)


def _experiment(
    projection: Projection,
    change: str,
    probe: str,
    figures: tuple[str, float, float, bool | None, str | None],
    note: str | None,
    extra: dict[str, Any],
) -> NewEvent:
    """The ``experiment.recorded`` event: checked figures, the next id, the speedup."""
    metric, baseline_value, variant_value, higher_is_better, unit = figures
    if not change.strip():
        raise DomainError("state the one change between the two runs", remedy=STATE_THE_CHANGE)
    for value in (baseline_value, variant_value):
        if not math.isfinite(value) or value <= 0:
            raise DomainError(f"{metric} = {value!r}: an experiment compares positive numbers")
    speedup = None
    if higher_is_better is not None:
        speedup = speedup_of(baseline_value, variant_value, higher_is_better)
    fields: dict[str, Any] = {
        "experiment_id": _next_id(projection),
        "change": change.strip(),
        "baseline_seq": extra.get("baseline_seq"),
        "variant_seq": extra.get("variant_seq"),
        "probe": probe,
        "metric": metric,
        "baseline_value": float(baseline_value),
        "variant_value": float(variant_value),
        "speedup": speedup,
        "higher_is_better": higher_is_better,
        "unit": unit,
        "note": note,
        "reported": extra.get("reported"),
        "tests": list(dict.fromkeys(extra.get("tests", ()))) or None,  # once each
        "restates": restated(projection, extra.get("restates")),
        "named_rule": extra.get("named_rule"),
        "chosen": _chosen(extra.get("named_rule"), extra.get("tests", ())),
        "probe_inferred": extra.get("probe_inferred"),
    }
    refuse_repeated_experiment(projection.experiments, fields)
    return new_event(ExperimentRecorded, **fields)


def speedup_of(baseline: float, variant: float, higher_is_better: bool) -> float:
    """How much better the variant did: above 1 is better, whichever way the metric runs."""
    return float(variant / baseline if higher_is_better else baseline / variant)


def _chosen(named_rule: str | None, tests: Sequence[str]) -> bool | None:
    """True where the playbook chooses the reader: no rule and no hypotheses named."""
    return True if named_rule is None and not tests else None


def _next_id(projection: Projection) -> str:
    number = 1 + len(projection.experiments)
    while f"x{number}" in projection.experiments:
        number += 1
    return f"x{number}"


#: Said of an A/B whose change takes away what its rule reads (see ``ExperimentRule.undoes``)
_UNDONE = "; the change undoes what the rule reads, so read the other way round"
#: Said of a slowdown under a version change that does not say it goes back
_EITHER = (
    "; the case says the trouble followed an upgrade and this change does not go back to an "
    "earlier version, so a slowdown is the trouble as it happened, as the rule's 'faster' says"
)
#: the outcome of the rule's own A/B when the change undoes what it reads
_REVERSED = {"faster": "slower", "same": "same", "slower": "faster"}

#: A result stated in words, as the outcome a rule reads: "fixed by that setting" and "no
#: slowdown since" say as much about the direction as a ratio would, and nothing about size.
STATED_OUTCOMES = {"fixed": "faster", "better": "faster", "same": "same", "worse": "slower"}
#: Other words for them, as this tool and people say them ("faster", "no change"); "fixed"
#: has none: it says more than "better" (the change took the trouble away: a large gain).
STATED_SYNONYMS = {"faster": "better", "slower": "worse", "no change": "same", "unchanged": "same"}


def record_stated_experiment(
    projection: Projection,
    change: str,
    stated: str,
    probe: str | None,
    note: str | None,
    tests: Sequence[str] = (),
    restates: str | None = None,
    named_rule: str | None = None,
) -> NewEvent:
    """An A/B a person states without figures ("fixed by NCCL_P2P_DISABLE=1"): the change and
    the word, no runs and no numbers; its evidence counts as reported."""
    if not change.strip():
        raise DomainError("state the one change the outcome followed", remedy=STATE_THE_CHANGE)
    if stated not in STATED_OUTCOMES:
        raise DomainError(f"outcome {stated!r}: say {' / '.join(STATED_OUTCOMES)}")
    fields: dict[str, Any] = {
        "experiment_id": _next_id(projection),
        "change": change.strip(),
        "stated": cast(StatedOutcome, stated),
        "probe": probe,
        "note": note,
        "reported": True,
        "tests": list(dict.fromkeys(tests)) or None,  # once each, absent when none
        "restates": restated(projection, restates),
        "named_rule": named_rule,
        "chosen": _chosen(named_rule, tests),
    }
    refuse_repeated_experiment(projection.experiments, fields)
    return new_event(ExperimentRecorded, **fields)


def evidence_from_experiment(
    projection: Projection, rule: ExperimentRule, experiment: dict[str, Any]
) -> NewEvent | None:
    """The rule's verdict on an experiment's speedup (or on the outcome stated in words), as
    evidence (``None`` when none of the hypotheses it names are in the case, or when the
    record has no speedup because nothing said which way is better)."""
    stated = experiment.get("stated")
    if stated is not None:
        return _stated_evidence(projection, rule, experiment, str(stated))
    reading = speedup_reading(projection, rule, experiment)
    if reading is None:
        return None
    verdict, undone, either = reading
    ratio = float(experiment["speedup"])
    named = _in_case(projection, rule, verdict.likelihoods)
    if not named:
        return None
    margin = rule.margin(str(experiment["probe"]))
    unit = f" {experiment['unit']}" if experiment.get("unit") else ""
    lower = " better, lower being better" if experiment.get("higher_is_better") is False else ""
    return commands.assess_evidence(
        projection,
        named,
        allow_retired=True,
        rationale=(
            f"{rule.title}: {experiment['change']} made {experiment['metric']} "
            f"{experiment['baseline_value']:g} → {experiment['variant_value']:g}{unit} "
            f"({ratio:.2f}×{lower}{_UNDONE if undone else ''}{_EITHER if either else ''}, "
            f"{verdict.said()}; "
            f"noise margin ±{margin:.0%}: {rule.noise_why}). {rule.rule.rationale}"
        ),
        otherwise=verdict.otherwise,
        kind="reported" if experiment.get("reported") else "measured",
        reliability=(
            reported_reliability(rule.rule.reliability, figures=True)
            if experiment.get("reported")
            else rule.rule.reliability
        ),
        probe_run_seq=experiment.get("variant_seq"),
        rule=RuleRef(id=rule.rule.id, version=rule.version),
        outcome=verdict.outcome,
        statistic=round(ratio, 6),
        experiment_id=str(experiment["experiment_id"]),
        supersedes=superseded_by_retelling(projection, experiment),
    )


def speedup_reading(
    projection: Projection, rule: ExperimentRule, experiment: dict[str, Any]
) -> tuple[SpeedupReading, bool, bool] | None:
    """How the rule reads an experiment's figures (None without a speedup): the reading, and
    whether the change undoes what the rule reads (the rule's A/B run backwards) and whether a
    slowdown was read as the trouble as it happened (a version change after an upgrade)."""
    if experiment.get("speedup") is None:
        return None
    ratio = float(experiment["speedup"])
    undone = rule.undoes(str(experiment["change"]))
    # a change that takes away what the rule reads is the rule's A/B run backwards
    read = 1.0 / ratio if undone else ratio
    either = read < 1.0 and rule.either_direction(
        str(experiment["change"]), answers_in_force(projection, rule.rule.question)
    )
    read = 1.0 / read if either else read
    scaled = rule.in_noise_units(read, str(experiment["probe"]))
    verdict = read_speedup(rule.rule, scaled, read, rule.large)
    return verdict, undone, either


def answers_in_force(projection: Projection, question_id: str) -> Callable[[str], str | None]:
    """A question's intake answers in force, by intake id (nothing where it is not open): what
    an experiment's costs and readings hold under."""
    question = projection.questions.get(question_id)
    return (lambda _: None) if question is None else question.answer_in_force


def _in_case(
    projection: Projection, rule: ExperimentRule, likelihoods: dict[str, float]
) -> dict[str, float]:
    return {
        h: v
        for h, v in likelihoods.items()
        if projection.hypothesis_question.get(h) == rule.rule.question
    }


def _stated_evidence(
    projection: Projection, rule: ExperimentRule, experiment: dict[str, Any], stated: str
) -> NewEvent | None:
    """The rule's column for the stated word's outcome, as reported evidence (a person's
    account of a result, however sure, is not a measurement the case holds)."""
    undone = rule.undoes(str(experiment["change"]))
    outcome = STATED_OUTCOMES[stated]
    outcome = _REVERSED[outcome] if undone else outcome
    either = outcome == "slower" and rule.either_direction(
        str(experiment["change"]), answers_in_force(projection, rule.rule.question)
    )
    outcome = "faster" if either else outcome
    table = rule.rule
    column = read_stated(rule.rule, stated, outcome, rule.large)
    named = _in_case(projection, rule, column.likelihoods)
    if not named:
        return None
    size = f"; {column.size}" if column.size is not None else ""
    return commands.assess_evidence(
        projection,
        named,
        allow_retired=True,
        rationale=(
            f"{rule.title}: {experiment['change']}: the outcome stated as {stated!r}, no figures "
            f"(read as {outcome!r}{_UNDONE if undone else ''}{_EITHER if either else ''}"
            f"{size}). {table.rationale}"
        ),
        otherwise=column.otherwise,
        kind="reported",
        reliability=reported_reliability(table.reliability, figures=False),
        rule=RuleRef(id=table.id, version=rule.version),
        outcome=outcome,
        statistic=stated,
        experiment_id=str(experiment["experiment_id"]),
        supersedes=superseded_by_retelling(projection, experiment),
    )
