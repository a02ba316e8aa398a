"""The probe picker: the installed probes, each with what it reads, what it costs and the facts
it gives, chosen with the arrow keys and Enter (or typed by name in the field below it)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.cache import LRUCache
from textual.content import Content, Span
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.style import Style
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


class Unwrapped(Content):
    """Content whose lines are never wrapped where it is shown: at any width its longest line
    fits, its height is its count of lines, with nothing wrapped to find it. The option list
    asks each option's height at two widths (with and without its scroll bar) as it lays out,
    is shown and draws, and Textual's content remembers one, so every probe's two lines were
    wrapped again at each ask: thirty rows, several times, as the probe dialog opened."""

    def __init__(self, text: str, spans: list[Span]) -> None:
        super().__init__(text, spans)
        lines = text.split("\n")
        self._widest = max(cell_len(part) for part in lines)
        self._lines = len(lines)

    def get_height(self, rules: RulesMap, width: int) -> int:
        if width - rules.get("line_pad", 0) * 2 >= self._widest:
            return self._lines
        return super().get_height(rules, width)


@lru_cache(maxsize=1024)
def entry_prompt(entry: ProbeEntry, width: int = ROW_WIDTH) -> Content:
    """:func:`entry_text` as the content an option shows, made once per probe: every picker
    opened after the first shares it, and with it what the list measures of it (its height at
    the list's width), instead of converting and wrapping thirty rows again at each open."""
    content = Content.from_rich_text(entry_text(entry, width))
    return Unwrapped(content.plain, list(content.spans))


#: Options as drawn, by their prompt (the same object for a probe at every open, see
#: :func:`entry_prompt`), style, padding, width and place in the list
DRAWN: LRUCache[tuple[object, ...], tuple[object, list[Strip]]] = LRUCache(512)


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
        #: the width the options were last drawn at (their drawings are kept for it)
        self._drawn_width: int | None = None

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        """An option as drawn: kept for every picker after (:data:`DRAWN`), each probe's row
        being the same content at the same width in the same style at each open."""
        width = self.scrollable_content_region.width
        if width != self._drawn_width:
            if self._drawn_width is not None:
                self._option_render_cache.clear()  # drawn at another width
            self._drawn_width = width
        padding = self.get_component_styles("option-list--option").padding
        index = self._option_to_index[option]
        key = (id(option.prompt), style, padding, width, index, option._divider)
        found = DRAWN.get(key)
        if found is not None and found[0] is option.prompt:
            return found[1]
        strips = super()._get_option_render(option, style)
        DRAWN[key] = (option.prompt, strips)
        return strips

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Laid out: the options' lines are counted now, not as the list is drawn (Textual's
        list counts them as it draws, and the count changing its size then asked for it to be
        drawn again at the next frame)."""
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        self._update_lines()  # (its scroll bar shown by the count)
        self._update_lines()  # (and the count's width with it)
        return resized

    def _on_resize(self, event: events.Resize) -> None:  # type: ignore[override]  # (its own takes none)
        """Textual's list drops every option's drawing and line count at each resize, and the
        first comes after the list was drawn at its size: drawn again at the next frame for
        nothing. Dropped when the width they were drawn at changed."""
        if self.scrollable_content_region.width == self._drawn_width:
            event.prevent_default()  # not OptionList's: what it would drop is still right
