"""The ingest review: every item a transcript proposes, each with a checkbox, before anything
is appended.

Space toggles the item under the cursor, ``a`` picks all, ``n`` none; Enter returns what is
picked (the case screen appends it through the service in one append) and Esc returns
``None`` (nothing written). The screen holds no service: it is handed the proposal and returns
an :class:`~casefile.tui.dialogs.ingest.IngestSelection`, as the form dialogs return requests.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Label, Static

from casefile.actions.ingest_actions import IngestTranscript
from casefile.text_safety import block, line
from casefile.transcripts.proposal import Proposal, Proposed, ProposedNote, ProposedRun
from casefile.tui.dialogs.ingest import IngestSelection
from casefile.tui.glyphs import short_time
from casefile.tui.widgets.backdrop import Overlay
from casefile.tui.widgets.fitted_columns import add_fitted_columns

#: The columns, in order (the first is the checkbox).
COLUMNS = ("keep", "#", "kind", "probe", "host", "at", "text", "marks")
#: Lines of the highlighted item's output shown under the table.
OUTPUT_LINES = 8
CHECKED, UNCHECKED = "[x]", "[ ]"


def clip(text: str, width: int) -> str:
    """One line of at most ``width`` cells: a proposal's text is whole lines of output."""
    flat = line(" ".join(text.split()))
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def marks(item: Proposed) -> str:
    """What the review should notice about an item: a filter left off, another setup (the
    command's own environment: no rule reads it), secrets scrubbed, a failing exit status,
    output cut to the cap."""
    found: list[str] = []
    if isinstance(item, ProposedRun):
        if item.filter:
            found.append(f"filter: {item.filter}")
        if item.setup:
            found.append(f"other setup: {item.setup}")
        if item.exit_status not in (None, 0):
            found.append(f"exit {item.exit_status}")
        if item.cut is not None:
            found.append("output cut")
    if item.scrubbed:
        found.append(f"scrubbed: {', '.join(item.scrubbed)}")
    return "; ".join(found)


class IngestReviewScreen(Overlay[IngestSelection | None]):
    """The proposed runs and notes of one transcript, all picked to start with (as ``--yes``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "pick", "pick/unpick"),
        Binding("a", "all", "all"),
        Binding("n", "none", "none"),
        # priority: the table's own Enter would only move on; here it means "append these"
        Binding("enter", "confirm", "append picked", priority=True),
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(
        self, request: IngestTranscript, proposal: Proposal, *, case_id: str, actor: str
    ) -> None:
        super().__init__()
        self.request = request
        self.proposal = proposal
        self.case_id = case_id
        self.actor = actor
        self.picked: set[int] = {item.index for item in proposal.items}

    def compose(self) -> ComposeResult:
        runs = len(self.proposal.runs)
        notes = len(self.proposal.items) - runs
        with Vertical(id="review"):
            yield Label(
                Text(
                    f"Review {line(self.request.path)} ({self.proposal.format}): "
                    f"{runs} run(s), {notes} note(s) proposed"
                ),
                id="review-title",
            )
            yield DataTable(id="review-items", cursor_type="row", zebra_stripes=True)
            yield Static("", id="review-output", markup=False)
            yield Static("", id="review-summary", markup=False)
            yield Static("", id="review-command", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        rows = [self._cells(item) for item in self.proposal.items]
        add_fitted_columns(table, COLUMNS, rows)  # not left to fit: see fitted_columns
        for item, cells in zip(self.proposal.items, rows, strict=True):
            table.add_row(*cells, key=str(item.index))
        table.focus()
        self._summary()
        self._show_output(0)

    def _cells(self, item: Proposed) -> list[Text]:
        # every cell is a rich Text: a str cell would be read as markup ("[x]", "[bash]")
        check = Text(CHECKED if item.index in self.picked else UNCHECKED)
        if isinstance(item, ProposedRun):
            kind, probe, host = "run", item.probe, item.host
            at = short_time(item.at) if item.at else "-"
            text = clip(item.line, 50)
        else:
            kind, probe, host, at = "note", "", "", ""
            text = clip(item.text, 50)
        return [
            check,
            Text(str(item.index + 1), justify="right"),
            Text(kind),
            Text(clip(probe, 18)),
            Text(clip(host, 14)),
            Text(at),
            Text(text),
            Text(clip(marks(item), 30), style="italic"),
        ]

    # --- picking ---------------------------------------------------------------------------

    def _set(self, indexes: set[int]) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        changed = self.picked ^ indexes
        self.picked = indexes
        for index in changed:
            mark = CHECKED if index in indexes else UNCHECKED
            table.update_cell(str(index), "keep", Text(mark))
        self._summary()

    def action_pick(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        if not self.proposal.items:
            return
        index = self.proposal.items[table.cursor_row].index
        self._set(self.picked ^ {index})

    def action_all(self) -> None:
        self._set({item.index for item in self.proposal.items})

    def action_none(self) -> None:
        self._set(set())

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # a click on a row (Enter is the screen's): toggles it, as space does
        event.stop()
        self.action_pick()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_output(event.cursor_row)

    def _show_output(self, row: int) -> None:
        if not 0 <= row < len(self.proposal.items):
            return
        item = self.proposal.items[row]
        if isinstance(item, ProposedRun):
            shown = item.text.splitlines()
            head = shown[:OUTPUT_LINES]
            more = (
                f"\n… {len(shown) - OUTPUT_LINES} more line(s)" if len(shown) > OUTPUT_LINES else ""
            )
            text = f"$ {line(item.line)}\n" + block("\n".join(head)) + more
        else:
            assert isinstance(item, ProposedNote)
            text = block(item.text)
        self.query_one("#review-output", Static).update(text)

    def selection(self) -> IngestSelection:
        keep = tuple(item.index for item in self.proposal.items if item.index in self.picked)
        return IngestSelection(self.request, self.proposal, keep)

    def _summary(self) -> None:
        total = len(self.proposal.items)
        chosen = len(self.picked)
        self.query_one("#review-summary", Static).update(
            f"{chosen} of {total} picked: Enter appends them in one append, Esc appends nothing"
        )
        command = self.query_one("#review-command", Static)
        if chosen:
            picked = self.selection()
            shown = picked.command_line(self.case_id, self.actor)
            command.update(f"$ {line(shown)}")
        else:
            command.update("nothing picked (space picks the row, a picks all)")

    # --- leaving ---------------------------------------------------------------------------

    def action_confirm(self) -> None:
        if not self.picked:
            self.notify(
                "nothing is picked: space picks a row, a picks all, Esc leaves",
                title="Ingest",
                severity="warning",
                markup=False,
            )
            return
        self.dismiss(self.selection())

    def action_cancel(self) -> None:
        self.dismiss(None)
