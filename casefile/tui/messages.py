"""Messages the TUI's widgets and workers post upward: small dataclasses, one module.

Attributes go down (a screen hands frames and rows to its widgets), messages come up (a widget
says what the user picked; a worker says what the case thread produced).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from casefile.app.board import BoardState
from casefile.app.views.board import Frame


@dataclass
class BoardReady(Message):
    """The case thread folded what is new: rows, markers and the frame at the head."""

    state: BoardState


@dataclass
class FrameReady(Message):
    """The screen at one step, as the case thread built it."""

    frame: Frame


@dataclass
class CaseGrew(Message):
    """Another writer appended to the case (posted from the feed's thread)."""

    count: int
    actors: tuple[str, ...]

    def can_replace(self, message: Message) -> bool:
        # a burst of commits becomes one refresh
        return isinstance(message, CaseGrew)


@dataclass
class FeedNotice(Message):
    text: str


@dataclass
class RowHighlighted(Message):
    """A list's cursor moved to ``index``."""

    sender_id: str
    index: int


@dataclass
class RowChosen(Message):
    """Enter on a list's row."""

    sender_id: str
    index: int
