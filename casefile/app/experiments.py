"""A/B experiments: recording what one change did, and reading it as evidence.

Which way is better comes from the figures' unit, ``--direction``, the rule, or the person
asked; the record and the rule's evidence are appended together, so a conflicting append
retries the whole decision.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from casefile.app.candidates import case_playbooks
from casefile.app.experiment_reading import (
    ExperimentOutcome,
    experiment_rule,
    nearest_to,
    read_recorded,
    reading_rule,
)
from casefile.app.scrubbing import scrub_text
from casefile.app.who import NOW, Who
from casefile.domain import triage
from casefile.domain.ab_runs import Measured, check_pair, choose_metric
from casefile.domain.better_way import Direction, settle_direction
from casefile.domain.event_types.stored import StoredObservation
from casefile.domain.facts import Fact
from casefile.domain.units import figure_kind, figure_name, name_direction, names_bandwidth
from casefile.errors import DomainError, did_you_mean

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.app.sessions import CaseSessions
    from casefile.app.views.rules import ExperimentRuleView
    from casefile.domain.experiments import ExperimentRule
    from casefile.domain.playbook import Playbook

__all__ = [
    "AskDirection",
    "ExperimentOutcome",
    "experiment_rule_list",
    "experiment_rules",
    "record_experiment",
    "record_reported_experiment",
    "record_stated_experiment",
]

#: Asks the person which way is better for a unit (or a metric with none): True for higher,
#: False for lower, None when they would not say. Only given where someone can answer.
AskDirection = Callable[[str], "bool | None"]


def experiment_rules(sessions: CaseSessions, case_id: str) -> list[ExperimentRule]:
    projection = sessions.current(case_id, history=False)
    return [rule for p in case_playbooks(sessions.registry, projection) for rule in p.experiments]


def experiment_rule_list(sessions: CaseSessions, case_id: str) -> list[ExperimentRuleView]:
    """The experiment rules of the case's playbooks, as a responder reads them, each at the
    cost that holds under the case's answers in force (as its next steps rank it)."""
    from casefile.app.views.rules import experiment_rule_views

    projection = sessions.current(case_id, history=False)

    def answers(playbook: Playbook) -> Callable[[str], str | None]:
        return triage.answers_in_force(projection, playbook.question_id)

    return experiment_rule_views(case_playbooks(sessions.registry, projection), answers=answers)


def record_experiment(
    sessions: CaseSessions,
    case_id: str,
    change: str,
    baseline_seq: int,
    variant_seq: int,
    *,
    metric: Sequence[str] = (),
    rule_id: str | None = None,
    note: str | None = None,
    tests: Sequence[str] = (),
    direction: bool | None = None,
    unit: str | None = None,
    ask: AskDirection | None = None,
    restates: str | None = None,
    who: Who = NOW,
) -> ExperimentOutcome:
    """Record an A/B of one benchmark and, when a rule of the case's playbook reads the
    stated change, the evidence its verdict gives — in one append.

    Which way is better: ``direction`` (True: higher) if given, else the compared fact's
    unit (``unit`` names it when the fact has none), else the rule's; when none says,
    ``ask`` is asked, and without an answer the figures are recorded and not read.

    ``restates`` names an earlier experiment this one tells again: its evidence supersedes
    that one's, so the finding counts once (every experiment verb takes it)."""
    note = scrub_text(note) if note else note
    change = scrub_text(change)  # the change is free text: API_KEY=… is no setting to keep
    runs = {seq: _measured(sessions, case_id, seq) for seq in (baseline_seq, variant_seq)}
    answers: dict[str, bool | None] = {}

    def decide(draft: Draft) -> ExperimentOutcome:
        projection = draft.projection
        baseline, variant = runs[baseline_seq], runs[variant_seq]
        check_pair(projection, baseline, variant)
        rule = reading_rule(sessions.registry, projection, change, baseline.probe, rule_id, tests)
        usual = tuple(
            dict.fromkeys(
                name
                for p in case_playbooks(sessions.registry, projection)
                for r in p.experiments
                if baseline.probe in r.probes
                for name in r.metric
            )
        )
        names = tuple(metric) or (rule.metric if rule is not None and rule.metric else usual)
        name, old, new = choose_metric(names, baseline, variant)
        found = _unit(name, baseline.facts) or unit
        settled = _settle(direction, found, rule, name, ask if rule else None, answers)
        higher = settled.higher_is_better if settled is not None else None
        event = triage.record_experiment(
            projection,
            change,
            baseline,
            variant,
            name,
            old,
            new,
            higher,
            found,
            note,
            tests,
            restates,
            rule_id,
        )
        return read_recorded(
            draft,
            event,
            rule,
            settled,
            nearest_to(sessions.registry, projection, change, rule, baseline.probe),
        )

    return _append_experiment(sessions, case_id, decide, who)


def record_reported_experiment(
    sessions: CaseSessions,
    case_id: str,
    change: str,
    probe: str | None,
    baseline_value: float,
    variant_value: float,
    *,
    metric: str | None = None,
    unit: str | None = None,
    rule_id: str | None = None,
    note: str | None = None,
    tests: Sequence[str] = (),
    direction: bool | None = None,
    ask: AskDirection | None = None,
    restates: str | None = None,
    who: Who = NOW,
) -> ExperimentOutcome:
    """Record an A/B whose figures a person states (a thread's "27 GB/s before, 48 after"),
    and the evidence of the rule that reads the change, as reported evidence; which way
    is better is settled as for :meth:`record_experiment`, from ``unit``. Without ``probe``,
    the figures are taken as measured the way the reading rule measures such a unit
    (:func:`measured_by`)."""
    answers: dict[str, bool | None] = {}
    note = scrub_text(note) if note else note
    change = scrub_text(change)  # the change is free text: API_KEY=… is no setting to keep
    if probe is not None and probe not in sessions.registry.all_probes():
        known = ", ".join(sorted(sessions.registry.all_probes()))
        hint = did_you_mean(probe, sessions.registry.all_probes())
        raise DomainError(f"no probe {probe!r}{hint} measured those figures (probes: {known})")

    def decide(draft: Draft) -> ExperimentOutcome:
        projection = draft.projection
        rule = reading_rule(sessions.registry, projection, change, probe, rule_id, tests)
        # the generic table compares no metric of its own: the rule knowing the change may
        knows = (
            rule
            if not tests
            else experiment_rule(sessions.registry, projection, change, probe, None)
        )
        by, figure = (
            (probe, stated_metric(knows, unit, probe) if knows is not None else None)
            if probe is not None
            else measured_by(knows, unit)
        )
        # figures no rule reads and nobody named are still recorded, named by their unit
        name = metric or figure or (knows.metric[0] if knows is not None else figure_name(unit))
        settled = _settle(direction, unit, rule, name, ask if rule else None, answers)
        higher = settled.higher_is_better if settled is not None else None
        event = triage.record_reported_experiment(
            projection,
            change,
            by,
            name,
            baseline_value,
            variant_value,
            higher,
            unit,
            note,
            tests,
            restates,
            rule_id,
            probe_inferred=probe is None,
        )
        return read_recorded(
            draft,
            event,
            rule,
            settled,
            nearest_to(sessions.registry, projection, change, rule, probe),
        )

    return _append_experiment(sessions, case_id, decide, who)


def record_stated_experiment(
    sessions: CaseSessions,
    case_id: str,
    change: str,
    outcome: str,
    *,
    probe: str | None = None,
    rule_id: str | None = None,
    note: str | None = None,
    tests: Sequence[str] = (),
    restates: str | None = None,
    who: Who = NOW,
) -> ExperimentOutcome:
    """Record an A/B a person states without figures ("fixed by that setting", "no
    slowdown since") and the verdict of the rule that reads the change — fixed or better
    is faster, same is same, worse is slower — as reported evidence."""
    if probe is not None and probe not in sessions.registry.all_probes():
        known = ", ".join(sorted(sessions.registry.all_probes()))
        hint = did_you_mean(probe, sessions.registry.all_probes())
        raise DomainError(f"no probe {probe!r}{hint} (probes: {known})")

    note = scrub_text(note) if note else note
    change = scrub_text(change)  # the change is free text: API_KEY=… is no setting to keep

    def decide(draft: Draft) -> ExperimentOutcome:
        rule = reading_rule(sessions.registry, draft.projection, change, probe, rule_id, tests)
        event = triage.record_stated_experiment(
            draft.projection, change, outcome, probe, note, tests, restates, rule_id
        )
        return read_recorded(
            draft,
            event,
            rule,
            None,
            nearest_to(sessions.registry, draft.projection, change, rule, probe),
        )

    return _append_experiment(sessions, case_id, decide, who)


#: a unit of bandwidth: figures a collective benchmark (nccl-tests' bus bandwidth) gives
_BANDWIDTH_UNIT = re.compile(r"^\s*[KMGT]i?B\s*/\s*s\s*$|^\s*[KMGT]bps\s*$|^\s*[KMGT]b/s\s*$", re.I)
#: the probes that time an application, in the order a reported figure is taken as theirs
_APPLICATION_PROBES = ("command", "app-log")


def measured_by(rule: ExperimentRule | None, unit: str | None) -> tuple[str, str | None]:
    """The probe (and metric, :func:`stated_metric`) reported figures are taken as measured
    by when no ``--probe`` says: a bandwidth where the rule reads a collective benchmark's,
    else the application's own figure (tokens/s, s/step) where the rule reads one, else the
    rule's first probe. A
    reported "40 -> 55 tok/s" for a serving switch is the server's throughput, not nccl-tests'
    bus bandwidth; with no rule, the application's command."""
    if rule is None:
        return _APPLICATION_PROBES[0], None
    if unit and _BANDWIDTH_UNIT.match(unit) and "nccl-tests" in rule.probes:
        return "nccl-tests", rule.metric[0]
    application = next((p for p in _APPLICATION_PROBES if p in rule.probes), None)
    if application is not None:
        own = [m for m in rule.metric if not m.startswith(("nccl.", "p2p."))]
        return application, stated_metric(rule, unit, application, own[0] if own else None)
    return rule.probes[0], stated_metric(rule, unit, rule.probes[0])


def stated_metric(
    rule: ExperimentRule, unit: str | None, probe: str, otherwise: str | None = None
) -> str:
    """What stated figures are called: a duration a ``time``; a rate or a bandwidth by the
    rule's first metric that names one (the application's own before a collective
    benchmark's, for an application's figures: ``throughput`` or ``tokens_per_s`` for
    tok/s, ``bandwidth.h2d`` for GB/s), else by its unit (``tokens_per_s``, ``bandwidth``,
    ``throughput``); with no unit, ``otherwise`` (else the rule's first metric); a ``figure``
    where the unit says neither way. "10 -> 5 s" is no throughput, and "10 -> 20 tok/s" no
    host-to-device bandwidth, whatever the rule compares first."""
    kind = figure_kind(unit)
    if kind is None:  # no unit: the rule's figure; one that says nothing: a figure
        return figure_name(unit) if (unit or "").strip() else otherwise or rule.metric[0]
    if kind == "time":
        return kind
    collective = ("nccl.", "p2p.") if probe in _APPLICATION_PROBES else ()
    mine = [m for m in rule.metric if not m.startswith(collective)]
    return next((m for m in (*mine, *rule.metric) if _fits(m, kind)), kind)


def _fits(metric: str, kind: str) -> bool:
    """Whether a rule's metric names figures of ``kind`` (:func:`figure_kind`): a bandwidth
    one that says so; a rate the rule's generic throughput or one counting the same things
    (``tokens_per_s`` is no name for samples/s)."""
    if kind == "bandwidth":
        return names_bandwidth(metric)
    counted = ("tokens_per_s", "samples_per_s", "it_per_s")
    return (
        name_direction(metric) is True
        and not names_bandwidth(metric)
        and (metric == kind or metric not in counted)
    )


def _append_experiment(
    sessions: CaseSessions, case_id: str, decide: Callable[[Draft], ExperimentOutcome], who: Who
) -> ExperimentOutcome:
    """Every experiment verb appends its record and the rule's evidence in one go, so a
    conflicting append retries the whole decision."""
    _, outcome = sessions.execute(case_id, decide, who)
    result: ExperimentOutcome = outcome
    return result


def _measured(sessions: CaseSessions, case_id: str, seq: int) -> Measured:
    """A probe run and the facts its observation parsed, read from the store."""
    projection = sessions.current(case_id, history=False)
    run = projection.probe_runs.get(seq)
    if run is None:
        raise DomainError(f"seq {seq} is not a probe run of case {case_id}")
    observation = next(
        (s for s, o in projection.observations.items() if o.get("probe_run_seq") == seq),
        None,
    )
    facts: list[Fact] = []
    if observation is not None:
        event = sessions.events(case_id, after=observation - 1, upto=observation)[0]
        facts = [fact.as_fact() for fact in StoredObservation(event.payload).facts]
    return Measured(seq, str(run["probe"]), str(run.get("host", "")), facts)


def _settle(
    stated: bool | None,
    unit: str | None,
    rule: ExperimentRule | None,
    metric: str,
    ask: AskDirection | None,
    answers: dict[str, bool | None],
) -> Direction | None:
    """Which way is better (see :func:`settle_direction`), else the person's answer; asked
    once per unit, so a retried append does not ask again."""
    settled = settle_direction(stated, unit, rule, metric)
    if settled is not None or ask is None:
        return settled
    subject = unit or metric
    if subject not in answers:
        answers[subject] = ask(subject)
    answer = answers[subject]
    return None if answer is None else Direction(answer, "asked")


def _unit(name: str, facts: Sequence[Fact]) -> str | None:
    for fact in facts:
        if fact.name == name:
            return fact.unit
    return "GB/s" if name.startswith(("nccl.busbw", "p2p.")) and "gain" not in name else None
