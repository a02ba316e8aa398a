"""Actions on a case as a whole: open one, note, act, conclude, open a playbook, export."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from casefile.actions.spec import Outcome

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.who import Who


@dataclass(frozen=True)
class NewCase:
    """Not an action on an open case: the case list runs it and opens what it made."""

    title: str
    symptom: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    case_id: str | None = None
    playbook: str | None = None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        del case_id
        made = service.new_case(
            self.title, self.symptom, dict(self.environment), self.case_id, self.playbook, who
        )
        return Outcome(f"case {made} opened", made)


@dataclass(frozen=True)
class Note:
    text: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.note(case_id, self.text, who)
        return Outcome(f"note recorded as event {event.seq}", str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Act:
    text: str
    outcome: str | None = None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.act(case_id, self.text, self.outcome, who)
        return Outcome(f"action recorded as event {event.seq}", str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Conclude:
    summary: str
    root_cause: str | None = None
    recommendations: tuple[str, ...] = ()
    lessons: tuple[str, ...] = ()

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.conclude(
            case_id, self.summary, self.root_cause, self.recommendations, self.lessons, who
        )
        return Outcome(f"conclusion recorded as event {event.seq}", str(event.seq), (event.seq,))


@dataclass(frozen=True)
class OpenPlaybook:
    playbook: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        qid = service.open_playbook(case_id, self.playbook, who)
        return Outcome(f"playbook {self.playbook} opened as question {qid}", qid)


@dataclass(frozen=True)
class Export:
    directory: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        del who
        path = service.export(case_id, self.directory)
        return Outcome(f"case exported to {path}", self.directory)


@dataclass(frozen=True)
class ImportCase:
    """Not an action on an open case: a case directory becomes a case in the database."""

    directory: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        del case_id, who
        imported = service.import_directory(self.directory)
        return Outcome(f"imported {imported.case_id}", imported.case_id)
