"""The intake and experiment dialogs: what the responder knows, and what one change did.

Intake shows one field per question the case's playbook asks, with its answers; a question
the case can already answer (``--env``, an earlier probe) says so and is recorded on its own.
The experiment dialog takes the change and the two runs' seqs; the rule that reads the change
and the verdict come from the playbook when it is recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from casefile.actions.spec import command_line
from casefile.actions.table import EXPERIMENT, INTAKE
from casefile.actions.triage_actions import AnswerIntake, RecordExperiment
from casefile.tui.dialogs.actions import build_from, fields_of
from casefile.tui.dialogs.form import Field, FormDialog

if TYPE_CHECKING:
    from casefile.app.intake import IntakeItem


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


def build_intake(items: Sequence[IntakeItem]) -> Callable[[Mapping[str, str]], AnswerIntake]:
    by_id = {item.id: item for item in items}

    def build(values: Mapping[str, str]) -> AnswerIntake:
        answers: dict[str, str] = {}
        for qid, raw in values.items():
            value = raw.strip().lower().replace("_", "-")
            if not value:
                continue
            item = by_id[qid]
            if value not in item.answers:
                raise ValueError(f"{qid}: {raw.strip()!r} is not one of {' / '.join(item.answers)}")
            if value != item.answer:
                answers[qid] = value
        return AnswerIntake(answers)

    return build


def intake_dialog(
    items: Sequence[IntakeItem], *, case_id: str, actor: str
) -> FormDialog[AnswerIntake]:
    # a question the case's answers make moot (NVLink for a one-GPU job) is not asked; the
    # note says which, and why, once
    asked = [item for item in items if item.does_not_apply is None or item.answer is not None]
    fields = [Field(item.id, _label(item), placeholder="empty: skip") for item in asked]
    return FormDialog(
        INTAKE.heading,
        fields,
        build_intake(asked),
        echo=lambda action: command_line(INTAKE, action, case_id, actor),
        note=_moot_note([item for item in items if item not in asked]),
    )


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
