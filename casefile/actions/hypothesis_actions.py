"""Actions on the case's reasoning: questions, hypotheses, priors and evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casefile.actions.spec import ActionSpec, Option, Outcome
from casefile.domain.kinds import KINDS

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who


@dataclass(frozen=True)
class ProposeQuestion:
    text: str
    question_id: str | None = None
    catch_all: float = 0.1

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        qid = service.writer.add_question(case_id, self.text, self.question_id, self.catch_all, who)
        return Outcome(f"question {qid} proposed", qid)


@dataclass(frozen=True)
class ProposeHypothesis:
    text: str
    under: str
    prior: float
    hypothesis_id: str | None = None
    meaning: str | None = None
    #: if the prior does not fit, scale the others down in proportion to make room
    rebalance: bool = False
    #: with ``rebalance``: even after evidence arrived
    force: bool = False

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        if self.rebalance:
            hid = service.writer.add_hypothesis_rebalanced(
                case_id,
                self.text,
                self.under,
                self.prior,
                self.hypothesis_id,
                self.meaning,
                force=self.force,
                who=who,
            )
        else:
            hid = service.writer.add_hypothesis(
                case_id, self.text, self.under, self.prior, self.hypothesis_id, self.meaning, who
            )
        return Outcome(f"hypothesis {hid} proposed under {self.under}", hid)


@dataclass(frozen=True)
class SetPrior:
    hypothesis_id: str
    prior: float
    because: str | None = None
    force: bool = False

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.writer.set_prior(
            case_id, self.hypothesis_id, self.prior, self.because, force=self.force, who=who
        )
        said = f"prior of {self.hypothesis_id} set to {self.prior:g} (event {event.seq})"
        return Outcome(said, str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Refine:
    hypothesis_id: str
    text: str
    because: str | None = None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.writer.refine_hypothesis(
            case_id, self.hypothesis_id, self.text, self.because, who
        )
        said = f"hypothesis {self.hypothesis_id} reworded (event {event.seq})"
        return Outcome(said, str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Retire:
    hypothesis_id: str
    because: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.writer.retire_hypothesis(case_id, self.hypothesis_id, self.because, who)
        said = f"hypothesis {self.hypothesis_id} retired (event {event.seq})"
        return Outcome(said, str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Reinstate:
    hypothesis_id: str
    because: str | None = None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.writer.reinstate_hypothesis(case_id, self.hypothesis_id, self.because, who)
        said = f"hypothesis {self.hypothesis_id} reinstated (event {event.seq})"
        return Outcome(said, str(event.seq), (event.seq,))


@dataclass(frozen=True)
class AssessEvidence:
    likelihoods: Mapping[str, float]
    because: str
    otherwise: float = 0.5
    kind: str = "measured"
    reliability: float | None = None
    #: what it rests on: a probe run's seq, an observation's seq, the evidence it re-assesses
    probe_run_seq: int | None = None
    observation_seq: int | None = None
    supersedes: str | None = None
    evidence_id: str | None = None

    def options(self) -> dict[str, Any]:
        """The service's keyword arguments beyond the table and the rationale (only those
        given, so the service's own defaults apply)."""
        options: dict[str, Any] = {"otherwise": self.otherwise, "kind": self.kind}
        for name, value in (
            ("reliability", self.reliability),
            ("probe_run_seq", self.probe_run_seq),
            ("observation_seq", self.observation_seq),
            ("supersedes", self.supersedes),
            ("evidence_id", self.evidence_id),
        ):
            if value is not None:
                options[name] = value
        return options

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event, *in_step = service.writer.assess_in_step(
            case_id, dict(self.likelihoods), self.because, who, **self.options()
        )
        from casefile.app.views.summaries import summarise  # not for --help
        from casefile.domain.event_types.evidence import EvidenceAssessed

        evidence_id = EvidenceAssessed.of(event.payload).evidence_id
        # evidence over an intake answer brings what stood on it in step (answers it implied,
        # readings it ruled out): said beside the id, so a script still captures the id alone
        return Outcome(
            f"evidence {evidence_id} recorded (event {event.seq})",
            evidence_id,
            (event.seq, *(e.seq for e in in_step)),
            notes=tuple(f"in step, event {e.seq}: {summarise(e)}" for e in in_step),
        )


# --- the rows of the action table ------------------------------------------------------

_HYPOTHESIS = Option(
    "hypothesis_id", "Hypothesis id", noun="hypothesis id", required=True, metavar="hypothesis"
)
_BECAUSE = Option("because", "Because (optional)", flag="--because", noun="reason")

QUESTION = ActionSpec(
    "question",
    "Question",
    ProposeQuestion,
    (
        Option("text", "Question", required=True, noun="question"),
        Option("question_id", "Id (optional)", flag="--id", example="throughput"),
        Option(
            "catch_all",
            "Catch-all prior",
            "prior",
            flag="--catch-all",
            default=0.1,
            noun="catch-all prior",
            help="catch-all prior (0.1)",
        ),
    ),
    ("question", "add"),
    "propose a question; prints its id",
    ("Question", "Ask a new question"),
    key="A",
    heading="Ask a question",
    short="ask a question",
)

HYPOTHESIS = ActionSpec(
    "hypothesis",
    "Hypothesis",
    ProposeHypothesis,
    (
        Option("text", "Hypothesis", required=True, noun="hypothesis"),
        Option(
            "under",
            "Under (question or parent hypothesis id)",
            flag="--under",
            required=True,
            noun="'under' (a question or parent hypothesis id)",
            help="question id, or parent hypothesis id",
        ),
        Option(
            "prior",
            "Prior (absolute, or share of the parent)",
            "prior",
            flag="--prior",
            required=True,
            example="0.2",
            help="absolute, or parent share",
        ),
        Option("hypothesis_id", "Id (optional)", flag="--id"),
        Option(
            "meaning",
            "Meaning (optional): what would be true if this is the answer",
            flag="--meaning",
            help="one line: what would be true if this is the answer",
        ),
        Option(
            "rebalance",
            "Rebalance (yes/no): if the prior does not fit, scale the others down",
            "switch",
            flag="--rebalance",
            default=False,
            help="if the prior does not fit, scale the other hypotheses down in proportion",
        ),
        Option(
            "force",
            "Even after evidence (yes/no, with rebalance)",
            "switch",
            flag="--force",
            default=False,
            help="with --rebalance: even after evidence arrived",
        ),
    ),
    ("hypothesis", "add"),
    "propose a hypothesis; prints its id",
    ("Hypothesis: add", "Propose a hypothesis"),
    key="plus",
    heading="Propose a hypothesis",
    short="add hypothesis",
)

PRIOR = ActionSpec(
    "prior",
    "Prior",
    SetPrior,
    (
        _HYPOTHESIS,
        Option(
            "prior",
            "Prior (absolute, or share of the parent)",
            "prior",
            required=True,
            help="absolute, or its share of its parent's",
        ),
        Option("because", "Because (optional)", flag="--because", help="why the prior changes"),
        Option(
            "force",
            "Even after evidence (yes/no)",
            "switch",
            flag="--force",
            default=False,
            help="even after evidence arrived",
        ),
    ),
    ("hypothesis", "prior"),
    "set a hypothesis's prior (siblings make room in proportion); prints its seq",
    ("Hypothesis: prior", "Set the selected hypothesis's prior; its siblings make room"),
    heading="Set a hypothesis's prior",
)

REFINE = ActionSpec(
    "refine",
    "Refine hypothesis",
    Refine,
    (_HYPOTHESIS, Option("text", "New wording", required=True, noun="new wording"), _BECAUSE),
    ("hypothesis", "refine"),
    "reword a hypothesis",
    ("Hypothesis: refine", "Reword the selected hypothesis"),
    key="f",
    heading="Reword a hypothesis",
    short="refine hypothesis",
)

RETIRE = ActionSpec(
    "retire",
    "Retire hypothesis",
    Retire,
    (_HYPOTHESIS, Option("because", "Because", flag="--because", required=True, noun="reason")),
    ("hypothesis", "retire"),
    "retire a hypothesis (with reason)",
    ("Hypothesis: retire", "Retire the selected hypothesis"),
    key="minus",
    heading="Retire a hypothesis",
    short="retire hypothesis",
)

REINSTATE = ActionSpec(
    "reinstate",
    "Reinstate hypothesis",
    Reinstate,
    (_HYPOTHESIS, _BECAUSE),
    ("hypothesis", "reinstate"),
    "reinstate a retired hypothesis",
    ("Hypothesis: reinstate", "Reinstate a retired hypothesis"),
    key="i",
    heading="Reinstate a hypothesis",
    short="reinstate hypothesis",
)

EVIDENCE = ActionSpec(
    "evidence",
    "Evidence",
    AssessEvidence,
    (
        Option(
            "likelihoods",
            "Likelihoods, one HYPOTHESIS=P per line (P(E | h))",
            "table",
            flag="--likelihood",
            required=True,
            metavar="HYP=P",
            noun="likelihood (HYPOTHESIS=P)",
            help="P(evidence | hypothesis), repeatable",
        ),
        Option(
            "otherwise",
            "P(E) for every other hypothesis",
            "likelihood",
            flag="--otherwise",
            default=0.5,
            noun="P(E) for the others",
            help="P(evidence) for hypotheses not listed (0.5)",
        ),
        Option(
            "kind",
            f"Kind ({', '.join(KINDS)})",
            "choice",
            flag="--kind",
            default="measured",
            choices=KINDS,
        ),
        Option(
            "reliability",
            "Reliability (optional; default by kind)",
            "reliability",
            flag="--reliability",
            help="0..1 (default by kind)",
        ),
        Option("because", "Rationale", flag="--because", required=True, noun="rationale"),
        Option(
            "probe_run_seq",
            "Rests on probe run (seq, optional)",
            "seq",
            flag="--probe-run",
            example="33",
            metavar="SEQ",
            noun="the probe run",
            help="the probe run it rests on",
        ),
        Option(
            "observation_seq",
            "Rests on observation (seq, optional)",
            "seq",
            flag="--observation",
            example="34",
            metavar="SEQ",
            noun="the observation",
            help="the observation it rests on",
        ),
        Option(
            "supersedes",
            "Re-assesses evidence (id, optional)",
            "id",
            flag="--supersedes",
            noun="evidence id to supersede",
            example="e3",
            metavar="EID",
            help="the evidence this re-assesses (it stops counting)",
        ),
        Option("evidence_id", "Id", flag="--id", form=False),
    ),
    ("evidence", "add"),
    "record evidence; prints its id",
    ("Evidence", "Assess evidence with a likelihood table"),
    key="e",
    heading="Assess evidence",
    short="evidence",
)
