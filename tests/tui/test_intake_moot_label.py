"""The TUI's intake form leaves out the questions the case's answers make moot and says once
which, grouped by the answer that makes them so; a moot question already answered stays."""

from __future__ import annotations

from typing import Any

from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.app.intake import IntakeItem
from casefile.tui.dialogs.triage import intake_dialog

ONE = "gpu-count = one (seq 27)"


def item(qid: str, **kwargs: Any) -> IntakeItem:
    return IntakeItem("gpu-throughput@3", qid, f"{qid}?", ("yes", "no"), "", **kwargs)


def test_moot_questions_are_left_out_and_named_once_with_their_reason() -> None:
    items = [
        item("nvlink", does_not_apply=ONE),
        item("platform"),
        item("scaling", does_not_apply=ONE),
        item("scope", does_not_apply="nodes = single (seq 30)"),
    ]
    questions = {q.id: q for q in PLAYBOOK_V3.intake}
    dialog = intake_dialog(items, case_id="c", actor="a", questions=questions)
    assert [spec.name for spec in dialog.fields] == ["platform"]
    assert dialog.note == (
        "Not asked, as they do not apply: nvlink, scaling — gpu-count = one (seq 27); "
        "scope — nodes = single (seq 30)"
    )
    assert dialog.build({"platform": "metal"}).answers == {"platform": "bare-metal"}


def test_a_form_with_nothing_moot_has_no_note_and_keeps_an_answered_question() -> None:
    answered = item("nvlink", answer="no", source="answered", does_not_apply=None)
    dialog = intake_dialog([answered, item("platform")], case_id="c", actor="a")
    assert [spec.name for spec in dialog.fields] == ["nvlink", "platform"]
    assert dialog.note == ""


def test_a_question_made_moot_by_an_answer_just_given_is_moot_under_it() -> None:
    nvlink = item("nvlink", requires=(("gpu-count", ("several",)),))
    assert nvlink.moot_under({"gpu-count": "one"})
    assert not nvlink.moot_under({"gpu-count": "several"})
    assert not nvlink.moot_under({})
    assert nvlink.pending
