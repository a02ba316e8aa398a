"""The playbook's per-GPU tables, read one way: a figure for the GPUs a run or a case names.

Device memory (the decode roofline) and host links (a copy test) each map a GPU's name to one
figure of that GPU, row by row. Reading them is the same question both times: the first row
each name fits, and a figure only where every name that fits a row fits one of the same
figure, none of them a row of no figure (0), since a guess between two GPUs is no reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar


class GpuRow(Protocol):
    """A table row over GPU names: ``gpu`` is a pattern, matched without regard to case."""

    @property
    def gpu(self) -> str: ...


Row = TypeVar("Row", bound=GpuRow)


def fits(row: GpuRow, name: str) -> bool:
    """Whether ``row`` describes the GPU called ``name``."""
    return re.search(row.gpu, name, re.IGNORECASE) is not None


def first_row(table: Sequence[Row], name: str) -> Row | None:
    """The row the GPU called ``name`` finds: the first that fits it."""
    return next((row for row in table if fits(row, name)), None)


def one_figure(
    table: Sequence[Row], names: Sequence[str], figure: Callable[[Row], float]
) -> float | None:
    """The figure the GPUs ``names`` call for: each name's first fitting row; None when no name
    fits a row, when one fits a row of no figure (0), or when they fit different figures."""
    found = {figure(row) for name in names if (row := first_row(table, name)) is not None}
    return found.pop() if len(found) == 1 and 0.0 not in found else None
