"""The case list: every case with title, symptom, events, last activity and its leader; open
one, start a new one, import a case directory, filter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from casefile.app.views import CaseRow, LeaderRow
from casefile.app.who import Who
from casefile.errors import CasefileError
from casefile.text_safety import line
from casefile.tui.errors import error_text
from casefile.tui.glyphs import percent, short_time
from casefile.tui.widgets.fitted_columns import add_fitted_columns

if TYPE_CHECKING:
    from casefile.actions.case_actions import ImportCase, NewCase
    from casefile.tui.app import CasefileApp


class CaseListScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "open"),
        Binding("n", "new", "new case"),
        Binding("i", "import_dir", "import"),
        # priority: the app resolves it as it reads the key, not once the table has passed it
        # on, so keys typed in the same burst (a paste, tmux send-keys, an agent) are read
        # after the filter has focus and reach it, where Enter filters instead of opening
        # the highlighted case
        Binding("slash", "filter", "filter", priority=True),
        Binding("r", "reload", "reload", show=False),
        Binding("question_mark,f1", "help", "help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: Sequence[CaseRow] = ()

    @property
    def casefile(self) -> CasefileApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static("Cases", id="list-title")
        yield Input(placeholder="filter cases (Enter)", id="case-filter")
        table: DataTable[Text] = DataTable(id="cases", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="list-empty", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#case-filter", Input).display = False
        table = self.query_one("#cases", DataTable)
        add_fitted_columns(table, COLUMNS, [])
        table.focus()
        self.run_worker(self._load(), name="list-cases", group="cases", exclusive=True)

    async def _load(self) -> None:
        backend = self.casefile.backend
        try:
            rows = await backend.call(lambda: backend.service.library.cases(with_leaders=True))
        except CasefileError as error:
            self.notify(line(str(error)), title="Cannot list cases", severity="error", markup=False)
            return
        self.rows = rows
        self._fill("")

    def _fill(self, needle: str) -> None:
        table = self.query_one("#cases", DataTable)
        cells = [_cells(row) for row in self.rows]
        # Each column as wide as its widest cell of every case (not only those the filter
        # keeps, so the columns stay put while filtering), set with the rows.
        table.clear(columns=True)
        add_fitted_columns(table, COLUMNS, cells)
        needle = needle.lower()
        for row, row_cells in zip(self.rows, cells, strict=True):
            text = f"{row.id} {row.title} {row.symptom or ''}".lower()
            if needle and needle not in text:
                continue
            table.add_row(*row_cells, key=row.id)
        empty = self.query_one("#list-empty", Static)
        if table.row_count:
            empty.update("")
        elif needle:
            empty.update(f"no case matches {needle!r} (/ to change the filter)")
        else:
            empty.update("no cases yet: n starts one, i imports a case directory")

    def action_open(self) -> None:
        table = self.query_one("#cases", DataTable)
        if not table.row_count:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key:
            self.casefile.open_case(key)

    @on(DataTable.RowSelected)
    def _selected(self, _event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_filter(self) -> None:
        box = self.query_one("#case-filter", Input)
        if box.has_focus:
            box.insert_text_at_cursor("/")  # a "/" typed into the filter is part of it
            return
        box.display = True
        # now, not on a later turn as Widget.focus does, so that the next key read finds it
        self.set_focus(box)

    @on(Input.Submitted, "#case-filter")
    def _filtered(self, event: Input.Submitted) -> None:
        self._fill(event.value)
        self.query_one("#cases", DataTable).focus()

    def on_screen_resume(self) -> None:
        # back from a case (or a form): its events and leader may have moved, and a case made
        # from an empty list must show
        self.action_reload()

    def key_escape(self) -> None:
        box = self.query_one("#case-filter", Input)
        if box.display:
            box.value = ""
            box.display = False
            self._fill("")
            self.query_one("#cases", DataTable).focus()

    def action_reload(self) -> None:
        self.run_worker(self._load(), name="list-cases", group="cases", exclusive=True)

    def action_help(self) -> None:
        if self.app.screen.query("HelpPanel"):
            self.app.action_hide_help_panel()
        else:
            self.app.action_show_help_panel()

    def action_new(self) -> None:
        from casefile.actions.spec import command_line
        from casefile.actions.table import NEW
        from casefile.tui.dialogs.actions import dialog

        if self.casefile.read_only:
            self.notify("opened read-only", title="No new case", severity="warning", markup=False)
            return

        def confirmed(action: NewCase | None) -> None:
            if action is not None:
                command = command_line(NEW, action, "", self.casefile.actor)
                # not in the list's group: the reload when the form closes replaces its own
                # workers, and would cancel this one
                self.run_worker(self._create(action, command), name="new-case", group="writes")

        self.app.push_screen(dialog("new", case_id="", actor=self.casefile.actor), confirmed)

    async def _create(self, action: NewCase, command: str) -> None:
        backend = self.casefile.backend
        who = Who(self.casefile.actor)
        try:
            outcome = await backend.call(lambda: action.run(backend.service, "", who))
        except CasefileError as error:
            self.notify(
                line(error_text(error)), title="Case not created", severity="error", markup=False
            )
            return
        self.notify(f"{outcome.said}\n$ {command}", title="New case", markup=False)
        self.casefile.open_case(outcome.value, intake=action.playbook is not None)

    def action_import_dir(self) -> None:
        from casefile.tui.dialogs.actions import dialog

        def confirmed(action: ImportCase | None) -> None:
            if action is not None:
                self.run_worker(self._import(action), name="import", group="writes")

        form = dialog("import", case_id="", actor=self.casefile.actor)
        form.confirm_label = "Import"
        self.app.push_screen(form, confirmed)

    async def _import(self, action: ImportCase) -> None:
        backend = self.casefile.backend
        who = Who(self.casefile.actor)
        try:
            outcome = await backend.call(lambda: action.run(backend.service, "", who))
        except CasefileError as error:
            self.notify(
                line(error_text(error)), title="Not imported", severity="error", markup=False
            )
            return
        self.notify(outcome.said, title="Import", markup=False)
        await self._load()


#: the leader before the long texts, so it stays on screen
COLUMNS = ("case", "leader", "events", "last activity", "title", "symptom")


def _cells(row: CaseRow) -> tuple[Text, ...]:
    """A case's cells, in :data:`COLUMNS` order. Text, not str: a str cell would be read as
    markup (a title saying "[/]" would crash)."""
    return (
        Text(line(row.id)),
        Text(_leader_cell(row.leaders)),
        Text(str(row.events)),
        Text(short_time(row.last_activity or "")),
        Text(line(row.title)[:60]),
        Text(line(row.symptom or "")[:50]),
    )


def _leader_cell(leaders: tuple[LeaderRow, ...] | None) -> str:
    """The first question's leader; "—" for a case with no question yet, and "(open it)" for
    a long case the list did not fold (opening it folds and saves it, and the list then
    shows its leader)."""
    if leaders is None:
        return "(open it)"
    if not leaders:
        return "—"
    return f"{leaders[0].id} {percent(leaders[0].confidence).strip()}"
