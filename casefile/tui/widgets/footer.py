"""The case screen's footer: Textual's, except that it does not rebuild its keys while another
screen (a dialog, the palette) is on top of its own.

Textual's footer rebuilds every key widget whenever its screen's bindings change, and pushing
a dialog changes them (the focus leaves the case screen): about a third of a dialog's opening
went to rebuilding a footer nobody could see. It is rebuilt once its screen is back on top.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class CaseFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._stale = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen and self.app.screen is not screen:
            self._bindings_ready = True
            self._stale = True  # rebuilt when its screen is shown again
            return
        self._stale = False
        super().bindings_changed(screen)

    def catch_up(self) -> None:
        """Its screen is on top again (the screen calls this): the keys it shows catch up, if
        they changed meanwhile."""
        if self._stale:
            self._stale = False
            self.call_later(self.recompose)  # in its own context: its keys bind to it
