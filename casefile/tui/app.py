"""The Textual application: wiring only (screens, the case thread, palette commands)."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from textual import events
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


#: the keys whose screen the app remembers until they come back up (a burst is a few dozen)
ROUTED_KEYS = 256
#: how often a key given from the queue is looked at, until it is done with
KEY_POLL_S = 0.001
#: how long a given key is waited for at most: one that a widget dropped as it closed never
#: comes back up, and must not hold every later key (nor keep the poll running) for good
KEY_WAIT_S = 0.5
#: ... and looked at this many times by the queue's poll (each look is a turn of the event
#: loop): a machine so loaded that the loop stalls past :data:`KEY_WAIT_S` is not a key that
#: was dropped, and the key behind it must still wait
KEY_WAIT_LOOKS = 100
#: ... and never longer than this, a key read long ago having been looked at by no one
KEY_WAIT_MAX_S = 4 * KEY_WAIT_S
#: How often queued keys look again for a screen on top that cannot take them yet (a dialog
#: mounting): it releases them itself, so this only matters if it closes before it could
NOT_READY_POLL_S = 0.05


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
        #: keys that came for a pushed screen before it could take them (see :meth:`on_event`)
        self._held_keys: deque[events.Key] = deque()
        #: the key last sent in (read or given from the queue), until it is done with (see
        #: :meth:`_on_its_way`)
        self._giving: events.Key | None = None
        #: keys that came back up from a screen covered since (typed before those held)
        self._bounced: deque[events.Key] = deque()
        #: whether :meth:`_give_held_key` is due to run (one at a time)
        self._giver = False
        #: when the key being given was given (``time.monotonic``)
        self._given_at = 0.0
        #: how often the queue has looked at the key on its way since it was given
        self._looks = 0
        #: the screen each key read lately was sent into, by the key's id (the key kept, so
        #: its id is not reused): at most :data:`ROUTED_KEYS`, the oldest let go
        self._routed: OrderedDict[int, tuple[events.Key, Screen[Any]]] = OrderedDict()

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

    def warm_styles(self) -> None:
        """Read now the CSS of the widgets that the dialogs, the palette and the help pane are
        made of and the case screen is not. Textual reads a widget type's CSS the first time one
        is mounted, and then rebuilds its whole rule set: the first dialog opened in a session
        read five of them and rebuilt the rules as many times, the first palette five more
        (about 10 ms on each). Run once the case is drawn; a type listed here that a dialog no
        longer uses only costs its parse."""
        from textual.command import CommandInput, CommandList, CommandPalette, SearchIcon
        from textual.screen import ModalScreen
        from textual.widgets import Button, Label, LoadingIndicator, OptionList, TextArea

        stylesheet = self.stylesheet
        for kind in (
            ModalScreen,
            Label,
            OptionList,
            Button,
            TextArea,
            CommandPalette,
            SearchIcon,
            CommandInput,
            CommandList,
            LoadingIndicator,
        ):
            # what mounting one would add (Widget._post_register), read off the type alone
            for read_from, css, tie_breaker, scope in kind._get_default_css(kind.__new__(kind)):
                stylesheet.add_source(
                    css,
                    read_from=read_from,
                    is_default_css=True,
                    tie_breaker=tie_breaker,
                    scope=scope,
                )
        stylesheet.rules_map  # noqa: B018  # parsed and matched now, not at the first open

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
        from casefile.tui.widgets.collector import release_collector

        release_collector()  # held by a screen that never drew (see widgets.collector)
        self.backend.close()

    async def on_event(self, event: events.Event) -> None:
        """Keys typed in one burst with the key that opens a dialog (a paste, ``tmux
        send-keys``, an agent driving the TUI) must reach the dialog. Textual sends each key
        to the focused widget as it reads it, so the keys behind ``n`` went to the case
        screen's timeline before ``n`` had opened anything; they came back up after the
        dialog was pushed, were run against its bindings and dropped (``q`` quit the app).
        A key that comes back from a screen since covered by another is queued again, for
        the screen on top, as is one read while keys are queued, while the key before it is
        still on its way (a widget of a dialog that the key before closes would take it), or
        while the screen on top cannot take keys yet; queued keys are given one at a time
        (:meth:`_give_held_key`), in the order they were typed."""
        if isinstance(event, events.Key):
            if not event.is_forwarded:
                if self._holding_keys():
                    self._held_keys.append(event)
                    self.release_keys()
                    return
                # sent by no one, as a key given from the queue is: a key the app sent would be
                # stopped by the screen on its way up, and so look done before the app had run
                # its bindings (Esc closing a dialog) on it
                event._sender = None
                self._route(event)
                # on its way until done with, as a key given from the queue is: a key behind
                # it waits, so it is read by the screen this one leaves (Esc closing a dialog)
                self._giving, self._given_at, self._looks = event, time.monotonic(), 0
                await self._send_in(event)
                return
            else:
                given = event is self._giving
                sent = self._routed.pop(id(event), None)
                if sent is not None and sent[0] is event and sent[1] is not self.screen:
                    # typed before any key queued since it was sent; one given from the queue
                    # before all that are left there
                    again = events.Key(event.key, event.character)
                    if given:
                        self._giving = None
                        self._bounced.appendleft(again)
                    else:
                        self._bounced.append(again)
                    self.release_keys()
                    return
                await super().on_event(event)  # the bindings it came back up for
                if given and self._giving is event:
                    self._giving = None  # done with: its bindings have run
                return
        await super().on_event(event)

    def _route(self, key: events.Key) -> None:
        """Remember the screen ``key`` is sent into, to know it if it comes back up."""
        self._routed[id(key)] = (key, self.screen)
        while len(self._routed) > ROUTED_KEYS:
            self._routed.popitem(last=False)

    def _holding_keys(self) -> bool:
        """While keys are queued (or one is on its way), later ones queue behind them, so none
        overtakes another."""
        return (
            bool(self._held_keys or self._bounced)
            or self._on_its_way()
            or not getattr(self.screen, "takes_keys", True)
        )

    def _on_its_way(self) -> bool:
        """Whether the last key sent in is still at work, for less than :data:`KEY_WAIT_S`
        (and :data:`KEY_WAIT_LOOKS` looks, up to :data:`KEY_WAIT_MAX_S`):
        passing through the widgets (neither taken by one, stopped, nor come back up and its
        bindings run), or what it set off still on its way up from the focused widget to its
        screen (Enter in an input submits it by a message the dialog reads later)."""
        waited = time.monotonic() - self._given_at
        if waited >= KEY_WAIT_MAX_S or (waited >= KEY_WAIT_S and self._looks >= KEY_WAIT_LOOKS):
            return False
        key = self._giving
        if key is not None and not key._stop_propagation:
            return True
        node = self.focused or self.screen
        return any(pump.message_queue_size for pump in node.ancestors_with_self if pump is not self)

    def release_keys(self) -> None:
        """A screen that held off keys can take them now (its focus is set): the queued keys
        go to it on the app's own turn, ahead of anything typed after them."""
        if (self._held_keys or self._bounced) and not self._giver:
            self._giver = True
            self.call_later(self._give_held_key)

    async def _give_held_key(self) -> None:
        """Queued keys go one at a time: the next only once the last is done with, having come
        back up (its bindings run: Esc may have closed the dialog, ``:`` opened another) or
        been taken by a widget on its way, so a key is read by the screen its forerunner
        left. Keys that came back from a covered screen go first: they were typed first."""
        if self._on_its_way():
            self._looks += 1
            # still on its way: look again shortly (a timer, not call_later alone, which would
            # run the app's queue without yielding to the widgets the key is passing through),
            # and then on the app's queue, behind what the key had the app do (a focus moved)
            self.set_timer(KEY_POLL_S, lambda: self.call_later(self._give_held_key))
            return
        self._giving = None
        queue = self._bounced or self._held_keys
        if not queue:
            self._giver = False
            return
        if not getattr(self.screen, "takes_keys", True):
            # a screen not ready: it releases them once its focus is set, and should it close
            # before that (its release never runs) a look now and then gives them to the next
            self._giver = False
            self.set_timer(NOT_READY_POLL_S, self.release_keys)
            return
        held = queue.popleft()
        key = events.Key(held.key, held.character)
        # sent by no one, so the screen does not stop it on its way up to the app (it does
        # that for a message its parent sent), and a stopped key is one a widget took
        key._sender = None
        self._giving = key
        self._given_at, self._looks = time.monotonic(), 0
        self._route(key)
        await self._send_in(key)
        self.call_later(self._give_held_key)

    async def _send_in(self, key: events.Key) -> None:
        """Textual's handling of a key as read: the app's priority bindings, else on to the
        focused widget. A key a binding took here (ctrl+p, ctrl+q) is never sent on, so it is
        done with at once: nothing behind it waits for it."""
        await super().on_event(key)
        if not key.is_forwarded and self._giving is key:
            self._giving = None


def _writes(action: str) -> bool:
    from casefile.tui.screens.case_writing import writes

    if action.startswith("write('"):
        return writes("write", (action[7:-2],))
    return writes(action)


def _runner(screen: Screen[Any], action: str) -> Callable[[], object]:
    async def run() -> None:
        await screen.run_action(action)

    return run
