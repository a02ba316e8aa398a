"""Jump to a step: a seq (``29``), or a time (``09:51`` or a full ISO time): the last event at
or before it."""

from __future__ import annotations

import shlex
from bisect import bisect_right
from collections.abc import Sequence

from casefile.app.views.board import TimelineRow
from casefile.tui.dialogs.form import Field, FormDialog


def find_step(text: str, rows: Sequence[TimelineRow]) -> int:
    wanted = text.strip()
    if not wanted:
        raise ValueError("give a seq (29) or a time (09:51, 2026-03-02T09:51)")
    if not rows:
        raise ValueError("the case has no events")
    if wanted.lstrip("#").isdigit():
        seq = int(wanted.lstrip("#"))
        if not rows[0].seq <= seq <= rows[-1].seq:
            raise ValueError(f"no event {seq} (events {rows[0].seq}–{rows[-1].seq})")
        return seq
    if len(wanted) == 5 and wanted[2] == ":":  # HH:MM on the day of the last event
        wanted = f"{rows[-1].when[:10]}T{wanted}"
    if len(wanted) < 10 or wanted[4] != "-":
        raise ValueError(f"{text!r} is neither a seq nor a time")
    whens = [row.when for row in rows]  # stored UTC, so text order is time order
    at = bisect_right(whens, wanted.replace(" ", "T") + "\uffff")
    if at == 0:
        raise ValueError(f"no event at or before {text}")
    return rows[at - 1].seq


class JumpDialog(FormDialog[int]):
    """Returns the seq to show; the command line is the replay that shows the same step."""

    def __init__(self, rows: Sequence[TimelineRow]) -> None:
        self.rows = rows
        super().__init__(
            "Jump to a step",
            [Field("where", "Seq, or time (UTC): 29, 09:51, 2026-03-02T09:51")],
            lambda values: find_step(values.get("where", ""), rows),
            echo=lambda seq: shlex.join(["casefile", "replay", "CASE", "--to", str(seq)]),
            confirm_label="Jump",
        )
