"""Replay and the timeline filter: the same screen stopped at a step.

The timeline cursor is the focus: stepping, jumping to a seq or a time, to the previous or next
pivot or warning, and playing all move it, and every pane shows the state right after it. Esc
returns live (or first closes the filter, or cancels a running probe).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual import on
from textual.widgets import Input

from casefile.tui.widgets.help_pane import close_help
from casefile.tui.widgets.status_bar import StatusBar
from casefile.tui.widgets.timeline import Timeline

if TYPE_CHECKING:
    pass
from casefile.tui.screens.case_base import CaseScreenBase

#: Seconds between steps while replay plays.
PLAY_INTERVAL = 0.6


class ReplayControls(CaseScreenBase):
    """Moving the focus through the case's history."""

    def _focus(self, seq: int, *, move_cursor: bool = True) -> None:
        if self.state is None:
            return
        if self.state.partial:
            self.notify("the case's history is still being folded", title="Replay", markup=False)
            return
        head = self.state.frame.head
        seq = max(1, min(seq, head))
        previous = self.focus_seq if self.focus_seq is not None else head
        self.focus_seq = seq
        if move_cursor:
            timeline = self.query_one(Timeline)
            timeline.select_seq(seq)
            if abs(seq - previous) > 1:  # a jump: show what came before it too
                timeline.centre()
        self.query_one(StatusBar).change(focus=seq)
        self.query_one(Timeline).set_focus_seq(seq)
        self._spawn(self._frame, seq, name="frame", group="frame", exclusive=True)

    def action_step(self, delta: int) -> None:
        if self.focus_seq is None and delta > 0:
            return  # forward from live is still live
        target = self._current() + delta
        if self.state is not None and target >= self.state.frame.head and delta > 0:
            self.action_live()  # stepping onto the head returns to following it
            return
        self._focus(target)

    def action_jump_first(self) -> None:
        self._focus(1)

    def _marker(self, seqs: Iterable[int], direction: int) -> None:
        here = self._current()
        if direction > 0:
            target = next((s for s in seqs if s > here), None)
        else:
            target = next((s for s in reversed(list(seqs)) if s < here), None)
        if target is None:
            self.notify("no more in that direction", title="Replay", markup=False)
            return
        self._focus(target)

    def action_pivot(self, direction: int) -> None:
        if self.state is not None:
            self._marker(self.state.pivots, direction)

    def action_warning(self, direction: int) -> None:
        if self.state is not None:
            self._marker(self.state.warnings, direction)

    def action_live(self) -> None:
        if self.probe_cancel is not None and not self.probe_cancel.cancelled:
            # Esc while a probe runs stops it: finished hosts stay recorded, the rest are
            # recorded as cancelled runs
            self.probe_cancel.cancel("cancelled from the TUI")
            self.query_one(StatusBar).change(notice="cancelling the probe…")
            return
        if close_help(self):  # Esc closes the help as ? does, before it leaves the replay
            return
        if self.query_one("#filter", Input).display:
            self._close_filter(clear=True)
            return
        self._stop_play()
        self.focus_seq = None
        if self.state is not None:
            self.query_one(Timeline).select_seq(self.state.frame.head)
            self._spawn(self._refresh, name="refresh", group="refresh")

    def action_play(self) -> None:
        if self.playing:
            self._stop_play()
            return
        if self.focus_seq is None:
            self._focus(1)
        self.playing = True
        self._play_timer = self.set_interval(PLAY_INTERVAL, self._tick)
        self.query_one(StatusBar).change(playing=True)

    def _tick(self) -> None:
        if self.state is None or self._current() >= self.state.frame.head:
            self._stop_play()
            return
        self.action_step(1)

    def _stop_play(self) -> None:
        self.playing = False
        timer = self._play_timer
        if timer is not None:
            timer.stop()  # type: ignore[attr-defined]
        self._play_timer = None
        self.query_one(StatusBar).change(playing=False)

    def action_jump(self) -> None:
        from casefile.tui.dialogs.jump import JumpDialog

        if self.state is None:
            return

        def jumped(seq: int | None) -> None:
            if seq is not None:
                self._focus(seq)

        self.app.push_screen(JumpDialog(self.state.rows), jumped)

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.query_one(Timeline).set_filter(event.value)
        self._close_filter(clear=False)

    def _close_filter(self, *, clear: bool) -> None:
        box = self.query_one("#filter", Input)
        if clear:
            box.value = ""
            self.query_one(Timeline).set_filter("")
        box.display = False
        self.query_one(Timeline).focus()
