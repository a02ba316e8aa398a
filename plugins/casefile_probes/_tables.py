"""Reading the tables the tools print: the ``#``-commented headers of nvidia-smi's monitors
(``dmon``, ``pmon``) with the data rows under them, and one row of a bandwidth matrix (the CUDA
samples, nvbandwidth) read as far as its cells go. Shared by the built-in parsers, like the
line cleaning and value reading of :mod:`casefile_probes._text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CommentedTable", "read_commented_table", "row_cells"]


@dataclass(slots=True)
class CommentedTable:
    """A table whose column names and units sit on ``#`` comment lines (dmon, pmon).

    ``rows`` are the whitespace-split data lines after the header, as printed; ``other``
    the non-blank lines that were neither header nor data (workload output mixed into the
    capture, say), so that a parser can report them.
    """

    names: list[str]
    units: list[str]
    rows: list[list[str]] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


def read_commented_table(lines: list[str]) -> CommentedTable | None:
    """Read the first ``# names`` / ``# units`` header pair and the data lines after it.

    nvidia-smi's monitoring commands print two comment lines (``# gpu pwr …`` then
    ``# Idx W …``, or ``#Date Time gpu …``) and repeat them every so often; repeats are
    skipped. Non-blank lines before the header also land in ``other``. Returns None when no
    such header pair exists.
    """
    table: CommentedTable | None = None
    preamble: list[str] = []
    header_lines: set[str] = set()
    position = 0
    while position < len(lines):
        line = lines[position].strip()
        following = lines[position + 1].strip() if position + 1 < len(lines) else ""
        if line.startswith("#") and following.startswith("#") and line.lstrip("#").split():
            if table is None:
                names = line.lstrip("#").split()
                table = CommentedTable(names=names, units=following.lstrip("#").split())
                table.other.extend(preamble)
            header_lines.update((line, following))
            position += 2
            continue
        position += 1
        if not line or line in header_lines:
            continue
        if table is None:
            preamble.append(line)
        elif line.startswith("#"):
            table.other.append(line)
        else:
            table.rows.append(line.split())
    return table


def row_cells(
    text: str, cell: re.Pattern[str], width: int, at_end: bool, label: str
) -> tuple[list[str], str | None]:
    """A matrix row's leading cells, read as far as they go, and a problem when the row does
    not fit its ``width`` columns (``label`` names the row in it). A short row at the very end
    of a paste loses its last cell as well: the number may have been cut mid-way."""
    tokens = text.split()
    cells: list[str] = []
    for token in tokens:
        if not cell.fullmatch(token):
            break
        cells.append(token)
    short = len(cells) < width
    if short and at_end and cells and len(cells) == len(tokens):
        cells.pop()
    if short:
        return cells, f"{label}: {min(len(cells), width)} of {width} values (cut short?)"
    if len(tokens) > width:
        return cells, f"{label}: {len(tokens)} values for {width} columns, extra ignored"
    return cells, None
