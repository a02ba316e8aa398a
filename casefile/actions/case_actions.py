"""Actions on a case as a whole: open one, note, act, conclude, open a playbook, export."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from casefile.actions.spec import ActionSpec, Option, Outcome

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
        made = service.writer.new_case(
            self.title, self.symptom, dict(self.environment), self.case_id, self.playbook, who
        )
        notes: tuple[str, ...] = ()
        if self.playbook:  # what the --env answered is recorded now: say so, and from what
            notes = tuple(
                f"intake {item.id}: {item.answer} (from {item.basis})"
                for item in service.reader.intake(made)
                if item.answer is not None and item.basis
            )
        return Outcome(f"case {made} opened", made, notes=notes)


@dataclass(frozen=True)
class Note:
    text: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.writer.note(case_id, self.text, who)
        return Outcome(f"note recorded as event {event.seq}", str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Act:
    text: str
    outcome: str | None = None

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        event = service.writer.act(case_id, self.text, self.outcome, who)
        return Outcome(f"action recorded as event {event.seq}", str(event.seq), (event.seq,))


@dataclass(frozen=True)
class Conclude:
    summary: str
    root_cause: str | None = None
    recommendations: tuple[str, ...] = ()
    lessons: tuple[str, ...] = ()

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        before = service.reader.projection(case_id).concluded
        event = service.writer.conclude(
            case_id, self.summary, self.root_cause, self.recommendations, self.lessons, who
        )
        notes: tuple[str, ...] = ()
        if before is not None:  # a second conclusion replaces the first: say which, and how
            old, new = before.get("root_cause"), self.root_cause or None
            changed = f" (root cause {old or 'none'} → {new or 'none'})" if old != new else ""
            notes = (f"replaces the conclusion at seq {before['seq']}{changed}",)
        said = f"conclusion recorded as event {event.seq}"
        return Outcome(said, str(event.seq), (event.seq,), notes=notes)


@dataclass(frozen=True)
class OpenPlaybook:
    playbook: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        qid = service.writer.open_playbook(case_id, self.playbook, who)
        return Outcome(f"playbook {self.playbook} opened as question {qid}", qid)


@dataclass(frozen=True)
class Export:
    directory: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        del who
        path = service.library.export(case_id, self.directory)
        return Outcome(f"case exported to {path}", self.directory)


@dataclass(frozen=True)
class ImportCase:
    """Not an action on an open case: a case directory becomes a case in the database."""

    directory: str

    def run(self, service: CaseService, case_id: str, who: Who) -> Outcome:
        del case_id, who
        imported = service.library.import_directory(self.directory)
        return Outcome(f"imported {imported.case_id}", imported.case_id)


# --- the rows of the action table ------------------------------------------------------

NEW = ActionSpec(
    "new",
    "New case",
    NewCase,
    (
        Option("title", "Title", required=True),
        Option(
            "symptom", "Symptom, with numbers", flag="--symptom", help="the symptom, with numbers"
        ),
        Option(
            "environment",
            "Environment, KEY=VALUE per line",
            "pairs",
            flag="--env",
            metavar="KEY=VALUE",
            default={},
        ),
        Option(
            "case_id", "Id", flag="--id", help="choose the case id (default: random)", form=False
        ),
        Option(
            "playbook",
            "Playbook (optional)",
            flag="--playbook",
            example="gpu-throughput",
            help="open a playbook's question and hypotheses in the case",
        ),
    ),
    ("new",),
    "open a new case; prints its id",
    ("New case", "Open a new case"),
    on_case=False,
    heading="New case",
)

NOTE = ActionSpec(
    "note",
    "Note",
    Note,
    (
        Option(
            "text",
            "Note (several lines allowed)",
            "note",
            required=True,
            noun="note",
            help="the note, or - to read it from stdin",
        ),
    ),
    ("note",),
    "add a note; prints its seq",
    ("Note", "Add a note to the case"),
    key="n",
    footer=True,
    heading="Add a note",
    short="note",
)

ACT = ActionSpec(
    "action",
    "Action",
    Act,
    (
        Option("text", "What was done", required=True, noun="action"),
        Option("outcome", "Outcome (optional)", flag="--outcome"),
    ),
    ("act",),
    "record an action taken",
    ("Action", "Record an action taken"),
    key="a",
    heading="Record an action",
    short="action",
)

CONCLUDE = ActionSpec(
    "conclude",
    "Conclusion",
    Conclude,
    (
        Option("summary", "Summary", required=True, noun="summary"),
        Option(
            "root_cause",
            "Root cause (hypothesis id, optional)",
            flag="--root-cause",
            help="the hypothesis id found to be the cause",
        ),
        Option(
            "recommendations",
            "Recommendations, one per line",
            "lines",
            flag="--recommend",
            default=(),
            help="a recommendation (repeatable)",
        ),
        Option(
            "lessons",
            "Lessons, one per line",
            "lines",
            flag="--lesson",
            default=(),
            help="a lesson (repeatable)",
        ),
    ),
    ("conclude",),
    "record the conclusion",
    ("Conclude", "Record the conclusion"),
    key="c",
    heading="Conclude the case",
    short="conclude",
)

PLAYBOOK = ActionSpec(
    "playbook",
    "Playbook",
    OpenPlaybook,
    (
        Option(
            "playbook", "Playbook id", required=True, example="gpu-throughput", noun="playbook id"
        ),
    ),
    ("playbook", "open"),
    "open a playbook in a case",
    ("Playbook", "Open a playbook's question and hypotheses"),
    key="o",
    heading="Open a playbook",
    short="open playbook",
)

EXPORT = ActionSpec(
    "export",
    "Export",
    Export,
    (Option("directory", "Directory to write", required=True, noun="directory"),),
    ("export",),
    "write the case as a case directory",
    ("Export case", "Write the case as a directory"),
    key="x",
    writes=False,
    stamped=False,
    heading="Export the case",
    short="export case",
)

IMPORT = ActionSpec(
    "import",
    "Import",
    ImportCase,
    (
        Option(
            "directory",
            "Directory",
            required=True,
            example="casefile/reference/glm5-pcie-pivot",
            noun="directory",
        ),
    ),
    ("import",),
    "import a case directory (verified)",
    ("Import case", "Import a case directory"),
    on_case=False,
    stamped=False,
    heading="Import a case directory",
    own_parser=True,
)
