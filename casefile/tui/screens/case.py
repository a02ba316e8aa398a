"""The case screen: timeline | hypothesis tree over detail tabs, a status bar, the footer.

Live, the screen shows the head and follows new events (anyone's, through the change feed).
Replay is the same screen stopped at a step: the timeline cursor is the focus, every pane shows
the state right after it (read from the captured snapshots, never refolded) and later rows are
dimmed. The screen only wires: the case thread builds every view, widgets draw them.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, ClassVar, Self

from textual import messages, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Footer, Input, RichLog, Static, TabbedContent, TabPane

from casefile.app.views.board import Frame
from casefile.app.views.steps import EXPERIMENT_PREFIX, INTAKE_PREFIX
from casefile.errors import CasefileError
from casefile.text_safety import line
from casefile.tui.messages import (
    BoardReady,
    CaseGrew,
    FeedNotice,
    FrameReady,
    RowChosen,
    RowHighlighted,
)
from casefile.tui.screens.case_replay import ReplayControls
from casefile.tui.screens.case_writing import CaseWriting, action_bindings, writes
from casefile.tui.widgets.backdrop import Drawn, KeptBackdrop
from casefile.tui.widgets.collector import release_collector
from casefile.tui.widgets.detail import DetailPane, event_renderable, hypothesis_renderable
from casefile.tui.widgets.footer import CaseFooter
from casefile.tui.widgets.help_pane import close_help, open_help
from casefile.tui.widgets.hypotheses import HypothesisTree
from casefile.tui.widgets.next_steps import NextSteps
from casefile.tui.widgets.status_bar import StatusBar
from casefile.tui.widgets.timeline import Timeline

if TYPE_CHECKING:
    from textual.geometry import Region, Size

    from casefile.domain.events import Event

#: Seconds the timeline cursor must rest before the detail pane fetches its event.
DETAIL_DELAY = 0.12
#: Below this width the panes stack (an 80×24 terminal).
NARROW = 110


class CaseScreen(CaseWriting, ReplayControls):
    """One case, live or replayed."""

    #: the help's dock, from when ``?`` opens it until the frame that first draws it
    _help_undrawn: Widget | None = None
    #: what this screen last drew whole (the help, as it opened)
    _drawn: Drawn | None = None

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "pane('timeline')", "Timeline", show=False),
        Binding("2", "pane('tree')", "Tree", show=False),
        Binding("3", "pane('detail')", "Detail", show=False),
        Binding("4", "pane('next')", "Next steps", show=False),
        Binding("left,h", "step(-1)", "◀ step"),
        Binding("right,l", "step(1)", "step ▶"),
        Binding("[", "pivot(-1)", "◆ prev pivot", show=False),
        Binding("]", "pivot(1)", "next pivot ◆", show=False),
        Binding("w", "warning(1)", "next ⚠", show=False),
        Binding("W", "warning(-1)", "prev ⚠", show=False),
        Binding("space", "play", "play/pause", show=False),
        Binding("ctrl+home", "jump_first", "first step", show=False),
        Binding("ctrl+end,escape", "live", "live"),
        Binding("colon", "jump", "jump to", show=False),
        Binding("slash", "filter", "filter", show=False),
        *action_bindings(),
        Binding("question_mark,f1", "help", "help"),
        Binding("b", "back", "cases", tooltip="back to the case list"),
    ]

    # --- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield Input(
                    placeholder="filter: text, type or actor (Enter to apply, Esc to clear)",
                    id="filter",
                )
                yield Timeline(id="timeline")
            with Vertical(id="side"):
                yield HypothesisTree(id="tree")
                with TabbedContent(id="tabs", initial="tab-detail"):
                    with TabPane("Detail", id="tab-detail"):
                        yield DetailPane(id="detail")
                    with TabPane("Next steps", id="tab-next"):
                        yield NextSteps(id="next")
                    with TabPane("Warnings", id="tab-warnings"):
                        yield Static("", id="warnings", markup=False)
                    with TabPane("Commands", id="tab-commands"):
                        yield RichLog(id="commands", markup=False, wrap=True)
            yield Container(id="help-dock")  # the help, while shown (widgets.help_pane)
        yield StatusBar(id="status")
        yield CaseFooter()

    def on_mount(self) -> None:
        #: the backdrop of the dialogs opened over it, kept while it shows the same
        self.kept_backdrop = KeptBackdrop()
        self.query_one("#filter", Input).display = False
        self.query_one(StatusBar).change(
            case_id=self.case_id,
            database=self.casefile.database_label,
            read_only=self.read_only,
        )
        self.query_one(Timeline).focus()
        self._layout(self.size.width)
        self._spawn(self._open, name="open-case", group="case", exclusive=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: the writing actions are not offered at all (footer, keys, palette)."""
        if not self.read_only:
            return True
        return not writes(action, parameters)

    def on_unmount(self) -> None:
        release_collector()
        # what was frozen at open may hold cycles now garbage (this screen's widgets, an
        # earlier screen's): collectable again, and frozen afresh by the next case opened
        gc.unfreeze()
        backend = self.casefile.backend
        case_id = self.case_id
        backend.submit(lambda: backend.unwatch(case_id))
        if self.probe_cancel is not None:
            self.probe_cancel.cancel("the case screen closed")

    def on_screen_resume(self) -> None:
        self.query_one(CaseFooter).catch_up()

    def on_resize(self, event: object) -> None:
        self._layout(self.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(width < NARROW, "narrow")
        # an 80-column footer holds every shown key with its word only without the padding
        self.query_one(Footer).compact = width < NARROW

    # --- the case thread -------------------------------------------------------------------

    async def _open(self) -> None:
        from casefile.app.board import GLANCE_AFTER

        backend = self.casefile.backend
        case_id = self.case_id
        bar = self.query_one(StatusBar)
        try:
            seq, _ = await backend.call(lambda: backend.service.reader.head(case_id))
            if seq > GLANCE_AFTER:
                # a long case: its head and newest events first, the history folded after
                bar.change(notice=f"folding the history of {seq:,} events…")
                glance = await backend.call(lambda: backend.board(case_id).glance())
                self.post_message(BoardReady(glance))
            state = await backend.call(lambda: backend.board(case_id).refresh())
        except CasefileError as error:
            self.notify(str(error), title="Cannot open the case", severity="error", markup=False)
            return
        finally:
            bar.change(notice="")
        # The fold just built lives as long as the screen and forms no cycles (see
        # casefile.domain.beliefs.projection): out of the cyclic collector's reach, a full
        # collection stops rescanning it, which took ~0.2 s on a 10,000-event case and
        # stalled whatever key was being handled. Reference counting still frees it; closing
        # the screen hands the heap back to the collector (on_unmount).
        gc.freeze()
        self.post_message(BoardReady(state))
        head = state.rows[-1] if state.rows else None
        if head is not None:

            def grew(events: list[Event]) -> None:
                self.post_message(CaseGrew(len(events), tuple(sorted({e.actor for e in events}))))

            def failed(error: CasefileError) -> None:
                self.post_message(FeedNotice(f"change feed: {error}"))

            def notice(text: str) -> None:
                self.post_message(FeedNotice(text))

            position = (head.seq, head.hash)
            await backend.call(lambda: backend.watch(case_id, position, grew, failed, notice))
        self._spawn(self._verify, name="verify-chain", group="verify")
        if not self.read_only:
            backend.submit(self.casefile.warm_probe_dialog)
        # once the case is drawn: the first dialog opened then does not read their CSS
        self.call_after_refresh(self.casefile.warm_styles)

    async def _verify(self) -> None:
        backend = self.casefile.backend
        try:
            # the board's history fold checks the stored snapshot: no second fold beside it
            verified = await backend.call(
                lambda: backend.service.library.verify(
                    self.case_id, fold=backend.board(self.case_id).projection
                )
            )
        except CasefileError as error:
            self.query_one(StatusBar).change(chain=f"✗ chain: {error}")
            return
        self.query_one(StatusBar).change(
            chain="✓ chain verifies" if verified.ok else f"✗ chain: {verified.message}"
        )
        if not verified.ok:
            self.notify(
                line(verified.message),
                title="The chain does not verify",
                severity="error",
                markup=False,
            )

    async def _event_detail(self, seq: int) -> None:
        backend = self.casefile.backend
        try:
            detail = await backend.call(lambda: backend.board(self.case_id).event_detail(seq))
        except CasefileError as error:
            self.query_one(DetailPane).show(f"#{seq}: {error}")
            return
        if self.query_one(Timeline).chosen_seq() == seq:  # stale results are dropped
            self.query_one(DetailPane).show(event_renderable(detail))

    async def _hypothesis_detail(self, hypothesis_id: str, seq: int | None) -> None:
        backend = self.casefile.backend
        try:
            detail = await backend.call(
                lambda: backend.board(self.case_id).hypothesis_detail(hypothesis_id, seq)
            )
        except CasefileError as error:
            self.query_one(DetailPane).show(f"{hypothesis_id}: {error}")
            return
        if self.query_one(HypothesisTree).chosen_id() == hypothesis_id:
            self.query_one(DetailPane).show(hypothesis_renderable(detail, seq))

    # --- messages from the case thread -------------------------------------------------------

    def on_board_ready(self, message: BoardReady) -> None:
        state = message.state
        first = self.state is None
        self.state = state
        timeline = self.query_one(Timeline)
        live = self.focus_seq is None
        timeline.set_rows(state.rows, follow=live and (first or self._at_bottom()))
        bar = self.query_one(StatusBar)
        bar.change(head=state.frame.head)
        if first and self.start_with_intake:
            self.start_with_intake = False
            self.action_intake()
        if state.rewritten and state.integrity:
            self.notify(
                line(state.integrity[-1]),
                title="History rewritten",
                severity="warning",
                markup=False,
            )
        if live:
            self._show_frame(state.frame)
        elif self.focus_seq is not None:
            self._spawn(self._frame, self.focus_seq, name="frame", group="frame", exclusive=True)

    def _at_bottom(self) -> bool:
        timeline = self.query_one(Timeline)
        return timeline.cursor >= timeline.row_count() - 2

    def on_frame_ready(self, message: FrameReady) -> None:
        wanted = (
            self.focus_seq
            if self.focus_seq is not None
            else (self.state.frame.head if self.state else None)
        )
        if wanted is not None and message.frame.seq != wanted:
            return  # a stale frame: the focus has moved on
        self._show_frame(message.frame)

    def _show_frame(self, frame: Frame) -> None:
        self.frame = frame
        self.query_one(HypothesisTree).set_frame(frame)
        self.query_one(NextSteps).set_steps(frame.next_steps)
        warnings = (
            "\n".join(f"⚠ [{w.code}] #{w.seq} {line(w.message)}" for w in frame.warnings)
            or "no warnings at this step"
        )
        self.query_one("#warnings", Static).update(warnings)
        self.query_one(Timeline).set_focus_seq(self.focus_seq)
        self.query_one(StatusBar).change(focus=self.focus_seq, playing=self.playing)

    def on_case_grew(self, message: CaseGrew) -> None:
        mine = {self.casefile.actor}
        self.other_writers |= set(message.actors) - mine
        if self.other_writers:
            self.query_one(StatusBar).change(writers=tuple(sorted(self.other_writers)))
        self._spawn(self._refresh, name="refresh", group="refresh", exclusive=False)

    def on_feed_notice(self, message: FeedNotice) -> None:
        self.query_one(StatusBar).change(notice=message.text)

    def _detail_soon(self, seq: int) -> None:
        """Fetch the event detail once the cursor rests: scrubbing through a replay redraws
        the tree and the timeline at every step, and the detail of the step it stops on."""
        timer = self._detail_timer
        if timer is not None:
            timer.stop()

        def fetch() -> None:
            self._detail_timer = None
            if self.query_one(Timeline).chosen_seq() == seq:
                self._spawn(
                    self._event_detail, seq, name="event-detail", group="detail", exclusive=True
                )

        self._detail_timer = self.set_timer(DETAIL_DELAY, fetch)

    @on(RowHighlighted)
    def _highlighted(self, message: RowHighlighted) -> None:
        if message.sender_id == "timeline":
            seq = self.query_one(Timeline).chosen_seq()
            if seq is None:
                return
            if self.focus_seq is not None and seq != self.focus_seq:
                self._focus(seq, move_cursor=False)
            self._detail_soon(seq)
        elif message.sender_id == "tree":
            hid = self.query_one(HypothesisTree).chosen_id()
            if hid is not None:
                self._spawn(
                    self._hypothesis_detail,
                    hid,
                    self.focus_seq,
                    name="hypothesis-detail",
                    group="detail",
                    exclusive=True,
                )

    @on(RowChosen)
    def _chosen(self, message: RowChosen) -> None:
        if message.sender_id == "next":
            step = self.query_one(NextSteps).chosen()
            if step is not None and step.probe.startswith(EXPERIMENT_PREFIX):
                self.action_experiment(step.probe[len(EXPERIMENT_PREFIX) :])
            elif step is not None and step.probe.startswith(INTAKE_PREFIX):
                self.action_intake()
            elif step is not None:
                self.action_probe(step.probe, step.load)
        elif message.sender_id in ("timeline", "tree"):
            self.query_one("#tabs", TabbedContent).active = "tab-detail"

    # --- replay ----------------------------------------------------------------------------

    # --- filter, panes, help ---------------------------------------------------------------

    def action_pane(self, name: str) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        if name == "detail":
            tabs.active = "tab-detail"
            self.query_one(DetailPane).focus()
        elif name == "next":
            tabs.active = "tab-next"
            self.query_one(NextSteps).focus()
        else:
            self.query_one(f"#{name}").focus()

    def action_help(self) -> None:
        """``?``: the keys and the timeline's legend over the panes' right side, or away
        again (over them, not beside them: the panes keep their width and are not laid out
        and drawn again)."""
        if close_help(self):
            self._help_undrawn = None
        else:
            self._help_undrawn = open_help(self)

    def _compositor_refresh(self) -> None:
        """The frame that first shows the help draws it whole: the requests its widgets made as
        they were laid out, to be drawn again at the next frame, are met (the pane drawn twice
        was a third of its opening; see widgets.backdrop.Drawn)."""
        dock = self._help_undrawn
        if dock is None or not dock.has_class("-open"):  # (closed before it was drawn)
            self._help_undrawn = None
            super()._compositor_refresh()
            return
        if self._drawn is None:
            self._drawn = Drawn()
        if self._drawn.over(self, dock, super()._compositor_refresh):
            self._help_undrawn = None

    async def _on_update(self, message: messages.Update) -> None:
        if self._drawn is not None and self._drawn.met(message):
            message.stop()
            message.prevent_default()  # (not Screen's, which would draw it again)
        else:
            self._shown_changed()

    # --- what a dialog's backdrop shows of it (see widgets.backdrop.backdrop) ------------------

    def _shown_changed(self) -> None:
        """What this screen shows may have changed: the backdrop kept of it is dropped."""
        kept = self.__dict__.get("kept_backdrop")
        if kept is not None:
            kept.changed()

    async def _on_update_scroll(self, message: messages.UpdateScroll) -> None:
        self._shown_changed()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        # a layout that moved or resized nothing (Textual lays the screen out again as a dialog
        # over it is removed) changes nothing shown
        before = self._compositor._full_map
        super()._refresh_layout(size, scroll)
        after = self._compositor._full_map
        if after is not before and after.items() ^ before.items():
            self._shown_changed()

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        # a repaint of the screen alone (Textual's as a dialog is pushed over it) or a layout
        # (see _refresh_layout) changes nothing by itself
        if regions or recompose:
            self._shown_changed()
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()

    # --- writing ---------------------------------------------------------------------------
