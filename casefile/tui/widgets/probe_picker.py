"""The probe picker: the installed probes, each with what it reads, what it costs and the facts
it gives, chosen with the arrow keys and Enter (or typed by name in the field below it)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.text import Text
from textual import events
from textual.content import Content
from textual.message import Message
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


@lru_cache(maxsize=1024)
def entry_prompt(entry: ProbeEntry, width: int = ROW_WIDTH) -> Content:
    """:func:`entry_text` as the content an option shows, made once per probe: every picker
    opened after the first shares it, and with it what the list measures of it (its height at
    the list's width), instead of converting and wrapping thirty rows again at each open."""
    return Content.from_rich_text(entry_text(entry, width))


class ProbePicker(OptionList):
    """One option per installed probe, its id the probe's name. Typing on it spells a name:
    the first probe whose name starts with what was typed (else holds it) is highlighted,
    so ``p``, ``nvidia-smi-q``, Enter picks that probe, typed or pasted at once; the focus
    stays on the list meanwhile, so every key of a burst is read here, in order."""

    class Typed(Message):
        """What has been typed on the picker so far (the dialog shows it in the name field)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    typed = ""

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if event.key == "backspace" and self.typed:
            self.typed = self.typed[:-1]
        elif character is not None and event.is_printable and not character.isspace():
            self.typed += character
        else:
            return
        event.stop()
        event.prevent_default()
        self._highlight(self.typed)
        self.post_message(self.Typed(self.typed))

    def _highlight(self, typed: str) -> None:
        names = [e.name for e in self.entries]
        if typed in names:
            self.highlighted = names.index(typed)
            return
        for matches in (str.startswith, str.__contains__):
            found = next((i for i, name in enumerate(names) if matches(name, typed)), None)
            if found is not None:
                self.highlighted = found
                return

    def __init__(self, entries: Sequence[ProbeEntry], chosen: str | None = None) -> None:
        super().__init__(*(Option(entry_prompt(e), id=e.name) for e in entries), id="probe-picker")
        self.entries = list(entries)
        names = [e.name for e in self.entries]
        if chosen in names:
            self.highlighted = names.index(chosen)
