"""A/B experiments: the verbs that read what one change did as evidence.

An experiment is read by the playbook the case's question was opened from (the version it was
opened with), or by the generic table when the person names the hypotheses it tests; which
way is better comes from the figures' unit, ``--direction``, the rule, or the person asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casefile.app.draft import Draft
from casefile.app.recording import scrub_text
from casefile.app.who import NOW, Who
from casefile.domain import triage
from casefile.domain.events import NewEvent
from casefile.domain.experiments import Direction, named_rule, settle_direction
from casefile.domain.facts import Fact
from casefile.errors import DomainError, PluginError, Remedy

if TYPE_CHECKING:
    from casefile.app.service_core import ServiceCore
    from casefile.app.views.rules import ExperimentRuleView
    from casefile.domain.beliefs import Projection
    from casefile.domain.experiments import ExperimentRule
    from casefile.domain.playbook import Playbook

    _Base = ServiceCore
else:
    _Base = object

#: Asks the person which way is better for a unit (or a metric with none): True for higher,
#: False for lower, None when they would not say. Only given where someone can answer.
AskDirection = Callable[[str], "bool | None"]


@dataclass(frozen=True)
class ExperimentOutcome:
    experiment_id: str
    seq: int
    change: str
    #: the figures compared; None for an outcome stated in words
    metric: str | None
    baseline_value: float | None
    variant_value: float | None
    #: how much better the variant did; None when nothing said which way is better
    speedup: float | None
    rule_id: str | None
    outcome: str | None
    evidence_id: str | None
    #: why no rule read it (no rule knows the change, its hypotheses are not in the case, or
    #: nothing said which way is better)
    unread: str | None = None
    #: what would let it be read (an option each front end names as its own control)
    unread_remedy: Remedy | None = None
    unit: str | None = None
    #: which way is better and what said so ("lower is better for s")
    direction: str | None = None
    #: the outcome a person stated in words (fixed / better / same / worse)
    stated: str | None = None


class ExperimentVerbs(_Base):
    """A/B experiments over the case's playbooks."""

    def case_playbooks(self, projection: Projection) -> list[Playbook]:
        """The playbook versions the case's questions were opened from (installed ones)."""
        out: list[Playbook] = []
        for question in projection.questions.values():
            if question.playbook is None:
                continue
            try:
                playbook = self.registry.playbook(question.playbook)
            except PluginError:
                continue  # opened from a playbook this installation does not have
            if playbook.question_id == question.id and playbook not in out:
                out.append(playbook)
        return out

    # --- experiments -------------------------------------------------------------------------

    def experiment_rules(self, case_id: str) -> list[ExperimentRule]:
        projection = self._current(case_id, history=False)
        return [rule for p in self.case_playbooks(projection) for rule in p.experiments]

    def experiment_rule_list(self, case_id: str) -> list[ExperimentRuleView]:
        """The experiment rules of the case's playbooks, as a responder reads them."""
        from casefile.app.views.rules import experiment_rule_views

        projection = self._current(case_id, history=False)
        return experiment_rule_views(self.case_playbooks(projection))

    def record_experiment(
        self,
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
        who: Who = NOW,
    ) -> ExperimentOutcome:
        """Record an A/B of one benchmark and, when a rule of the case's playbook reads the
        stated change, the evidence its verdict gives — in one append.

        Which way is better: ``direction`` (True: higher) if given, else the compared fact's
        unit (``unit`` names it when the fact has none), else the rule's; when none says,
        ``ask`` is asked, and without an answer the figures are recorded and not read."""
        note = scrub_text(note) if note else note
        change = scrub_text(change)  # the change is free text: API_KEY=… is no setting to keep
        runs = {seq: self._measured(case_id, seq) for seq in (baseline_seq, variant_seq)}
        answers: dict[str, bool | None] = {}

        def decide(draft: Draft) -> ExperimentOutcome:
            projection = draft.projection
            baseline, variant = runs[baseline_seq], runs[variant_seq]
            triage.check_pair(projection, baseline, variant)
            rule = self._reading_rule(projection, change, baseline.probe, rule_id, tests)
            usual = tuple(
                dict.fromkeys(
                    name
                    for p in self.case_playbooks(projection)
                    for r in p.experiments
                    if baseline.probe in r.probes
                    for name in r.metric
                )
            )
            names = tuple(metric) or (rule.metric if rule is not None and rule.metric else usual)
            name, old, new = triage.choose_metric(names, baseline, variant)
            found = _unit(name, baseline.facts) or unit
            settled = _settle(direction, found, rule, name, ask if rule else None, answers)
            higher = settled.higher_is_better if settled is not None else None
            event = triage.record_experiment(
                projection, change, baseline, variant, name, old, new, higher, found, note, tests
            )
            return self._read_recorded(draft, event, rule, settled)

        return self._append_experiment(case_id, decide, who)

    def record_reported_experiment(
        self,
        case_id: str,
        change: str,
        probe: str,
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
        who: Who = NOW,
    ) -> ExperimentOutcome:
        """Record an A/B whose figures a person states (a thread's "27 GB/s before, 48 after"),
        and the evidence of the rule that reads the change, as reported evidence; which way
        is better is settled as for :meth:`record_experiment`, from ``unit``."""
        answers: dict[str, bool | None] = {}
        note = scrub_text(note) if note else note
        change = scrub_text(change)  # the change is free text: API_KEY=… is no setting to keep
        if probe not in self.registry.all_probes():
            known = ", ".join(sorted(self.registry.all_probes()))
            raise DomainError(f"no probe {probe!r} measured those figures (probes: {known})")

        def decide(draft: Draft) -> ExperimentOutcome:
            projection = draft.projection
            rule = self._reading_rule(projection, change, probe, rule_id, tests)
            # the generic table compares no metric of its own: the rule knowing the change may
            knows = rule if not tests else self._experiment_rule(projection, change, probe, None)
            name = metric or (knows.metric[0] if knows is not None else None)
            if name is None:
                raise DomainError(
                    "name the figure compared, or state a change a rule reads",
                    remedy=triage.NAME_THE_METRIC,
                )
            settled = _settle(direction, unit, rule, name, ask if rule else None, answers)
            higher = settled.higher_is_better if settled is not None else None
            event = triage.record_reported_experiment(
                projection,
                change,
                probe,
                name,
                baseline_value,
                variant_value,
                higher,
                unit,
                note,
                tests,
            )
            return self._read_recorded(draft, event, rule, settled)

        return self._append_experiment(case_id, decide, who)

    def record_stated_experiment(
        self,
        case_id: str,
        change: str,
        outcome: str,
        *,
        probe: str | None = None,
        rule_id: str | None = None,
        note: str | None = None,
        tests: Sequence[str] = (),
        who: Who = NOW,
    ) -> ExperimentOutcome:
        """Record an A/B a person states without figures ("fixed by that setting", "no
        slowdown since") and the verdict of the rule that reads the change — fixed or better
        is faster, same is same, worse is slower — as reported evidence."""
        if probe is not None and probe not in self.registry.all_probes():
            known = ", ".join(sorted(self.registry.all_probes()))
            raise DomainError(f"no probe {probe!r} (probes: {known})")

        note = scrub_text(note) if note else note
        change = scrub_text(change)  # the change is free text: API_KEY=… is no setting to keep

        def decide(draft: Draft) -> ExperimentOutcome:
            rule = self._reading_rule(draft.projection, change, probe, rule_id, tests)
            event = triage.record_stated_experiment(
                draft.projection, change, outcome, probe, note, tests
            )
            return self._read_recorded(draft, event, rule, None)

        return self._append_experiment(case_id, decide, who)

    def _append_experiment(
        self, case_id: str, decide: Callable[[Draft], ExperimentOutcome], who: Who
    ) -> ExperimentOutcome:
        """Every experiment verb appends its record and the rule's evidence in one go, so a
        conflicting append retries the whole decision."""
        _, outcome = self._execute(case_id, decide, who)
        result: ExperimentOutcome = outcome
        return result

    def _read_recorded(
        self,
        draft: Draft,
        event: NewEvent,
        rule: ExperimentRule | None,
        settled: Direction | None,
    ) -> ExperimentOutcome:
        """The experiment's event added, then read by the rule."""
        seq = draft.add(event)
        eid = str(event.payload["experiment_id"])
        return self._read_experiment(draft, rule, eid, seq, settled)

    def _read_experiment(
        self,
        draft: Draft,
        rule: ExperimentRule | None,
        experiment_id: str,
        seq: int,
        settled: Direction | None,
    ) -> ExperimentOutcome:
        """The rule's verdict on a recorded experiment, added to the draft if there is one."""
        record = draft.projection.experiments[experiment_id]
        evidence = None
        unread = None
        remedy = None
        unit = record.get("unit")
        if rule is None:
            unread = (
                "no rule of the case's playbook reads this change; naming the hypotheses it "
                "tests would let the generic table read it"
            )
            remedy = Remedy("names them (HYP[,HYP…])", "tests")
        elif settled is None and "stated" not in record:
            said = f"unit {unit}" if unit else f"{record['metric']} (no unit)"
            unread = (
                f"{said} does not say whether higher is better; saying which way is would let "
                "it be read"
            )
            remedy = Remedy("says it (higher or lower)", "direction")
        else:
            evidence = triage.evidence_from_experiment(draft.projection, rule, record)
            if evidence is None:
                unread = f"rule {rule.rule.id}: none of its hypotheses are in this case"
            else:
                draft.add(evidence)
        return ExperimentOutcome(
            experiment_id=experiment_id,
            seq=seq,
            change=str(record["change"]),
            metric=record.get("metric"),
            baseline_value=record.get("baseline_value"),
            variant_value=record.get("variant_value"),
            speedup=float(record["speedup"]) if "speedup" in record else None,
            rule_id=rule.rule.id if rule is not None and evidence is not None else None,
            outcome=str(evidence.payload["outcome"]) if evidence is not None else None,
            evidence_id=str(evidence.payload["evidence_id"]) if evidence else None,
            unread=unread,
            unread_remedy=remedy,
            unit=str(unit) if unit else None,
            direction=settled.describe(unit) if settled is not None else None,
            stated=record.get("stated"),
        )

    def _reading_rule(
        self,
        projection: Projection,
        change: str,
        probe: str | None,
        rule_id: str | None,
        tests: Sequence[str],
    ) -> ExperimentRule | None:
        """The rule that reads an A/B: the generic table when it is named as a test of some
        hypotheses (``--tests``, whatever rule knows the change), else the playbook's."""
        if not tests:
            return self._experiment_rule(projection, change, probe, rule_id)
        if rule_id is not None:
            raise DomainError(
                "an A/B named as a test of hypotheses is read by the generic table: a rule "
                "cannot be chosen as well"
            )
        named = tuple(dict.fromkeys(tests))
        unknown = [h for h in named if h not in projection.hypothesis_question]
        if unknown:
            known = ", ".join(projection.hypothesis_question) or "none yet"
            raise DomainError(
                f"the hypotheses tested: no hypothesis {', '.join(map(repr, unknown))} in this "
                f"case (hypotheses: {known})"
            )
        questions = sorted({projection.hypothesis_question[h] for h in named})
        if len(questions) > 1:
            raise DomainError(
                f"the hypotheses tested belong to {len(questions)} questions "
                f"({', '.join(questions)}): an A/B is read against one question's"
            )
        return named_rule(named, questions[0], probe)

    def _experiment_rule(
        self, projection: Projection, change: str, probe: str | None, rule_id: str | None
    ) -> ExperimentRule | None:
        """The rule named, else the first that reads ``change`` (for ``probe``, when one is
        named: an outcome stated in words may name none) and that no answer in force rules
        out (its ``requires``)."""
        rules = [r for p in self.case_playbooks(projection) for r in p.experiments]
        if rule_id is not None:
            for rule in rules:
                if rule.id == rule_id:
                    if probe is not None and probe not in rule.probes:
                        raise DomainError(
                            f"experiment rule {rule_id} reads {', '.join(rule.probes)}, not {probe}"
                        )
                    return rule
            known = ", ".join(r.id for r in rules) or "none"
            raise DomainError(f"no experiment rule {rule_id!r} (rules: {known})")
        for rule in rules:
            question = projection.questions.get(rule.rule.question)
            answers = {} if question is None else {k: a for k, (a, _) in question.answers.items()}
            if (
                (probe is None or probe in rule.probes)
                and rule.rule.suggested_under(
                    answers
                )  # "6x -> 1x" on a one-GPU case: not fewer-gpus
                and rule.matches(change)
            ):
                return rule
        return None

    def _measured(self, case_id: str, seq: int) -> triage.Measured:
        """A probe run and the facts its observation parsed, read from the store."""
        projection = self._current(case_id, history=False)
        run = projection.probe_runs.get(seq)
        if run is None:
            raise DomainError(f"seq {seq} is not a probe run of case {case_id}")
        observation = next(
            (s for s, o in projection.observations.items() if o.get("probe_run_seq") == seq),
            None,
        )
        facts: list[Fact] = []
        if observation is not None:
            event = self.events(case_id, after=observation - 1, upto=observation)[0]
            facts = [Fact.from_dict(f) for f in event.payload.get("facts", [])]
        return triage.Measured(seq, str(run["probe"]), str(run.get("host", "")), facts)


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
    settled = settle_direction(stated, unit, rule)
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
