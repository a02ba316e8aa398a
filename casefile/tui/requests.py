"""What a dialog returns: one typed request per action, which knows how to run itself through
the service and which ``casefile …`` command line would have done the same.

Keeping the request apart from the dialog means the TUI's command log, its Pilot tests ("what
the TUI appends equals what the CLI appends") and the dialogs all share one definition of each
action. A request is plain data (no Textual): it is built on the UI thread and run on the case
thread.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who


class Request(Protocol):
    """An action a user confirmed in a dialog."""

    @property
    def title(self) -> str: ...

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        """Append the events; a short line saying what was recorded."""
        ...

    def argv(self, case_id: str) -> list[str]:
        """The ``casefile`` arguments that record the same events."""
        ...


def command_line(request: Request, case_id: str, actor: str) -> str:
    """The request as a command a shell can run (quoted with :func:`shlex.join`)."""
    words = ["casefile", *request.argv(case_id)]
    if actor != "user":
        # before a `--` (everything after it is the probe's own command line)
        cut = words.index("--") if "--" in words else len(words)
        words[cut:cut] = ["--actor", actor]
    return shlex.join(words)


@dataclass(frozen=True)
class NoteRequest:
    text: str
    title: str = "Note"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        event = service.note(case_id, self.text, who)
        return f"note recorded as event {event.seq}"

    def argv(self, case_id: str) -> list[str]:
        return ["note", case_id, self.text]


@dataclass(frozen=True)
class ActionRequest:
    text: str
    outcome: str | None = None
    title: str = "Action"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        event = service.act(case_id, self.text, self.outcome, who)
        return f"action recorded as event {event.seq}"

    def argv(self, case_id: str) -> list[str]:
        return ["act", case_id, self.text, *(["--outcome", self.outcome] if self.outcome else [])]


@dataclass(frozen=True)
class QuestionRequest:
    text: str
    question_id: str | None = None
    catch_all: float = 0.1
    title: str = "Question"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        qid = service.add_question(case_id, self.text, self.question_id, self.catch_all, who)
        return f"question {qid} proposed"

    def argv(self, case_id: str) -> list[str]:
        words = ["question", "add", case_id, self.text]
        if self.question_id:
            words += ["--id", self.question_id]
        if self.catch_all != 0.1:
            words += ["--catch-all", f"{self.catch_all:g}"]
        return words


@dataclass(frozen=True)
class HypothesisRequest:
    text: str
    under: str
    prior: float
    hypothesis_id: str | None = None
    meaning: str | None = None
    title: str = "Hypothesis"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        hid = service.add_hypothesis(
            case_id, self.text, self.under, self.prior, self.hypothesis_id, self.meaning, who
        )
        return f"hypothesis {hid} proposed under {self.under}"

    def argv(self, case_id: str) -> list[str]:
        words = ["hypothesis", "add", case_id, self.text, "--under", self.under]
        words += ["--prior", f"{self.prior:g}"]
        if self.hypothesis_id:
            words += ["--id", self.hypothesis_id]
        if self.meaning:
            words += ["--meaning", self.meaning]
        return words


@dataclass(frozen=True)
class RefineRequest:
    hypothesis_id: str
    text: str
    because: str | None = None
    title: str = "Refine hypothesis"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        event = service.refine_hypothesis(case_id, self.hypothesis_id, self.text, self.because, who)
        return f"hypothesis {self.hypothesis_id} reworded (event {event.seq})"

    def argv(self, case_id: str) -> list[str]:
        words = ["hypothesis", "refine", case_id, self.hypothesis_id, self.text]
        return words + (["--because", self.because] if self.because else [])


@dataclass(frozen=True)
class RetireRequest:
    hypothesis_id: str
    because: str
    title: str = "Retire hypothesis"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        event = service.retire_hypothesis(case_id, self.hypothesis_id, self.because, who)
        return f"hypothesis {self.hypothesis_id} retired (event {event.seq})"

    def argv(self, case_id: str) -> list[str]:
        return ["hypothesis", "retire", case_id, self.hypothesis_id, "--because", self.because]


@dataclass(frozen=True)
class ReinstateRequest:
    hypothesis_id: str
    because: str | None = None
    title: str = "Reinstate hypothesis"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        event = service.reinstate_hypothesis(case_id, self.hypothesis_id, self.because, who)
        return f"hypothesis {self.hypothesis_id} reinstated (event {event.seq})"

    def argv(self, case_id: str) -> list[str]:
        words = ["hypothesis", "reinstate", case_id, self.hypothesis_id]
        return words + (["--because", self.because] if self.because else [])


@dataclass(frozen=True)
class EvidenceRequest:
    likelihoods: Mapping[str, float]
    because: str
    otherwise: float = 0.5
    kind: str = "measured"
    reliability: float | None = None
    #: what it rests on: a probe run's seq, an observation's seq, the evidence it re-assesses
    probe_run_seq: int | None = None
    observation_seq: int | None = None
    supersedes: str | None = None
    title: str = "Evidence"

    def options(self) -> dict[str, object]:
        """The service's keyword arguments beyond the table and the rationale (only those
        given, so the service's own defaults apply as they do for the CLI)."""
        options: dict[str, object] = {"otherwise": self.otherwise, "kind": self.kind}
        if self.reliability is not None:
            options["reliability"] = self.reliability
        if self.probe_run_seq is not None:
            options["probe_run_seq"] = self.probe_run_seq
        if self.observation_seq is not None:
            options["observation_seq"] = self.observation_seq
        if self.supersedes is not None:
            options["supersedes"] = self.supersedes
        return options

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        event = service.assess(case_id, dict(self.likelihoods), self.because, who, **self.options())
        return f"evidence {event.payload.get('evidence_id', '')} recorded (event {event.seq})"

    def argv(self, case_id: str) -> list[str]:
        words = ["evidence", "add", case_id]
        for hid, value in self.likelihoods.items():
            words += ["--likelihood", f"{hid}={value:g}"]
        if self.otherwise != 0.5:
            words += ["--otherwise", f"{self.otherwise:g}"]
        if self.kind != "measured":
            words += ["--kind", self.kind]
        if self.reliability is not None:
            words += ["--reliability", f"{self.reliability:g}"]
        if self.probe_run_seq is not None:
            words += ["--probe-run", str(self.probe_run_seq)]
        if self.observation_seq is not None:
            words += ["--observation", str(self.observation_seq)]
        if self.supersedes is not None:
            words += ["--supersedes", self.supersedes]
        return [*words, "--because", self.because]


@dataclass(frozen=True)
class ConcludeRequest:
    summary: str
    root_cause: str | None = None
    recommendations: tuple[str, ...] = ()
    lessons: tuple[str, ...] = ()
    title: str = "Conclusion"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        event = service.conclude(
            case_id, self.summary, self.root_cause, self.recommendations, self.lessons, who
        )
        return f"conclusion recorded as event {event.seq}"

    def argv(self, case_id: str) -> list[str]:
        words = ["conclude", case_id, self.summary]
        if self.root_cause:
            words += ["--root-cause", self.root_cause]
        for item in self.recommendations:
            words += ["--recommend", item]
        for item in self.lessons:
            words += ["--lesson", item]
        return words


@dataclass(frozen=True)
class PlaybookRequest:
    playbook: str
    title: str = "Playbook"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        qid = service.open_playbook(case_id, self.playbook, who)
        return f"playbook {self.playbook} opened as question {qid}"

    def argv(self, case_id: str) -> list[str]:
        return ["playbook", "open", case_id, self.playbook]


@dataclass(frozen=True)
class ExportRequest:
    directory: str
    title: str = "Export"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        path = service.export(case_id, self.directory)
        return f"case exported to {path}"

    def argv(self, case_id: str) -> list[str]:
        return ["export", case_id, self.directory]


@dataclass(frozen=True)
class ReportRequest:
    """Write the postmortem report (and, for Markdown, its chart beside it)."""

    path: str
    fmt: str = "md"
    redact: bool = False
    title: str = "Report"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        from pathlib import Path

        from casefile.report import ReportOptions, build_report
        from casefile.report.files import report_files, write_report_files

        del who
        report = build_report(service, case_id, ReportOptions(redact=self.redact))
        # every file rendered, and every name checked, before the first is written
        files = [
            (target, data)
            for target, data in report_files(report, self.fmt, Path(self.path))
            if target is not None
        ]
        write_report_files(files)
        return "wrote " + ", ".join(str(target) for target, _ in files)

    def argv(self, case_id: str) -> list[str]:
        words = ["report", case_id, "--format", self.fmt, "-o", self.path]
        return [*words, "--redact"] if self.redact else words


@dataclass(frozen=True)
class NewCaseRequest:
    """Not a request on an open case: the case list runs it and opens what it made."""

    case_title: str
    symptom: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    playbook: str | None = None
    title: str = "New case"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        del case_id
        return service.new_case(
            self.case_title, self.symptom, dict(self.environment), None, self.playbook, who
        )

    def argv(self, case_id: str) -> list[str]:
        del case_id
        words = ["new", self.case_title]
        if self.symptom:
            words += ["--symptom", self.symptom]
        for key, value in self.environment.items():
            words += ["--env", f"{key}={value}"]
        if self.playbook:
            words += ["--playbook", self.playbook]
        return words


@dataclass(frozen=True)
class IntakeRequest:
    """Answers to the playbook's intake questions; the answers the case already holds are
    recorded with them, as ``casefile intake`` does."""

    answers: tuple[tuple[str, str], ...]
    title: str = "Intake"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        outcome = service.answer_intake(case_id, dict(self.answers), who=who)
        said = [
            f"{q}: {a}" + ("" if s == "answered" else f" ({s})") for q, a, _, s in outcome.recorded
        ]
        said += [f"{q}: counted by {e}" for q, e in outcome.counted_elsewhere]
        return "intake: " + ("; ".join(said) if said else "nothing new to record")

    def argv(self, case_id: str) -> list[str]:
        words = ["intake", case_id]
        for question, answer in self.answers:
            words += ["--answer", f"{question}={answer}"]
        return words


@dataclass(frozen=True)
class ExperimentRequest:
    """An A/B of two recorded runs of one benchmark that differ in one stated change."""

    change: str
    baseline_seq: int
    variant_seq: int
    metric: str | None = None
    title: str = "Experiment"

    def run(self, service: CaseService, case_id: str, who: Who) -> str:
        outcome = service.record_experiment(
            case_id,
            self.change,
            self.baseline_seq,
            self.variant_seq,
            metric=(self.metric,) if self.metric else (),
            who=who,
        )
        ratio = f" ({outcome.speedup:.2f}×)" if outcome.speedup is not None else ""
        head = (
            f"experiment {outcome.experiment_id}: {outcome.metric} "
            f"{outcome.baseline_value:g} → {outcome.variant_value:g}{ratio}"
        )
        if outcome.evidence_id is None:
            return f"{head}; no evidence: {outcome.unread}"
        return f"{head}; {outcome.rule_id}: {outcome.outcome} → evidence {outcome.evidence_id}"

    def argv(self, case_id: str) -> list[str]:
        words = ["experiment", case_id, "--change", self.change]
        words += ["--baseline", str(self.baseline_seq), "--variant", str(self.variant_seq)]
        return [*words, "--metric", self.metric] if self.metric else words
