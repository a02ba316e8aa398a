"""The intake and experiment dialogs: what the responder knows, and what one change did.

Intake shows one field per question the case's playbook asks, with its answers; a question
the case can already answer (``--env``, an earlier probe) says so and is recorded on its own.
The experiment dialog takes the change and the two runs' seqs; the rule that reads the change
and the verdict come from the playbook when it is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from casefile.tui.dialogs.form import Field, FormDialog
from casefile.tui.requests import ExperimentRequest, IntakeRequest

if TYPE_CHECKING:
    from casefile.app.service_triage import IntakeItem


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


def build_intake(items: Sequence[IntakeItem]) -> object:
    by_id = {item.id: item for item in items}

    def build(values: Mapping[str, str]) -> IntakeRequest:
        answers: list[tuple[str, str]] = []
        for qid, raw in values.items():
            value = raw.strip().lower().replace("_", "-")
            if not value:
                continue
            item = by_id[qid]
            if value not in item.answers:
                raise ValueError(f"{qid}: {raw.strip()!r} is not one of {' / '.join(item.answers)}")
            if value != item.answer:
                answers.append((qid, value))
        return IntakeRequest(tuple(answers))

    return build


def intake_dialog(
    items: Sequence[IntakeItem], *, case_id: str, actor: str
) -> FormDialog[IntakeRequest]:
    fields = [Field(item.id, _label(item), placeholder="empty: skip") for item in items]
    return FormDialog(
        "Intake: the symptom's shape (no probabilities to type)",
        fields,
        build_intake(items),  # type: ignore[arg-type]
        case_id=case_id,
        actor=actor,
    )


def _seq(values: Mapping[str, str], name: str, label: str) -> int:
    text = values.get(name, "").strip().lstrip("#")
    if not text:
        raise ValueError(f"the {label} run's seq is required")
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{label}: {text!r} is not an event seq (1, 2, 3 …)")
    return int(text)


def build_experiment(values: Mapping[str, str]) -> ExperimentRequest:
    change = values.get("change", "").strip()
    if not change:
        raise ValueError("state the one change between the two runs")
    baseline = _seq(values, "baseline", "baseline")
    variant = _seq(values, "variant", "variant")
    if baseline == variant:
        raise ValueError("the baseline and the variant are the same run")
    metric = values.get("metric", "").strip() or None
    return ExperimentRequest(change, baseline, variant, metric)


def experiment_dialog(
    *, case_id: str, actor: str, preset: Mapping[str, str] | None = None, hint: str = ""
) -> FormDialog[ExperimentRequest]:
    given = dict(preset or {})
    fields = [
        Field(
            "change",
            "Change (the one difference)",
            hint or "NCCL_P2P_DISABLE=1",
            given.get("change", ""),
        ),
        Field(
            "baseline",
            "Baseline run (seq)",
            "the run without the change",
            given.get("baseline", ""),
        ),
        Field("variant", "Variant run (seq)", "the run with the change", given.get("variant", "")),
        Field("metric", "Metric (optional)", "default: the rule's (nccl.busbw.large …)"),
    ]
    return FormDialog(
        "Experiment: an A/B of one benchmark",
        fields,
        build_experiment,
        case_id=case_id,
        actor=actor,
    )
