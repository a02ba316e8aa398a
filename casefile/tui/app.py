"""The Textual application: wiring only (screens, the case thread, palette commands)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from casefile.actions.table import ACTIONS
from casefile.app.probing import SshOptions
from casefile.app.views.probe_catalog import ProbeEntry
from casefile.tui.backend import CaseThread

#: keys as the palette's help names them
_KEY_NAMES = {"plus": "+", "minus": "-"}


def case_commands() -> list[tuple[str, str, str]]:
    """The palette's case commands: title, help, the case screen's action. The action table's
    rows first, then replay and navigation."""
    rows = []
    for spec in ACTIONS:
        if spec.on_case:
            title, text = spec.palette
            key = f" ({_KEY_NAMES.get(spec.key, spec.key)})" if spec.key else ""
            rows.append((title, text + key, f"write('{spec.name}')"))
    return rows + list(_OTHER_COMMANDS)


_OTHER_COMMANDS = (
    ("Replay: first step", "Go to the first event (ctrl+home)", "jump_first"),
    ("Replay: jump", "Go to a seq or a time (:)", "jump"),
    ("Replay: next pivot", "The next change of leader (])", "pivot(1)"),
    ("Replay: previous pivot", "The previous change of leader ([)", "pivot(-1)"),
    ("Replay: next warning", "The next step that raised a warning (w)", "warning(1)"),
    ("Replay: play / pause", "Step through the case (space)", "play"),
    ("Live", "Back to the head, following new events (esc)", "live"),
    ("Filter timeline", "Show only matching events (/)", "filter"),
)


class CasefileApp(App[None]):
    """casefile's terminal UI over one service (opened by :func:`casefile.tui.make_app`)."""

    CSS_PATH = "casefile.tcss"
    TITLE = "casefile"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit"),
        Binding("ctrl+c", "quit", "quit", show=False, priority=True),
    ]

    def __init__(
        self,
        backend: CaseThread,
        *,
        case_id: str | None,
        actor: str,
        database_label: str,
        read_only: bool = False,
        probe_catalog: Callable[[], list[ProbeEntry]] | None = None,
        ssh_hosts: Callable[[], list[str]] | None = None,
        ssh: SshOptions | None = None,
    ) -> None:
        super().__init__()
        self.backend = backend
        self.initial_case = case_id
        self.actor = actor
        self.database_label = database_label
        self.read_only = read_only
        self._probe_catalog = probe_catalog
        self._catalog: list[ProbeEntry] | None = None
        self._ssh_hosts = ssh_hosts
        self._quit_asked = False
        self.ssh = ssh

    def on_mount(self) -> None:
        from casefile.tui.screens.case_list import CaseListScreen

        self.push_screen(CaseListScreen())
        if self.initial_case is not None:
            self.open_case(self.initial_case)

    def open_case(self, case_id: str, *, intake: bool = False) -> None:
        """Show a case; ``intake``: a case just opened from a playbook, whose intake questions
        are asked first (the CLI's ``casefile intake``)."""
        from casefile.tui.screens.case import CaseScreen

        self.push_screen(CaseScreen(case_id, read_only=self.read_only, intake=intake))

    def probe_catalog(self) -> list[ProbeEntry]:
        """The installed probes, with what each reads, costs and gives (the probe picker);
        loaded once (loading imports every probe plugin)."""
        if self._catalog is None:
            self._catalog = self._probe_catalog() if self._probe_catalog is not None else []
        return self._catalog

    def warm_probe_dialog(self) -> None:
        """Run on the case thread once a case is open: load the probes and the ssh config
        reader now, so that the probe dialog's first open pays for neither (0.2 s)."""
        self.probe_catalog()
        self.ssh_hosts()

    def probe_names(self) -> list[str]:
        return [entry.name for entry in self.probe_catalog()]

    def ssh_hosts(self) -> list[str]:
        """The hosts a probe dialog offers (the user's ssh config, unless a test says)."""
        if self._ssh_hosts is not None:
            return self._ssh_hosts()
        from casefile.app.probing import ssh_hosts

        return ssh_hosts(self.ssh.ssh_config if self.ssh is not None else None)

    def action_command_palette(self) -> None:
        """ctrl+p: Textual's palette, opened as an Overlay (casefile.tui.widgets.backdrop)."""
        from textual.command import CommandPalette

        from casefile.tui.widgets.backdrop import Palette

        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(Palette(id="--command-palette"))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from casefile.tui.screens.case import CaseScreen

        if isinstance(screen, CaseScreen):
            for title, help_text, action in case_commands():
                if screen.read_only and _writes(action):
                    continue
                yield SystemCommand(title, help_text, _runner(screen, action))
        yield from super().get_system_commands(screen)

    def action_quit(self) -> None:  # type: ignore[override]
        from casefile.tui.dialogs.form import FormDialog

        screen = self.screen
        from casefile.tui.screens.case import CaseScreen

        running = [
            s for s in self.screen_stack if isinstance(s, CaseScreen) and s.probe_cancel is not None
        ]
        if running and not self._quit_asked:
            self._quit_asked = True
            screen.notify(
                "a probe is running: q again cancels it (what finished stays recorded) and quits",
                title="Quit",
                markup=False,
            )
            return
        for case_screen in running:
            assert case_screen.probe_cancel is not None
            case_screen.probe_cancel.cancel("the TUI quit")
        if isinstance(screen, FormDialog) and screen.dirty():
            screen.notify(
                "the dialog holds unsaved input: Esc to drop it, "
                f"ctrl+s: {screen.confirm_label.lower()}",
                title="Quit",
                markup=False,
            )
            return
        self.exit()

    def on_unmount(self) -> None:
        self.backend.close()


def _writes(action: str) -> bool:
    from casefile.tui.screens.case_writing import writes

    if action.startswith("write('"):
        return writes("write", (action[7:-2],))
    return writes(action)


def _runner(screen: Screen[Any], action: str) -> Callable[[], object]:
    async def run() -> None:
        await screen.run_action(action)

    return run
