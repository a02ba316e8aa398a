"""Which rule reads an A/B and what it makes of it.

An A/B is read by the playbook the case's question was opened from (the version it was opened
with), or by the generic table when the person names the hypotheses its change tests; a rule
whose hypotheses an answer in force rules out does not read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casefile.app.candidates import case_playbooks
from casefile.domain import triage
from casefile.domain.effect_size import share_words
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.event_types.experiment import ExperimentRecorded
from casefile.domain.experiments import named_rule
from casefile.domain.gpu_counts import only_gpu_count
from casefile.domain.nearest_rules import Nearness, nearest_rules
from casefile.domain.reading_scope import out_of_scope
from casefile.domain.repeats import earlier_telling
from casefile.domain.retelling import measured_telling_stands
from casefile.errors import DomainError, Remedy

if TYPE_CHECKING:
    from casefile.app.draft import Draft
    from casefile.domain.beliefs import Projection
    from casefile.domain.better_way import Direction
    from casefile.domain.events import NewEvent
    from casefile.domain.experiments import ExperimentRule
    from casefile.plugins import Registry


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
    #: the earlier experiment this one tells again, and the evidence of it this one's replaced
    restates: str | None = None
    superseded: str | None = None
    #: an earlier A/B of the same change that this one does not say it retells: one finding
    #: may be counting twice (see :func:`casefile.domain.repeats.earlier_telling`)
    same_change: str | None = None
    #: a difference inside the noise margin read between "same" and the outcome it leans to
    #: (see :mod:`casefile.domain.experiment_outcome`): that outcome and its share
    leaning: tuple[str, float] | None = None
    #: where the rule reads its size, how far it read as a large effect (0: modest, as any
    #: reading inside the margin is; 1: large; see :mod:`casefile.domain.effect_size`)
    large: float | None = None
    #: where no rule reads the change, the rules its words are nearest to: a hint for
    #: ``--rule``, never evidence (:mod:`casefile.domain.nearest_rules`)
    nearest: tuple[Nearness, ...] = ()

    def read_as(self) -> str:
        """The outcome as read, with its lean where it has one ("same, leaning to 'slower'
        (42 %)") and its tier where the rule reads sizes ("faster (large)")."""
        if self.leaning is not None:
            to, share = self.leaning
            tier = ", its modest tier" if self.large is not None else ""
            return f"{self.outcome}, leaning to {to!r} ({share:.0%}{tier})"
        if self.large is None:
            return str(self.outcome)
        if self.large in (0.0, 1.0):
            return f"{self.outcome} ({'large' if self.large else 'modest'})"
        return f"{self.outcome} ({share_words(self.large)} large)"


def read_recorded(
    draft: Draft,
    event: NewEvent,
    rule: ExperimentRule | None,
    settled: Direction | None,
    nearest: tuple[Nearness, ...] = (),
) -> ExperimentOutcome:
    """The experiment's event added, then read by the rule (``nearest``: where there is
    none, the rules its words are nearest to)."""
    seq = draft.add(event)
    eid = ExperimentRecorded.of(event.payload).experiment_id
    return read_experiment(draft, rule, eid, seq, settled, nearest)


def nearest_to(
    registry: Registry,
    projection: Projection,
    change: str,
    rule: ExperimentRule | None,
    probe: str | None = None,
) -> tuple[Nearness, ...]:
    """Where no rule reads ``change``, the case's experiment rules its words are nearest to,
    among those no answer in force rules out: a hint toward a rule the answers leave out
    would, taken up with ``--rule``, read the A/B by a rule that cannot apply. Where rules
    read the change for ``probe`` and the answers rule out every one of them, the first, with
    the answer: that is the reason, and no hint is. A rule left out by the probe alone blames
    no answer."""
    if rule is not None:
        return ()
    every = _case_rules(registry, projection)
    readers = [r for r in every if (probe is None or probe in r.probes) and r.matches(change)]
    reasons = [out_of_scope(projection, r.rule.question, r.rule.requires) for r in readers]
    if readers and all(reason is not None for reason in reasons):
        reader, reason = readers[0], reasons[0]
        return (Nearness(reader.id, (), ruled_out=reason, needs=_requirement(reader)),)
    return nearest_rules([r for r in every if _not_ruled_out(r, projection)], change)


def _requirement(rule: ExperimentRule) -> str:
    """What a rule needs, as a reader says it: ``gpu-count is several``."""
    return " and ".join(
        f"{intake} is {' or '.join(allowed)}" for intake, allowed in rule.rule.requires
    )


def _case_rules(registry: Registry, projection: Projection) -> list[ExperimentRule]:
    """The experiment rules of the playbooks the case's questions were opened from."""
    return [r for p in case_playbooks(registry, projection) for r in p.experiments]


def nearest_words(nearest: Sequence[Nearness]) -> str:
    """``host-sync ('item', 'removing') or cuda-graphs ('compiling')``."""
    return " or ".join(
        f"{near.rule_id} ({', '.join(repr(w) for w in near.words)})" for near in nearest
    )


def read_experiment(
    draft: Draft,
    rule: ExperimentRule | None,
    experiment_id: str,
    seq: int,
    settled: Direction | None,
    nearest: tuple[Nearness, ...] = (),
) -> ExperimentOutcome:
    """The rule's verdict on a recorded experiment, added to the draft if there is one."""
    record = draft.projection.experiments[experiment_id]
    evidence = None
    unread = None
    remedy = None
    leaning = large = None
    unit = record.get("unit")
    if rule is None and not any(q.playbook for q in draft.projection.questions.values()):
        unread = (
            "the case has no playbook, so no rule reads a change; open one (playbook open "
            f"{draft.case_id} gpu-throughput) or name the hypotheses it tests"
        )
        remedy = Remedy("names them (HYP[,HYP…])", "tests")
    elif rule is None and nearest and nearest[0].ruled_out is not None:
        unread = (
            f"rule {nearest[0].rule_id} reads this change where {nearest[0].needs}, and "
            f"{nearest[0].ruled_out} rules that out (answer it again if the case is wrong "
            "about it)"
        )
    elif rule is None:
        near = (
            f" (its words are nearest to {nearest_words(nearest)}: --rule "
            f"{nearest[0].rule_id} reads it by that rule, if it tests what that rule tests)"
            if nearest
            else ""
        )
        unread = (
            f"no rule of the case's playbook reads this change{near}; naming the hypotheses "
            "it tests would let the generic table read it"
        )
        remedy = Remedy("names them (HYP[,HYP…])", "tests")
    elif settled is None and "stated" not in record:
        said = f"unit {unit}" if unit else f"{record['metric']} (no unit)"
        unread = (
            f"{said} does not say whether higher is better; saying which way is would let "
            "it be read"
        )
        remedy = Remedy("says it (higher or lower)", "direction")
    elif (standing := measured_telling_stands(draft.projection, record)) is not None:
        unread = _retold(draft, rule, record, standing)
    else:
        evidence = triage.evidence_from_experiment(draft.projection, rule, record)
        if evidence is None:
            unread = f"rule {rule.rule.id}: none of its hypotheses are in this case"
        else:
            leaning, large = _size(draft, rule, record)
            draft.add(evidence)
    read = None if evidence is None else EvidenceAssessed.of(evidence.payload)
    restated = record.get("restates")
    return ExperimentOutcome(
        experiment_id=experiment_id,
        seq=seq,
        change=str(record["change"]),
        metric=record.get("metric"),
        baseline_value=record.get("baseline_value"),
        variant_value=record.get("variant_value"),
        speedup=float(record["speedup"]) if "speedup" in record else None,
        rule_id=rule.rule.id if rule is not None and evidence is not None else None,
        outcome=None if read is None or read.outcome is None else str(read.outcome),
        evidence_id=None if read is None else read.evidence_id,
        unread=unread,
        unread_remedy=remedy,
        unit=str(unit) if unit else None,
        direction=settled.describe(unit) if settled is not None else None,
        stated=record.get("stated"),
        restates=str(restated) if restated is not None else None,
        superseded=None if read is None else read.supersedes,
        same_change=earlier_telling(draft.projection, record) if evidence is not None else None,
        leaning=leaning,
        large=large,
        # a rule ruled out is the reason, said above, and no hint toward a rule to force
        nearest=nearest if rule is None and not any(n.ruled_out for n in nearest) else (),
    )


def reading_rule(
    registry: Registry,
    projection: Projection,
    change: str,
    probe: str | None,
    rule_id: str | None,
    tests: Sequence[str],
) -> ExperimentRule | None:
    """The rule that reads an A/B: the generic table when it is named as a test of some
    hypotheses (``--tests``, whatever rule knows the change), else the playbook's."""
    if not tests:
        return experiment_rule(registry, projection, change, probe, rule_id)
    if rule_id is not None:
        raise DomainError(
            "an A/B named as a test of hypotheses is read by the generic table: a rule "
            "cannot be chosen as well"
        )
    return tested_rule(projection, tests, probe)


def tested_rule(projection: Projection, tests: Sequence[str], probe: str | None) -> ExperimentRule:
    """The generic table for an A/B named as a test of ``tests``, all of one question of the
    case (refused otherwise)."""
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
    question = projection.questions.get(questions[0])
    reasons = [question.inapplicable_reason(h) for h in named] if question is not None else []
    if reasons and all(reason is not None for reason in reasons):
        why = "; ".join(f"{h}: {reason}" for h, reason in zip(named, reasons, strict=True))
        raise DomainError(
            f"the hypotheses tested do not apply to this case ({why}): an A/B of them would "
            "weigh nothing"
        )
    return named_rule(named, questions[0], probe)


def experiment_rule(
    registry: Registry, projection: Projection, change: str, probe: str | None, rule_id: str | None
) -> ExperimentRule | None:
    """The rule named, else the first that reads ``change`` (for ``probe``, when one is
    named: an outcome stated in words may name none) and that no answer in force rules
    out (its ``requires``)."""
    rules = _case_rules(registry, projection)
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
    return chosen_rule(rules, projection, change, probe)


def chosen_rule(
    rules: Sequence[ExperimentRule], projection: Projection, change: str, probe: str | None
) -> ExperimentRule | None:
    """The first of ``rules`` that reads ``change`` (for ``probe``, when one is named) and
    that no answer in force rules out: the reader the playbook chooses, under the answers of
    the moment (:mod:`casefile.app.experiment_rereading` reads again when they change). A
    change whose one change is how many GPUs the job runs on goes first to a rule that reads
    GPU counts (``gpu_counts``), whatever names it meets ("the same UCX-Py benchmark on 2 GPUs
    instead of all 8" is no change of transport); one that also sets something else goes to
    the rules in their order."""
    if any(rule.gpu_counts for rule in rules) and only_gpu_count(change):
        rules = sorted(rules, key=lambda rule: not rule.gpu_counts)  # stable: order kept
    for rule in rules:
        if (
            (probe is None or probe in rule.probes)
            and _not_ruled_out(rule, projection)  # "6x -> 1x" on a one-GPU case: not fewer-gpus
            and rule.matches(change)
        ):
            return rule
    return None


def _not_ruled_out(rule: ExperimentRule, projection: Projection) -> bool:
    """Whether the answers in force leave ``rule`` in (its ``requires``)."""
    question = projection.questions.get(rule.rule.question)
    answers = {} if question is None else {k: a for k, (a, _) in question.answers.items()}
    return rule.rule.suggested_under(answers)


def _size(
    draft: Draft, rule: ExperimentRule, record: dict[str, Any]
) -> tuple[tuple[str, float] | None, float | None]:
    """Inside the margin, the outcome it leans to and how far; beyond it, where the rule reads
    sizes, how far it read as a large effect."""
    reading = triage.speedup_reading(draft.projection, rule, record)
    if reading is None:
        return None, None
    verdict = reading[0]
    leaning = None if verdict.leans_to is None else (verdict.leans_to, verdict.lean)
    return leaning, verdict.large_lean


def _retold(draft: Draft, rule: ExperimentRule, record: dict[str, Any], standing: str) -> str:
    """Why a retelling of a measured A/B is read by nothing: it adds nothing to count, or it
    disagrees with the measurement (then it is no retelling: a new run is recorded as one)."""
    measured = draft.projection.evidence[standing].outcome
    would = triage.evidence_from_experiment(draft.projection, rule, record)
    said = None if would is None else EvidenceAssessed.of(would.payload).outcome
    if said is not None and measured is not None and said != measured:
        return (
            f"it retells {record['restates']}, but reads {said!r} where the measured evidence "
            f"{standing} read {measured!r}: the measurement stands (a new run that disagrees "
            "is its own A/B, not a retelling)"
        )
    return (
        f"it retells {record['restates']}, whose measured evidence {standing} stands: an "
        "account of figures the case already read adds nothing to count"
    )
