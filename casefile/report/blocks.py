"""The blocks a report's layout is made of: headings, paragraphs, tables, lists, code, the
chart and a fold, and the inline spans of their text.

Inline content is a sequence of spans: plain strings (text from the case, escaped by the
writer), :class:`Strong` and :class:`~casefile.report.model.Ref` (written as ``seq@hash``; a
link to the event's timeline row in HTML).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casefile.report.model import Chart, Ref


@dataclass(frozen=True)
class Strong:
    text: str


@dataclass(frozen=True)
class Mono:
    """A command line to copy, written as code."""

    text: str


Span = str | Strong | Ref | Mono
Cell = tuple[Span, ...]


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str


@dataclass(frozen=True)
class Para:
    spans: Cell


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    anchors: tuple[str | None, ...] = ()  # a row id each (the timeline's event rows)
    widths: tuple[int, ...] = ()  # relative column widths (HTML), summing to about 100
    #: per row, the ids of the other events a grouped row stands for (links land on it)
    also: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Bullets:
    items: tuple[Cell, ...]


@dataclass(frozen=True)
class Code:
    caption: Cell
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ChartBlock:
    charts: tuple[Chart, ...]


@dataclass(frozen=True)
class Fold:
    """Blocks a reader opens when wanted (HTML: a ``<details>``, closed; Markdown: as they
    are, under their summary)."""

    summary: str
    blocks: tuple[Heading | Para | Table | Bullets | Code, ...]


Block = Heading | Para | Table | Bullets | Code | ChartBlock | Fold


def refs(refs: Sequence[Ref | None]) -> Cell:
    out: list[Span] = []
    for ref in refs:
        if ref is None:
            continue
        if out:
            out.append(", ")
        out.append(ref)
    return tuple(out) if out else ("—",)


def opt(value: str | None) -> Cell:
    return (value,) if value else ("—",)
