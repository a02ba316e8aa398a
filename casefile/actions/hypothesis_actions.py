"""Actions on the case's reasoning: questions, hypotheses, priors and evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casefile.actions.spec import Outcome

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who


@dataclass(frozen=True)
class ProposeQuestion:
    text: str
    question_id: str | None = None
    catch_all: float = 0.1

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        qid = service.add_question(case_id, self.text, self.question_id, self.catch_all, who)
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
            hid = service.add_hypothesis_rebalanced(
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
            hid = service.add_hypothesis(
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
        event = service.set_prior(
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
        event = service.refine_hypothesis(case_id, self.hypothesis_id, self.text, self.because, who)
        said = f"hypothesis {self.hypothesis_id} reworded (event {event.seq})"
        return Outcome(said, str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Retire:
    hypothesis_id: str
    because: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.retire_hypothesis(case_id, self.hypothesis_id, self.because, who)
        said = f"hypothesis {self.hypothesis_id} retired (event {event.seq})"
        return Outcome(said, str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Reinstate:
    hypothesis_id: str
    because: str | None = None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.reinstate_hypothesis(case_id, self.hypothesis_id, self.because, who)
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
        event = service.assess(case_id, dict(self.likelihoods), self.because, who, **self.options())
        evidence_id = str(event.payload.get("evidence_id", ""))
        return Outcome(
            f"evidence {evidence_id} recorded (event {event.seq})", evidence_id, (event.seq,)
        )
