"""Keeping A/B readings in step with the answers, so the order of an answer and an A/B does
not change what the case ends on.

Which rule reads an A/B depends on the case's answers: "CUDA_VISIBLE_DEVICES=0" is fewer GPUs
on a job that uses several and a device chosen on a one-GPU job (a rule an answer in force
rules out does not read), and after an upgrade a slowdown under a version change is read as
the trouble as it happened (``runs_back``). An A/B is read under the answers in force when it
is recorded; an answer given later used to leave that reading as it was, so a case answered
first and the same case answered last ended apart.

So whenever the answers change, each finding whose reader the playbook chose is read again as
recording its tellings now would read it. A finding is an A/B and the retellings of it
(``--restates``): the latest telling a rule reads counts, unless an earlier one was measured
and a rule reads that (a person's account of figures the case measured adds nothing). Where
that differs from the evidence in force (another rule, another outcome, other numbers, another
telling), evidence with today's reading supersedes it; where no rule reads any telling now,
evidence that weighs nothing does (a withdrawal, as for a probe rule's reading); where nothing
read it and a rule does now, it is read. Every such event holds the numbers it applies, so
replay needs no rule. Reported figures whose probe the reading rule chose are taken, read
again, as measured by the probe the new rule would choose (its noise margin is that probe's).

Figures with no unit recorded while no rule read them have no direction; read again, they take
the new reader's, as recording them then would have. A telling whose reader a person named
(``--rule``, or the hypotheses it tests, ``--tests``) keeps that reader; only which telling
counts may change. Left as they are: a finding no telling of which the playbook chose the
reader of; one with a telling recorded before casefile kept who chose (``chosen``); a telling
whose direction nothing gives; and a finding whose evidence a person re-assessed by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from casefile.app.experiment_reading import chosen_rule, tested_rule
from casefile.app.experiments import measured_by
from casefile.domain import triage
from casefile.domain.better_way import settle_direction
from casefile.domain.event_types.evidence import EvidenceAssessed, IntakeWithdrawal
from casefile.domain.premises import withdrawing
from casefile.domain.reading_scope import SCOPE
from casefile.domain.units import figure_name
from casefile.errors import DomainError

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
    """A finding read again because the answers changed which rule reads it, or how."""

    experiment_id: str
    #: the reading in force before (``fewer-gpus 'faster'``), or None where none counted
    before: str | None
    #: the reading now, or None where no rule reads it now
    now: str | None
    #: why, in the answers' words (``gpu-count = one (seq 29) rules fewer-gpus out``)
    because: str
    evidence_id: str

    @property
    def said(self) -> str:
        """The line the front ends show: ``A/B x2 read again: visible-devices 'faster', not
        fewer-gpus 'faster' (gpu-count = one (seq 29) rules fewer-gpus out)``."""
        if self.now is None:
            return f"A/B {self.experiment_id}: {self.before} withdrawn ({self.because})"
        if self.before is None:
            return f"A/B {self.experiment_id} read: {self.now} ({self.because})"
        return (
            f"A/B {self.experiment_id} read again: {self.now}, not {self.before} ({self.because})"
        )


@dataclass(frozen=True)
class _Reading:
    """A telling as a rule reads it now."""

    experiment_id: str
    rule: ExperimentRule
    event: NewEvent


def reread_experiments(draft: Draft, playbooks: Iterable[Playbook]) -> list[Reread]:
    """Draft the evidence that brings each finding whose reader the playbook chose in step
    with the answers in force now."""
    rules = [rule for playbook in playbooks for rule in playbook.experiments]
    recorded = draft.projection.experiments
    if not rules or not recorded:
        return []
    by_ref = {(f"{_RULE_PREFIX}{r.id}", r.version): r for r in rules}
    firsts = _first_readings(draft.projection)
    done: list[Reread] = []
    for tellings in _findings(recorded):
        if not any(recorded[t].get("chosen") for t in tellings) or not all(
            _kept(recorded[t]) for t in tellings
        ):
            continue  # no reader the playbook chose, or one recorded before who chose was kept
        head = _in_force(draft.projection, tellings, firsts)
        if head is True:
            continue  # a person re-assessed it
        wanted = _wanted(draft.projection, rules, [recorded[t] for t in tellings])
        held = _reader(head, by_ref)
        event = _bring_in_step(draft.projection, tellings[0], head, wanted, held)
        if event is None:
            continue
        draft.add(event)
        done.append(_said(draft.projection, tellings[0], head, event, held, wanted))
    return done


def _kept(record: Mapping[str, Any]) -> bool:
    """Whether the record says who chose its reader: the playbook, or a person (a rule or the
    hypotheses it tests named)."""
    return bool(record.get("chosen") or record.get("named_rule") or record.get("tests"))


def _findings(recorded: Mapping[str, Mapping[str, Any]]) -> list[list[str]]:
    """The case's A/Bs grouped by finding: each with its retellings, in the order recorded."""
    root: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for eid, record in recorded.items():
        told = record.get("restates")
        first = root.get(str(told), str(told)) if told is not None else eid
        root[eid] = first
        groups.setdefault(first, []).append(eid)
    return list(groups.values())


def _wanted(
    projection: Projection, rules: Sequence[ExperimentRule], tellings: Sequence[Mapping[str, Any]]
) -> _Reading | None:
    """How recording the tellings now would leave the finding read: the latest telling a rule
    reads, unless an earlier measured telling is read (then that one stands)."""
    counting: _Reading | None = None
    measured = False
    for record in tellings:
        reading = _read_now(projection, rules, record)
        if reading is None:
            continue
        if counting is not None and measured and record.get("reported"):
            continue  # an account of figures the case measured adds nothing
        counting = reading
        measured = measured or not record.get("reported")
    return counting


def _read_now(
    projection: Projection, rules: Sequence[ExperimentRule], record: Mapping[str, Any]
) -> _Reading | None:
    """One telling as its reader reads it now: the rule the answers choose, or the one a
    person named (or the generic table for the hypotheses they named); None where none does."""
    probe = None if record.get("probe_inferred") else record.get("probe")
    rule = _named_reader(projection, rules, record, probe)
    if rule is None and record.get("chosen"):
        rule = chosen_rule(rules, projection, str(record["change"]), probe)
    if rule is None:
        return None
    telling = dict(record)
    if record.get("speedup") is None and record.get("stated") is None:
        # figures with no unit whose direction no rule gave when recorded: the rule's now
        # a metric the person chose weighs (the rule's direction is its own metric's); the
        # label unread figures were given by their unit alone was no one's choice
        metric = record.get("metric")
        chosen = metric if metric != figure_name(record.get("unit")) else None
        settled = settle_direction(None, record.get("unit"), rule, chosen)
        if settled is None or record.get("baseline_value") is None:
            return None  # nothing says which way is better: never read
        higher = settled.higher_is_better
        speedup = triage.speedup_of(record["baseline_value"], record["variant_value"], higher)
        telling.update(speedup=speedup, higher_is_better=higher)
    if record.get("probe_inferred"):  # the figures' probe was the reading rule's choice
        telling["probe"] = measured_by(rule, record.get("unit"))[0]
    event = triage.evidence_from_experiment(projection, rule, telling)
    return None if event is None else _Reading(str(record["experiment_id"]), rule, event)


def _named_reader(
    projection: Projection,
    rules: Sequence[ExperimentRule],
    record: Mapping[str, Any],
    probe: str | None,
) -> ExperimentRule | None:
    """The reader a person chose for a telling, as recording it chose it; None where the
    playbook chooses, or the named rule or hypotheses are not in the case any more."""
    named, tests = record.get("named_rule"), record.get("tests")
    if named:
        return next((rule for rule in rules if rule.id == named), None)
    if tests:
        try:
            return tested_rule(projection, [str(h) for h in tests], probe)
        except DomainError:  # a hypothesis named then is no longer in the case
            return None
    return None


def _first_readings(projection: Projection) -> dict[str, EvidenceState]:
    """Each A/B's first reading, in one pass over the evidence."""
    firsts: dict[str, EvidenceState] = {}
    for evidence in projection.evidence.values():
        eid = evidence.experiment_id
        if eid is not None and eid not in firsts:
            firsts[eid] = evidence
    return firsts


def _in_force(
    projection: Projection, tellings: Sequence[str], firsts: Mapping[str, EvidenceState]
) -> EvidenceState | bool | None:
    """The finding's evidence in force, at the end of its chain of readings, retellings and
    withdrawals (None: never read); True where a person superseded it."""
    read = [firsts[t] for t in tellings if t in firsts]
    node = min(read, key=lambda e: e.seq) if read else None
    while node is not None and node.superseded_by is not None:
        newer = projection.evidence[node.superseded_by]
        if newer.experiment_id not in tellings and not _withdrawn_here(newer):
            return True
        node = newer
    return node


def _withdrawn_here(evidence: EvidenceState) -> bool:
    """Whether ``evidence`` is a withdrawal of an A/B reading (a scope withdrawal keeping no
    requirements, so reading_scope never restores it)."""
    said = evidence.payload_field("withdraws")
    if not isinstance(said, dict) or said.get("because") != SCOPE or said.get("requires"):
        return False
    return str(said.get("id", "")).startswith(_RULE_PREFIX)


def _reader(
    head: EvidenceState | bool | None, by_ref: Mapping[tuple[str, int], ExperimentRule]
) -> ExperimentRule | None:
    rule = head.rule if not isinstance(head, bool) and head is not None else None
    if not rule:
        return None
    return by_ref.get((str(rule.get("id")), int(rule.get("version", 0))))


def _bring_in_step(
    projection: Projection,
    finding: str,
    head: EvidenceState | bool | None,
    wanted: _Reading | None,
    held: ExperimentRule | None,
) -> NewEvent | None:
    """The event that makes the finding's evidence in force what it would be now, or None
    where it already is."""
    current = head if not isinstance(head, bool) and head is not None else None
    counting = current is not None and not _withdrawn_here(current)
    if wanted is None:
        if current is None or not counting:
            return None
        because = _out(projection, held, finding)
        return withdrawing(
            projection,
            current.id,
            f"The reading of A/B {current.experiment_id} ({current.outcome!r}, evidence "
            f"{current.id}) no longer holds: {because}.",
            IntakeWithdrawal(
                id=str((current.rule or {}).get("id", "experiment")),
                answer=str(current.outcome),
                because=SCOPE,
                reason=because,
            ),
        )
    read = EvidenceAssessed.of(wanted.event.payload)
    if counting and current is not None and _same(current, read):
        return None
    why = _why(projection, held, wanted.rule)
    return replace(
        wanted.event,
        payload={
            **wanted.event.payload,
            "supersedes": None if current is None else current.id,
            "rationale": f"Read under the answers in force ({why}). {read.rationale}",
        },
    )


def _same(head: EvidenceState, read: EvidenceAssessed) -> bool:
    """Whether the evidence in force already applies what reading the finding now would."""
    rule = head.rule or {}
    return (
        head.experiment_id == read.experiment_id
        and read.rule is not None
        and (rule.get("id"), rule.get("version")) == (read.rule.id, read.rule.version)
        and head.outcome == read.outcome
        and head.likelihoods == read.likelihoods
        and head.otherwise == read.otherwise
        and head.reliability == read.reliability
    )


def _out(projection: Projection, held: ExperimentRule | None, finding: str) -> str:
    """Why no rule reads a finding now: the answer that rules its reader out."""
    ruled = _ruled_out(projection, held)
    if ruled is not None and held is not None:
        return f"{ruled} rules {held.id} out of A/B {finding}, and no other rule reads it"
    return f"no rule reads A/B {finding} under the answers in force"


def _ruled_out(projection: Projection, rule: ExperimentRule | None) -> str | None:
    """The answer in force that rules ``rule`` out, as ``gpu-count = one (seq 29)``."""
    if rule is None or not rule.rule.requires:
        return None
    question = projection.questions.get(rule.rule.question)
    return None if question is None else question.contradiction(rule.rule.requires)


def _let(projection: Projection, rule: ExperimentRule) -> str | None:
    """The answers in force that a rule's reading rests on, as ``gpu-count = several (seq
    40)``: its requirements, and the answer its A/B runs back under."""
    question = projection.questions.get(rule.rule.question)
    if question is None:
        return None
    asked = [q for q, _ in rule.rule.requires]
    if rule.runs_back is not None:
        asked.append(rule.runs_back[0])
    held = [
        f"{q} = {question.answers[q][0]} (seq {question.answers[q][1]})"
        for q in dict.fromkeys(asked)
        if q in question.answers
    ]
    return ", ".join(held) or None


def _why(projection: Projection, held: ExperimentRule | None, rule: ExperimentRule) -> str:
    """What the answers say that makes ``rule`` the reader now, in their words."""
    out = _ruled_out(projection, held)
    if held is not None and held.id != rule.id and out is not None:
        return f"{out} rules {held.id} out"
    let = _let(projection, rule)
    if let is not None:
        return f"{let}: {rule.id} reads it so"
    return f"no answer in force rules {rule.id} out"


def _said(
    projection: Projection,
    finding: str,
    head: EvidenceState | bool | None,
    event: NewEvent,
    held: ExperimentRule | None,
    wanted: _Reading | None,
) -> Reread:
    added = EvidenceAssessed.of(event.payload)
    current = head if not isinstance(head, bool) and head is not None else None
    before = None
    if current is not None and not _withdrawn_here(current) and current.rule:
        before = f"{str(current.rule.get('id')).removeprefix(_RULE_PREFIX)} {current.outcome!r}"
        if current.experiment_id != finding:
            before += f" (as told in {current.experiment_id})"
    if added.withdraws is not None or wanted is None:
        reason = added.withdraws.reason if added.withdraws is not None else ""
        return Reread(finding, before, None, reason, added.evidence_id)
    now = f"{wanted.rule.id} {added.outcome!r}"
    if wanted.experiment_id != finding:
        now += f" (as told in {wanted.experiment_id})"
    return Reread(finding, before, now, _why(projection, held, wanted.rule), added.evidence_id)
