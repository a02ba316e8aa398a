"""What hypotheses are called on screen: the catch-all's one label and the id → text table.

The catch-all has no hypothesis event of its own, so every view that names it must agree on
what to call it; this module is the one place that says so.
"""

from __future__ import annotations

from casefile.domain.beliefs import Projection
from casefile.domain.beliefs.question import QuestionState

#: The label of every question's catch-all (``<question>/catch-all``).
CATCH_ALL_TEXT = "something not yet named"
#: What the catch-all would mean if it were the answer.
CATCH_ALL_MEANING = "the explanation is something no hypothesis here names"


def hypothesis_text(question: QuestionState, hypothesis_id: str) -> str:
    """The current wording of a hypothesis of ``question``, or the catch-all's label."""
    if hypothesis_id == question.catch_all_id:
        return CATCH_ALL_TEXT
    node = question.nodes.get(hypothesis_id)
    return hypothesis_id if node is None else node.text


def names_table(projection: Projection) -> dict[str, str]:
    """Every hypothesis id (catch-alls included) → its current wording, across questions."""
    names: dict[str, str] = {}
    for question in projection.questions.values():
        names[question.catch_all_id] = CATCH_ALL_TEXT
        names.update({hid: node.text for hid, node in question.nodes.items()})
    return names
