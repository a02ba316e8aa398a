"""Jump to a step: a seq (``29``), or a time (``09:51``, ``03-02 09:51`` as a timeline row
shows it, or a full ISO time; in the zone the timeline shows unless it says its own): the last
event at or before it."""

from __future__ import annotations

import shlex
from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime
from datetime import time as dt_time

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
    stored = _as_stored(wanted, rows[-1].when, text)
    whens = [row.when for row in rows]  # stored UTC, so text order is time order
    at = bisect_right(whens, stored + "\uffff")
    if at == 0:
        raise ValueError(f"no event at or before {text}")
    return rows[at - 1].seq


def _as_stored(wanted: str, last: str, text: str) -> str:
    """A typed time as the stored form's prefix (UTC, to the minute or the second typed). A
    time without a zone is the machine's local time, the zone the timeline shows (and the
    CLI's ``--at`` reads); ``HH:MM`` is on the local day of the last event, ``MM-DD HH:MM`` in
    its local year."""
    try:
        to_seconds = wanted[:19].count(":") >= 2
        if len(wanted) == 5 and wanted[2] == ":":
            day = datetime.fromisoformat(last.replace("Z", "+00:00")).astimezone().date()
            moment = datetime.combine(day, dt_time.fromisoformat(wanted))
        elif len(wanted) == 11 and wanted[2] == "-" and wanted[5] == " ":  # 03-02 15:21
            year = datetime.fromisoformat(last.replace("Z", "+00:00")).astimezone().year
            moment = datetime.fromisoformat(f"{year}-{wanted}")
        elif len(wanted) == 10 and wanted[4] == "-":  # a day: its last event
            moment = datetime.combine(datetime.fromisoformat(wanted).date(), dt_time.max)
            to_seconds = True
        elif len(wanted) > 10 and wanted[4] == "-":
            moment = datetime.fromisoformat(wanted.replace(" ", "T").replace("Z", "+00:00"))
        else:
            raise ValueError
    except ValueError:
        raise ValueError(f"{text!r} is neither a seq nor a time") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()  # a naive time is local time
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S" if to_seconds else "%Y-%m-%dT%H:%M")


class JumpDialog(FormDialog[int]):
    """Returns the seq to show; the command line is the replay that shows the same step."""

    def __init__(self, rows: Sequence[TimelineRow]) -> None:
        self.rows = rows
        super().__init__(
            "Jump to a step",
            [Field("where", "Seq, or time as the timeline shows it: 29, 09:51, 03-02 09:51")],
            lambda values: find_step(values.get("where", ""), rows),
            echo=lambda seq: shlex.join(["casefile", "replay", "CASE", "--to", str(seq)]),
            confirm_label="Jump",
        )
