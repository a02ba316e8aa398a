"""``hypothesis list`` and ``question list`` as text: one line per row, ids first.

The id comes first so it can be copied into the next command; each row is one line whatever
its text holds (:func:`~casefile.cli.terminal.one_line`), so a hypothesis worded with a
newline cannot pose as another row.
"""

from __future__ import annotations

from casefile.app.views.lists import HypothesisList, QuestionList
from casefile.cli.render.text import percent
from casefile.cli.terminal import one_line


def render_hypothesis_list(view: HypothesisList) -> str:
    if not view.hypotheses:
        return one_line(f"Case {view.case.id}: no hypotheses yet")
    width = max(len("  " * row.depth + row.id) for row in view.hypotheses)
    lines = [f"{'ID':<{width}}  {'QUESTION':<12} {'STATUS':<8} {'PRIOR':>6} {'CONF':>6}  TEXT"]
    for row in view.hypotheses:
        label = "  " * row.depth + row.id
        lines.append(
            one_line(
                f"{label:<{width}}  {row.question:<12} {row.status:<8} "
                f"{percent(row.prior)} {percent(row.confidence)}  {row.text}"
            )
        )
    return "\n".join(lines)


def render_question_list(view: QuestionList) -> str:
    if not view.questions:
        return one_line(f"Case {view.case.id}: no questions yet")
    width = max(len(row.id) for row in view.questions)
    lines = [f"{'ID':<{width}}  {'STATUS':<6} {'HYP':>3} {'EVID':>4}  LEADER (CONF)  TEXT"]
    for row in view.questions:
        lines.append(
            one_line(
                f"{row.id:<{width}}  {row.status:<6} {row.open_hypotheses:>3} {row.evidence:>4}  "
                f"{row.leader} ({percent(row.confidence).strip()})  {row.text}"
            )
        )
    return "\n".join(lines)
