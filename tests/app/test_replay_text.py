"""A replay step's JSON text is written field by field (``ReplayStep.json_text``): the same
text as the encoder gives the step's dict, whatever the values (floats of every form, a
changes mapping that is not a dict, text that needs escaping, a suggestion, warnings)."""

from __future__ import annotations

import json
import math
from types import MappingProxyType
from typing import Any

import pytest

from casefile.app.views.replay import ReplayQuestion, ReplayStep, encode_json
from casefile.app.views.steps import Suggestion
from casefile.app.views.warning_groups import WarningRow

QUESTION = ReplayQuestion("h1", "h1", True, "h0", {"h0": 0.25, "h1": 0.75}, 0, "h0")


def step(**fields: Any) -> ReplayStep:
    base: dict[str, Any] = {
        "seq": 7,
        "type": "note.added",
        "actor": "Zoë",
        "when": "2026-03-02T09:00:00.000000Z",
        "hash": "ab" * 32,
        "summary": 'note: quote " backslash \\ ls \u2028 nul \x00 del \x7f 𝄞',
        "detail": None,
        "text": None,
        "outcome": None,
        "questions": {"q1": QUESTION},
        "changes": {},
        "surprise_bits": None,
        "unexpected_bits": None,
        "surprising": False,
        "warnings_raised": (),
        "warnings_cleared": (),
        "suggestion": None,
    }
    return ReplayStep(**{**base, **fields})


CASES = [
    {},
    {"detail": "why", "text": "the note's words\n", "outcome": "faster"},
    {"changes": {"h0": -0.125, "h1": 0.1 + 0.2, "h2": 1e-300, "h3": -0.0, "h4": 5e-324}},
    {"changes": MappingProxyType({"h0": 0.5})},
    {"surprise_bits": 3.0, "unexpected_bits": 2.5, "surprising": True},
    {"surprise_bits": math.inf, "unexpected_bits": math.nan},
    {"surprise_bits": 1, "seq": 10**20},
    {"warnings_raised": (WarningRow("never-measured", "m \x1b", 3, "q1", None),)},
    {"warnings_cleared": (WarningRow("c", "m", 2, None, "s"), WarningRow("d", "n", 1, "q", "t"))},
    {"suggestion": Suggestion("lspci", 0.4142135623730951, ("r1", "r2"), "idle")},
    {"questions": {}},
]


@pytest.mark.parametrize("fields", CASES, ids=lambda fields: ",".join(fields) or "plain")
def test_the_step_text_is_the_encoded_step(fields: dict[str, Any]) -> None:
    replayed = step(**fields)
    questions = encode_json({qid: q.to_json() for qid, q in replayed.questions.items()})
    assert replayed.json_text(questions) == json.dumps(replayed.to_json(), ensure_ascii=False)


@pytest.mark.parametrize(
    "value", [{"a": [1, 2.5, None, True]}, "s\u2029", 0.1, math.nan, -math.inf, [], {}, 10**30]
)
def test_encode_json_is_json_dumps(value: object) -> None:
    assert encode_json(value) == json.dumps(value, ensure_ascii=False)
