"""Plain text for the terminal from the typed views in :mod:`casefile.app.views`.

Only formatting lives here (widths, bars, wrapping, how many rows to show); what belongs
together (warning groups, next steps by rule, the replay's summary, hypothesis names) is decided
by the view builders, so the TUI and the report show the same thing.
"""

from casefile.cli.render.detail import render_event_detail, render_hypothesis_detail
from casefile.cli.render.replay import render_replay, render_step
from casefile.cli.render.status import render_status, warning_lines
from casefile.cli.render.tables import render_cases, render_log, render_log_row
from casefile.cli.render.text import LOCAL, Zone, bar, fixed, percent, timestamp

__all__ = [
    "LOCAL",
    "Zone",
    "bar",
    "fixed",
    "percent",
    "render_cases",
    "render_event_detail",
    "render_hypothesis_detail",
    "render_log",
    "render_log_row",
    "render_replay",
    "render_status",
    "render_step",
    "timestamp",
    "warning_lines",
]
