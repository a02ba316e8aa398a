"""The status bar: case, head, whether the chain verifies, live or replay, database, writers."""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.widgets import Static

from casefile.text_safety import line


@dataclass(frozen=True)
class StatusLine:
    case_id: str = ""
    head: int = 0
    focus: int | None = None  # replay focus; None when live
    chain: str = "checking chain…"
    database: str = ""
    writers: tuple[str, ...] = ()
    read_only: bool = False
    notice: str = ""
    playing: bool = False

    def text(self) -> str:
        if self.focus is None:
            mode = "● LIVE"
        else:
            mode = (
                f"‖ REPLAY at #{self.focus} of {self.head}"
                if not self.playing
                else f"▶ PLAYING #{self.focus}"
            )
        parts = [f"case {line(self.case_id)}", f"head #{self.head}", self.chain, mode]
        if self.read_only:
            parts.append("read-only")
        parts.append(line(self.database))
        if self.writers:
            parts.append("other writers: " + ", ".join(line(w) for w in self.writers))
        if self.notice:
            parts.append(line(self.notice))
        return "  │  ".join(p for p in parts if p)


class StatusBar(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.status = StatusLine()

    def change(self, **fields: object) -> None:
        self.status = replace(self.status, **fields)  # type: ignore[arg-type]
        self.update(self.status.text())
