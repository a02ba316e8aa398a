"""Next steps: the probes ranked on the focused step's belief, with the figure they are ranked
by (what each tells about the three leading hypotheses, in bits weighted by its cost, and an
A/B that tries the leader's remedy by the leader's lead), the
expected information about the whole question, cost, the load they must run under and which
leading hypotheses each tells apart; Enter opens the probe dialog for the chosen one."""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style

from casefile.app.views.steps import ProbeRow
from casefile.tui.widgets.rows import RowList, cells


class NextSteps(RowList):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.steps: Sequence[ProbeRow] = ()

    def set_steps(self, steps: Sequence[ProbeRow]) -> None:
        self.steps = steps
        self.rows_changed()

    def chosen(self) -> ProbeRow | None:
        return self.steps[self.cursor] if 0 <= self.cursor < len(self.steps) else None

    def row_count(self) -> int:
        return max(1, len(self.steps))

    def row_segments(self, index: int, width: int, style: Style) -> list[Segment]:
        if not self.steps:
            return [
                Segment("no probe offered: open a playbook (o) or add evidence by hand (e)", style)
            ]
        step = self.steps[index]
        load = "under load" if step.load == "under-load" else step.load
        # why this step, in one line (the two leading hypotheses it tells apart and how);
        # the rules it feeds where nothing separates them
        why = step.separates or ", ".join(step.rules)
        text = (
            f"{index + 1:>2}. {step.ranked_bits:.3f} ranked  {step.expected_gain_bits:.3f} bits  "
            f"{cells(step.probe, 18)} "
            f"{cells(step.cost, 9)} {cells(load, 10)} {why}"
        )
        return [Segment(text, style)]
