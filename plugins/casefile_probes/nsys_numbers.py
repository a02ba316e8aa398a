"""How ``nsys stats`` prints a number, and what to make of a row that does not: one job for
:mod:`casefile_probes.nsys_stats`.

In English nsys groups thousands with commas ("285,118,634") and marks decimals with a point.
Under another locale it prints "19,0" and "285 118 634": a decimal comma and space-grouped
thousands. Split on spaces, such a row's cells are not its columns, and read as English a
"19,0" is 190 % of the time. No row of such a table can be trusted, so it is refused with a
reason rather than misread (2,609 kernels of 0 µs, every one "short", where 990 averaged
0.3-2 ms).
"""

from __future__ import annotations

import re

__all__ = ["NOT_ENGLISH", "number", "unreadable_pct"]

_NUMBER = re.compile(r"^-?[\d,]*\d(?:\.\d+)?$")
#: a Time (%) cell with a decimal comma ("19,0", "9,0"): a comma in English groups three digits
_DECIMAL_COMMA = re.compile(r"^\s*\d{1,3},\d{1,2}\s*$")
#: why a table's rows were refused (a recogniser looks for these words among the problems)
NOT_ENGLISH = "its numbers are not in the format nsys prints in English"


def number(cell: str) -> float | None:
    """A cell's number as nsys prints it in English ("1,234.5"), or None."""
    text = cell.strip()
    if not _NUMBER.match(text):
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def unreadable_pct(cell: str, value: float | None) -> str | None:
    """Why a row whose Time (%) cell is ``cell`` (read as ``value``) shows a table in another
    locale's numbers, or None: past 100 %, or a decimal comma."""
    if (value or 0.0) <= 100.05 and not _DECIMAL_COMMA.match(cell):
        return None
    return (
        f"a row's Time (%) reads {cell.strip()!r}: {NOT_ENGLISH} (decimal commas or "
        "space-grouped thousands?); the table is not read"
    )
