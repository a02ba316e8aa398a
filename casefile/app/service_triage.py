"""Intake and experiments: the verbs that turn what a responder knows or compared into evidence.

Both read the playbook a case's question was opened from (the version it was opened with), so
the likelihoods always come from a reviewed table, never from the person at the keyboard.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from casefile.app.draft import Draft
from casefile.app.who import NOW, Who
from casefile.domain import triage
from casefile.domain.events import NewEvent
from casefile.domain.experiments import Direction, named_rule, settle_direction
from casefile.domain.facts import Fact
from casefile.errors import DomainError, PluginError

if TYPE_CHECKING:
    from casefile.app.service_core import ServiceCore
    from casefile.app.views.rules import ExperimentRuleView
    from casefile.domain.beliefs import Projection
    from casefile.domain.experiments import ExperimentRule
    from casefile.domain.intake import IntakeQuestion, Known
    from casefile.domain.playbook import Playbook

    _Base = ServiceCore
else:
    _Base = object

#: Asks the person which way is better for a unit (or a metric with none): True for higher,
#: False for lower, None when they would not say. Only given where someone can answer.
AskDirection = Callable[[str], "bool | None"]


@dataclass(frozen=True)
class IntakeItem:
    """One intake question as the case stands: its answer in force, or one it already holds."""

    playbook: str
    id: str
    text: str
    answers: tuple[str, ...]
    help: str
    answer: str | None = None
    source: str | None = None  # answered / environment / observation
    known: Known | None = None  # an answer the case holds but has not recorded yet
    #: why a known answer is not recorded: a rule already counted the same fact
    counted_by: str | None = None
    #: what a recorded answer from the case's records rests on (``--env gpu-class=consumer``)
    basis: str | None = None


@dataclass(frozen=True)
class IntakeOutcome:
    """What answering recorded: (question, answer, where it came from) per evidence, and the
    questions whose answer was already in force or already counted by a probe's rule."""

    recorded: tuple[tuple[str, str, str, str], ...]  # question, answer, evidence id, source
    unchanged: tuple[str, ...]
    counted_elsewhere: tuple[tuple[str, str], ...]  # question, evidence id
    #: answers in force that a recorded one replaced: question → (old answer, its seq)
    replaced: Mapping[str, tuple[str, int]] = field(default_factory=dict)


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
    unit: str | None = None
    #: which way is better and what said so ("lower is better for s")
    direction: str | None = None
    #: the outcome a person stated in words (fixed / better / same / worse)
    stated: str | None = None


class TriageVerbs(_Base):
    """Intake questions and A/B experiments over the case's playbooks."""

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

    # --- intake ----------------------------------------------------------------------------

    def intake(self, case_id: str) -> list[IntakeItem]:
        """Every intake question of the case's playbooks, with its answer or a known one."""
        projection = self._current(case_id, history=False)
        return self._intake_items(case_id, projection)

    def _intake_items(self, case_id: str, projection: Projection) -> list[IntakeItem]:
        items = []
        facts = _LazyFacts(self, case_id, projection)
        for playbook in self.case_playbooks(projection):
            for question in playbook.intake:
                found = triage.active_answer(projection, question)
                if found is not None:
                    state = projection.evidence[found[0]]
                    said = state.payload_field("intake") or {}
                    item = _item(playbook, question, found[1], str(said.get("source", "answered")))
                    basis = said.get("basis")
                    items.append(replace(item, basis=str(basis)) if basis else item)
                    continue
                known = question.from_environment(projection.environment) or facts.known(question)
                counted = _counted_by(projection, playbook, known) if known else None
                items.append(_item(playbook, question, None, None, known, counted))
        return items

    def answer_intake(
        self, case_id: str, answers: Mapping[str, str], *, known: bool = True, who: Who = NOW
    ) -> IntakeOutcome:
        """Record answers (question id → answer) and, with ``known``, every answer the case
        already holds, in one append. An unknown question or answer refuses the lot."""

        def decide(draft: Draft) -> IntakeOutcome:
            projection = draft.projection
            items = {item.id: item for item in self._intake_items(case_id, projection)}
            playbooks = {p.ref: p for p in self.case_playbooks(projection)}
            if not items:
                raise DomainError(
                    "no intake questions: open a playbook that has them (casefile playbook "
                    "open CASE gpu-throughput)"
                )
            for qid in answers:
                if qid not in items:
                    raise DomainError(f"no intake question {qid!r} (questions: {', '.join(items)})")
            recorded: list[tuple[str, str, str, str]] = []
            unchanged: list[str] = []
            counted: list[tuple[str, str]] = []
            replaced: dict[str, tuple[str, int]] = {}
            for qid, item in items.items():
                question = playbooks[item.playbook].intake_question(qid)
                given: Known | None = None
                if qid in answers:
                    value = answers[qid]
                elif known and item.answer is None and item.known is not None:
                    if item.counted_by is not None:
                        counted.append((qid, item.counted_by))
                        continue
                    given = item.known
                    value = given.answer
                else:
                    continue
                before = triage.active_answer(draft.projection, question)
                event = triage.answer_intake(draft.projection, question, value, given)
                if event is None:
                    unchanged.append(qid)
                    continue
                if before is not None:
                    replaced[qid] = (before[1], draft.projection.evidence[before[0]].seq)
                draft.add(event)
                eid = str(event.payload["evidence_id"])
                recorded.append((qid, str(event.payload["outcome"]), eid, _source(given)))
            return IntakeOutcome(tuple(recorded), tuple(unchanged), tuple(counted), replaced)

        _, outcome = self._execute(case_id, decide, who)
        result: IntakeOutcome = outcome
        return result

    def _environment_answers(self, draft: Draft, playbook: Playbook) -> None:
        """The intake answers the case's ``--env`` gives, as the evidence ``casefile intake``
        records for them (source "environment"): added where a playbook is opened, so an
        ``--env`` answer counts from the start until an explicit answer supersedes it."""
        projection = draft.projection
        for question in playbook.intake:
            known = question.from_environment(projection.environment)
            if known is None or not any(
                projection.hypothesis_question.get(h) == question.rule.question
                for h in question.rule.likelihoods
            ):
                continue  # nothing given, or a table naming none of the case's hypotheses
            event = triage.answer_intake(projection, question, known.answer, known)
            if event is not None:
                draft.add(event)

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
                projection, change, baseline, variant, name, old, new, higher, found, note
            )
            seq = draft.add(_naming(event, tests))
            eid = str(event.payload["experiment_id"])
            return self._read_experiment(draft, rule, eid, seq, settled)

        _, outcome = self._execute(case_id, decide, who)
        result: ExperimentOutcome = outcome
        return result

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
                    "name the figure compared (--metric), or state a change a rule reads"
                )
            settled = _settle(direction, unit, rule, name, ask if rule else None, answers)
            higher = settled.higher_is_better if settled is not None else None
            event = triage.record_reported_experiment(
                projection, change, probe, name, baseline_value, variant_value, higher, unit, note
            )
            seq = draft.add(_naming(event, tests))
            eid = str(event.payload["experiment_id"])
            return self._read_experiment(draft, rule, eid, seq, settled)

        _, outcome = self._execute(case_id, decide, who)
        result: ExperimentOutcome = outcome
        return result

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

        def decide(draft: Draft) -> ExperimentOutcome:
            rule = self._reading_rule(draft.projection, change, probe, rule_id, tests)
            event = triage.record_stated_experiment(draft.projection, change, outcome, probe, note)
            seq = draft.add(_naming(event, tests))
            eid = str(event.payload["experiment_id"])
            return self._read_experiment(draft, rule, eid, seq, None)

        _, recorded = self._execute(case_id, decide, who)
        result: ExperimentOutcome = recorded
        return result

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
        unit = record.get("unit")
        if rule is None:
            unread = (
                "no rule of the case's playbook reads this change (--tests HYP names the "
                "hypotheses it tests)"
            )
        elif settled is None and "stated" not in record:
            said = f"unit {unit}" if unit else f"{record['metric']} (no unit)"
            unread = (
                f"{said} does not say whether higher is better: --direction higher|lower "
                "would let it be read"
            )
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
            raise DomainError("--tests reads the A/B by the generic table: drop --rule")
        named = tuple(dict.fromkeys(tests))
        unknown = [h for h in named if h not in projection.hypothesis_question]
        if unknown:
            known = ", ".join(projection.hypothesis_question) or "none yet"
            raise DomainError(
                f"--tests: no hypothesis {', '.join(map(repr, unknown))} in this case "
                f"(hypotheses: {known})"
            )
        questions = sorted({projection.hypothesis_question[h] for h in named})
        if len(questions) > 1:
            raise DomainError(
                f"--tests names hypotheses of {len(questions)} questions "
                f"({', '.join(questions)}): an A/B is read against one question's"
            )
        return named_rule(named, questions[0], probe)

    def _experiment_rule(
        self, projection: Projection, change: str, probe: str | None, rule_id: str | None
    ) -> ExperimentRule | None:
        """The rule named, else the first that reads ``change`` (for ``probe``, when one is
        named: an outcome stated in words may name none)."""
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
            if (probe is None or probe in rule.probes) and rule.matches(change):
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


class _LazyFacts:
    """Observation facts read from the store only for the probes that could answer intake."""

    def __init__(self, service: ServiceCore, case_id: str, projection: Projection) -> None:
        self.service = service
        self.case_id = case_id
        self.projection = projection
        self.cache: dict[int, list[Fact]] = {}

    def known(self, question: IntakeQuestion) -> Known | None:
        if not question.facts:
            return None
        wanted = {spec.fact for spec in question.facts}
        probes = self.service.registry.all_probes()
        from casefile.domain.beliefs.ranking import can_produce

        for seq in sorted(self.projection.observations, reverse=True):
            stub = self.projection.observations[seq]
            if (stub.get("conditions") or {}).get("setup"):
                continue  # another setup's facts do not describe the case's system
            probe = probes.get(str(stub.get("probe")))
            if (
                probe is not None
                and probe.facts
                and not any(can_produce(probe.facts, name) for name in wanted)
            ):
                continue
            found = question.from_facts(seq, self._facts(seq))
            if found is not None:
                return found
        return None

    def _facts(self, seq: int) -> list[Fact]:
        if seq not in self.cache:
            event = self.service.events(self.case_id, after=seq - 1, upto=seq)[0]
            self.cache[seq] = [Fact.from_dict(f) for f in event.payload.get("facts", [])]
        return self.cache[seq]


def _counted_by(projection: Projection, playbook: Playbook, known: Known) -> str | None:
    """The evidence that already counted the fact a known answer rests on, if any: the same
    reading is never counted twice, once by a probe's rule and again as an answer."""
    if known.observation_seq is None or known.fact is None:
        return None
    reads = {rule.id for rule in playbook.rules if known.fact in rule.reads}
    for state in projection.evidence.values():
        rule: dict[str, Any] | None = state.rule
        if (
            state.active
            and state.observation_seq == known.observation_seq
            and rule is not None
            and rule.get("id") in reads
        ):
            return state.id
    return None


def _item(
    playbook: Playbook,
    question: IntakeQuestion,
    answer: str | None,
    source: str | None,
    known: Known | None = None,
    counted_by: str | None = None,
) -> IntakeItem:
    return IntakeItem(
        playbook.ref,
        question.id,
        question.text,
        question.answers,
        question.help,
        answer,
        source,
        known,
        counted_by,
    )


def _naming(event: NewEvent, tests: Sequence[str]) -> NewEvent:
    """The experiment's event with the hypotheses it was named as testing, if any."""
    if not tests:
        return event
    return NewEvent(event.type, {**event.payload, "tests": list(dict.fromkeys(tests))})


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


def _source(known: Known | None) -> str:
    return "answered" if known is None else known.source


def _unit(name: str, facts: Sequence[Fact]) -> str | None:
    for fact in facts:
        if fact.name == name:
            return fact.unit
    return "GB/s" if name.startswith(("nccl.busbw", "p2p.")) and "gain" not in name else None
