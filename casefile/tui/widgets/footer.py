"""The case screen's footer: Textual's, except that it does not rebuild its keys while another
screen (a dialog, the palette) is on top of its own.

Textual's footer rebuilds every key widget whenever its screen's bindings change, and pushing
a dialog changes them (the focus leaves the case screen): about a third of a dialog's opening
went to rebuilding a footer nobody could see. It is rebuilt once its screen is back on top.

Nor is it rebuilt then when the keys it would show are those it shows: a dialog opened and
closed leaves them as they were, and the rebuilt footer had the case screen drawn again (and
every dialog's backdrop made afresh, see :mod:`casefile.tui.widgets.backdrop`).

Each rebuild also drops the watchers its old keys set on it (see
:mod:`casefile.tui.widgets.leftovers`), which would otherwise keep every key it ever showed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.widgets import Footer

from casefile.tui.widgets.leftovers import prune_watchers

if TYPE_CHECKING:
    from textual.app import ComposeResult


class CaseFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._stale = False
        #: what the keys shown were made from (:meth:`keys`)
        self._shown: tuple[object, ...] | None = None

    def keys(self) -> tuple[object, ...] | None:
        """Everything Textual's footer makes its keys from (``Footer.compose``), as it would
        read it now; ``None`` before it shows any."""
        if not self._bindings_ready:
            return None
        app = self.app
        active = self.screen.active_bindings
        shown = tuple(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                binding.group,
                enabled,
                tooltip,
            )
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette: tuple[object, ...] | None = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                palette = (
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    binding.tooltip,
                    enabled,
                    tooltip,
                )
        return shown, palette

    def compose(self) -> ComposeResult:
        self._shown = self.keys()
        yield from super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen and self.app.screen is not screen:
            self._bindings_ready = True
            self._stale = True  # rebuilt when its screen is shown again
            return
        self._stale = False
        if self.is_attached and screen is self.screen and self._shown is not None:
            self._bindings_ready = True
            if self.keys() == self._shown:
                return  # the same keys: nothing to rebuild
        super().bindings_changed(screen)

    def catch_up(self) -> None:
        """Its screen is on top again (the screen calls this): the keys it shows catch up, if
        they changed meanwhile."""
        if self._stale:
            self._stale = False
            if self.keys() != self._shown:
                self.call_later(self.recompose)  # in its own context: its keys bind to it

    async def recompose(self) -> None:
        await super().recompose()
        # the keys just removed are closed: their bindings to the footer's ``compact`` go
        prune_watchers(self)
