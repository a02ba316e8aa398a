"""Table columns set to the width of their widest cell as the rows go in.

Textual's ``DataTable`` measures a column left to fit its content only when the table's
message queue is next idle, and caches what it draws keyed on its update count rather than on
its columns' widths: a frame drawn between adding the rows and that measurement keeps every
column at its header's width until the table next changes. On a loaded machine that frame
comes often, so every table whose rows are known up front sets its widths itself, here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets import DataTable


def fitted_widths(labels: Sequence[str], rows: Iterable[Sequence[Text]]) -> list[int]:
    """Each column's width: the widest of its header and of its cells in ``rows``."""
    widths = [Text(label).cell_len for label in labels]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], cell.cell_len)
    return widths


def add_fitted_columns(
    table: DataTable[Text], labels: Sequence[str], rows: Iterable[Sequence[Text]]
) -> None:
    """Add ``labels`` as columns (each keyed by its label) at :func:`fitted_widths`."""
    for label, width in zip(labels, fitted_widths(labels, rows), strict=True):
        table.add_column(label, key=label, width=width)
