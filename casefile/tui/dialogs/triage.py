"""The intake and experiment dialogs: what the responder knows, and what one change did.

Intake shows one field per question the case's playbook asks, with its answers; a question
the case can already answer (``--env``, an earlier probe) says so and is recorded on its own.
The experiment dialog takes the change and the two runs' seqs; the rule that reads the change
and the verdict come from the playbook when it is recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from casefile.actions.spec import command_line
from casefile.actions.table import EXPERIMENT, INTAKE
from casefile.actions.triage_actions import AnswerIntake, RecordExperiment
from casefile.tui.dialogs.actions import build_from, fields_of
from casefile.tui.dialogs.form import Field, FormDialog

if TYPE_CHECKING:
    from casefile.app.intake import IntakeItem
    from casefile.domain.intake import IntakeQuestion
    from casefile.tui.app import CasefileApp


def _label(item: IntakeItem) -> str:
    choices = " / ".join(item.answers)
    if item.answer is not None:
        state = f" — now: {item.answer}" + (
            "" if item.source == "answered" else f" ({item.source})"
        )
    elif item.counted_by is not None and item.known is not None:
        state = f" — known: {item.known.answer}, counted by {item.counted_by}"
    elif item.known is not None:
        state = f" — known: {item.known.answer} (from {item.known.basis}), recorded with these"
    else:
        state = ""
    return f"{item.text} [{choices}]{state}"


def build_intake(
    items: Sequence[IntakeItem], questions: Callable[[], Mapping[str, IntakeQuestion]]
) -> Callable[[Mapping[str, str]], AnswerIntake]:
    """What is typed, read as each question reads a typed answer (``IntakeQuestion.normalise``:
    its synonyms, and the counts and descriptions its ``--env`` patterns read), as the CLI's
    prompt and ``--answer`` read it; anything else is the form's inline error."""
    by_id = {item.id: item for item in items}

    def build(values: Mapping[str, str]) -> AnswerIntake:
        answers: dict[str, str] = {}
        for qid, raw in values.items():
            typed = raw.strip()
            if not typed:
                continue
            item = by_id[qid]
            value = questions()[qid].normalise(typed)
            if value is None:
                raise ValueError(f"{qid}: {typed!r} is not one of {' / '.join(item.answers)}")
            if value != item.answer:
                answers[qid] = value
        return AnswerIntake(answers)

    return build


class IntakeForm(FormDialog[AnswerIntake]):
    """The intake form. Its questions come from the playbook versions the items name (the
    items carry the answers, not the words that read as them), looked up as the form first
    reads what is typed; the line under the fields says which answer other words were taken
    as ("'1' taken as one")."""

    def __init__(
        self,
        items: Sequence[IntakeItem],
        *,
        case_id: str,
        actor: str,
        questions: Mapping[str, IntakeQuestion] | None = None,
    ) -> None:
        # a question the case's answers make moot (NVLink for a one-GPU job) is not asked; the
        # note says which, and why, once
        asked = [item for item in items if item.does_not_apply is None or item.answer is not None]
        super().__init__(
            INTAKE.heading,
            [Field(item.id, _label(item), placeholder="empty: skip") for item in asked],
            build_intake(asked, self.questions),
            echo=lambda action: command_line(INTAKE, action, case_id, actor),
            note=_moot_note([item for item in items if item not in asked]),
            preview=self._taken_as,
        )
        self.asked = asked
        self._questions = dict(questions) if questions is not None else None

    def questions(self) -> Mapping[str, IntakeQuestion]:
        """Each asked item's question (as given, else from the app's registry: by
        ``ID@VERSION`` in its ``versions``, which the case thread filled as it listed the
        items; a lookup that might load plugins is for that thread, not this one)."""
        if self._questions is None:
            registry = cast("CasefileApp", self.app).backend.service.registry
            self._questions = {
                item.id: registry.versions[item.playbook].intake_question(item.id)
                for item in self.asked
            }
        return self._questions

    async def _taken_as(self, _action: AnswerIntake) -> str:
        questions = self.questions()
        said = []
        for qid, raw in self.values().items():
            answer = questions[qid].taken_as(raw) if raw.strip() else None
            if answer is not None:
                said.append(f"{qid}: {raw.strip()!r} taken as {answer}")
        return "; ".join(said)


def intake_dialog(
    items: Sequence[IntakeItem],
    *,
    case_id: str,
    actor: str,
    questions: Mapping[str, IntakeQuestion] | None = None,
) -> IntakeForm:
    return IntakeForm(items, case_id=case_id, actor=actor, questions=questions)


def _moot_note(moot: Sequence[IntakeItem]) -> str:
    """The questions left out of the form, grouped by the answer that makes them moot: "Not
    asked, as they do not apply: scaling, scope, nvlink — gpu-count = one (seq 27)"."""
    by_reason: dict[str, list[str]] = {}
    for item in moot:
        by_reason.setdefault(str(item.does_not_apply), []).append(item.id)
    groups = [f"{', '.join(ids)} — {reason}" for reason, ids in by_reason.items()]
    return f"Not asked, as they do not apply: {'; '.join(groups)}" if groups else ""


def experiment_dialog(
    *, case_id: str, actor: str, preset: Mapping[str, str] | None = None, hint: str = ""
) -> FormDialog[RecordExperiment]:
    fields = fields_of(EXPERIMENT, dict(preset or {}))
    if hint:  # the rule's own suggestion, from next steps
        fields[0] = replace(fields[0], placeholder=f"e.g. {hint}")
    return FormDialog(
        EXPERIMENT.heading,
        fields,
        build_from(EXPERIMENT),
        echo=lambda action: command_line(EXPERIMENT, action, case_id, actor),
    )
