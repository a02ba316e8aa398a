"""The TUI's intake form says why a question is moot, as ``casefile intake --list`` does: a
question about several GPUs on a one-GPU job "does not apply", with the answer that says so."""

from __future__ import annotations

from casefile.app.intake import IntakeItem
from casefile.tui.dialogs.triage import _label


def item(**kwargs: object) -> IntakeItem:
    return IntakeItem(
        "gpu-throughput@3",
        "nvlink",
        "NVLink?",
        ("yes", "no"),
        "",
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_moot_question_says_which_answer_makes_it_moot() -> None:
    label = _label(item(does_not_apply="gpu-count = one (seq 27)"))
    assert label == "NVLink? [yes / no] — does not apply: gpu-count = one (seq 27)"
    assert not item(does_not_apply="gpu-count = one (seq 27)").pending


def test_an_open_question_says_nothing_more() -> None:
    assert _label(item()) == "NVLink? [yes / no]"
    assert item().pending
    # an answer in force is shown as the answer, whatever else holds
    assert _label(item(answer="no", source="answered")) == "NVLink? [yes / no] — now: no"
