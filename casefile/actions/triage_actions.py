"""Guided triage as actions: answering intake, recording an A/B of two runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from casefile.actions.spec import ActionSpec, Option, Outcome

if TYPE_CHECKING:
    from casefile.app.intake import IntakeOutcome
    from casefile.app.service import CaseService
    from casefile.app.who import Who


@dataclass(frozen=True)
class AnswerIntake:
    """Answers to the playbook's intake questions; the answers the case already holds are
    recorded with them, as ``casefile intake`` does."""

    answers: Mapping[str, str] = field(default_factory=dict)

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        outcome = service.writer.answer_intake(case_id, dict(self.answers), who=who)
        said = [f"{q}: {a}{_origin(outcome, q, s)}" for q, a, _, s in outcome.recorded]
        said += [f"{q}: counted by {e}" for q, e in outcome.counted_elsewhere]
        said += [f"{q}: not recorded, does not apply ({r})" for q, r in outcome.moot.items()]
        said += [
            f"{q}: {a} withdrawn, does not apply now ({r})"
            for q, (a, r, _) in outcome.mooted.items()
        ]
        said += [
            f"{q}: {a} withdrawn (it rested on {b})" for q, (a, b, _) in outcome.withdrawn.items()
        ]
        said += [r.said for r in outcome.brought_in_step]
        text = "intake: " + ("; ".join(said) if said else "nothing new to record")
        written = [eid for _, _, eid, _ in outcome.recorded]
        written += [eid for _, _, eid in outcome.withdrawn.values()]
        written += [eid for _, _, eid in outcome.mooted.values()]
        written += [r.evidence_id for r in outcome.brought_in_step]
        return Outcome(text, ",".join(written))


def _origin(outcome: IntakeOutcome, question: str, source: str) -> str:
    """Where a recorded answer came from, after it on the outcome line: nothing for a
    person's, why it is back for a restored one, else its source."""
    if question in outcome.restored:
        return f" (restored: {outcome.restored[question]})"
    return "" if source == "answered" else f" ({source})"


@dataclass(frozen=True)
class RecordExperiment:
    """An A/B of two recorded runs of one benchmark that differ in one stated change."""

    change: str
    baseline: int
    variant: int
    metric: tuple[str, ...] = ()
    #: an earlier experiment this one tells again (its evidence stops counting)
    restates: str | None = None

    def __post_init__(self) -> None:
        if self.baseline == self.variant:
            raise ValueError("the baseline and the variant are the same run")

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        outcome = service.writer.record_experiment(
            case_id,
            self.change,
            self.baseline,
            self.variant,
            metric=self.metric,
            restates=self.restates,
            who=who,
        )
        ratio = f" ({outcome.speedup:.2f}×)" if outcome.speedup is not None else ""
        head = (
            f"experiment {outcome.experiment_id}: {outcome.metric} "
            f"{outcome.baseline_value:g} → {outcome.variant_value:g}{ratio}"
        )
        if outcome.evidence_id is None:
            said = f"{head}; no evidence: {outcome.unread}"
        else:
            said = (
                f"{head}; {outcome.rule_id}: {outcome.read_as()} → evidence {outcome.evidence_id}"
            )
            if outcome.superseded is not None:
                said += f" (restates {outcome.restates}: supersedes {outcome.superseded})"
        return Outcome(said, outcome.experiment_id, (outcome.seq,))


# --- the rows of the action table ------------------------------------------------------

INTAKE = ActionSpec(
    "intake",
    "Intake",
    AnswerIntake,
    (
        Option(
            "answers",
            "Answers, QUESTION=ANSWER per line",
            "pairs",
            flag="--answer",
            metavar="QUESTION=ANSWER",
            default={},
        ),
    ),
    ("intake",),
    "answer the playbook's questions about the symptom",
    ("Intake", "Answer the playbook's questions about the symptom"),
    key="I",
    heading="Intake: the symptom's shape (no probabilities to type)",
    short="intake questions",
    own_parser=True,
)

EXPERIMENT = ActionSpec(
    "experiment",
    "Experiment",
    RecordExperiment,
    (
        Option(
            "change",
            "Change (the one difference)",
            flag="--change",
            required=True,
            example="NCCL_P2P_DISABLE=1",
            missing="state the one change between the two runs",
        ),
        Option(
            "baseline",
            "Baseline run (seq)",
            "seq",
            flag="--baseline",
            required=True,
            example="12 (the run without the change)",
            noun="baseline",
            missing="the baseline run's seq is required",
        ),
        Option(
            "variant",
            "Variant run (seq)",
            "seq",
            flag="--variant",
            required=True,
            example="15 (the run with the change)",
            noun="variant",
            missing="the variant run's seq is required",
        ),
        Option(
            "metric",
            "Metric (optional; default: the rule's)",
            "lines",
            flag="--metric",
            default=(),
            multiline=False,
            example="nccl.busbw.large",
        ),
        Option(
            "restates",
            "Restates (an earlier experiment, optional)",
            "id",
            flag="--restates",
            noun="experiment id to restate",
            example="x1",
            metavar="EXPERIMENT",
            help="an earlier experiment this one tells again: its evidence stops counting",
        ),
    ),
    ("experiment",),
    "record an A/B: two runs of one benchmark that differ in one stated change",
    ("Experiment", "Record an A/B of two runs that differ in one change"),
    key="X",
    heading="Experiment: an A/B of one benchmark",
    short="A/B experiment",
    own_parser=True,
)
