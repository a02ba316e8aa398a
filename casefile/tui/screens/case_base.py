"""What every part of the case screen shares: its state, the app it belongs to, and the way it
reaches the case thread (named workers that never end the app, frames and refreshes)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.timer import Timer

from casefile.app.board import BoardState
from casefile.app.views.board import Frame
from casefile.errors import CasefileError
from casefile.text_safety import line
from casefile.tui.messages import BoardReady, FrameReady

if TYPE_CHECKING:
    from casefile.app.probing import CancelToken
    from casefile.tui.app import CasefileApp


class CaseScreenBase(Screen[None]):
    """The case screen's state and its calls to the case thread."""

    def __init__(self, case_id: str, *, read_only: bool = False, intake: bool = False) -> None:
        super().__init__()
        self.case_id = case_id
        self.read_only = read_only
        #: open the intake questions once the case is drawn (a case just made from a playbook)
        self.start_with_intake = intake and not read_only
        self.state: BoardState | None = None
        self.frame: Frame | None = None
        self.focus_seq: int | None = None  # None: live
        self.playing = False
        self._play_timer: object | None = None
        self._detail_timer: Timer | None = None
        self.probe_cancel: CancelToken | None = None
        self.commands: list[str] = []
        self.other_writers: set[str] = set()

    @property
    def casefile(self) -> CasefileApp:
        return self.app  # type: ignore[return-value]

    def _spawn(
        self,
        work: Callable[..., Awaitable[None]],
        *args: object,
        name: str,
        group: str,
        exclusive: bool = False,
    ) -> None:
        """Run ``work(*args)`` in a named worker (the coroutine is made only when it starts,
        so a worker cancelled by a newer one leaves nothing un-awaited)."""

        async def run() -> None:
            try:
                await work(*args)
            except CasefileError as error:
                self.notify(line(str(error)), title="casefile", severity="error", markup=False)
            except Exception as error:  # a bug: say so, keep the screen
                self.notify(
                    line(f"{type(error).__name__}: {error}"),
                    title="Internal error (please report it)",
                    severity="error",
                    markup=False,
                )

        # (Textual types a coroutine function as returning Coroutine[None, None, T])
        self.run_worker(
            run,  # type: ignore[arg-type]
            name=name,
            group=group,
            exclusive=exclusive,
            exit_on_error=False,
        )

    async def _refresh(self) -> None:
        backend = self.casefile.backend
        try:
            state = await backend.call(lambda: backend.board(self.case_id).refresh())
        except CasefileError as error:
            self.notify(str(error), title="Reading the case failed", severity="error", markup=False)
            return
        self.post_message(BoardReady(state))

    async def _frame(self, seq: int) -> None:
        backend = self.casefile.backend
        frame = await backend.call(lambda: backend.board(self.case_id).frame(seq))
        self.post_message(FrameReady(frame))

    def _current(self) -> int:
        if self.focus_seq is not None:
            return self.focus_seq
        return self.state.frame.head if self.state else 1
