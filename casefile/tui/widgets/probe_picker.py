"""The probe picker: the installed probes, each with what it reads, what it costs and the facts
it gives, chosen with the arrow keys and Enter (or typed by name in the field below it)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from casefile.app.views.probe_catalog import ProbeEntry, facts_line
from casefile.text_safety import line

#: characters a row's text may take (the dialog is 84 cells wide, less its borders, padding
#: and scroll bars)
ROW_WIDTH = 66


def entry_text(entry: ProbeEntry, width: int = ROW_WIDTH) -> Text:
    """Two lines: the name, its cost and what it reads; then the facts it gives."""
    where = "" if "ssh" in entry.where else " · this machine only"
    load = " · take under load" if entry.needs_load else ""
    text = Text()
    text.append(line(entry.name), style="bold")
    text.append(f"  [{entry.cost}{where}{load}]  ", style="italic")
    text.append(line(entry.summary))
    text.truncate(width, overflow="ellipsis")
    facts = Text("  " + line(facts_line(entry, width - 2)), style="dim")
    return Text("\n").join([text, facts])


class ProbePicker(OptionList):
    """One option per installed probe, its id the probe's name."""

    def __init__(self, entries: Sequence[ProbeEntry], chosen: str | None = None) -> None:
        super().__init__(*(Option(entry_text(e), id=e.name) for e in entries), id="probe-picker")
        self.entries = list(entries)
        names = [e.name for e in self.entries]
        if chosen in names:
            self.highlighted = names.index(chosen)
