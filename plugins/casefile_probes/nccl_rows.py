"""The result table of nccl-tests: which tokens make a row, under which column layout.

nccl-tests prints one row per message size; pastes cut rows short, glue NCCL log lines into
them, drop the header, or come from versions whose columns differ (no ``root`` before 2.10,
no ``redop`` in the 1.x broadcast tables). The rows are therefore read from a stream of
tokens, each checked against the column it would fill, and resynchronised on anything that
does not fit. Kept apart from :mod:`casefile_probes.nccl`, which finds the table's lines in a
paste and turns the rows into facts, so that each module stays small enough to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DEFAULT_COLUMNS", "Row", "best_rows", "fitting", "header_columns"]

_TYPES = frozenset(
    [
        "int8",
        "uint8",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "half",
        "float",
        "double",
        "bfloat16",
        "int",
        "uint",
        "char",
        "fp8_e4m3",
        "fp8_e5m2",
        "f8e4m3",
        "f8e5m2",
        "float16",
        "float32",
        "float64",
        "bf16",
    ]
)
_REDOPS = frozenset(["sum", "prod", "max", "min", "avg", "none", "mulsum", "premulsum"])
# Column layout of nccl-tests >= 2.10; older ones have no "root" column.
DEFAULT_COLUMNS = [
    "size",
    "count",
    "type",
    "redop",
    "root",
    "time",
    "algbw",
    "busbw",
    "#wrong",
    "time",
    "algbw",
    "busbw",
    "#wrong",
]


def header_columns(line: str) -> list[str] | None:
    body = line.lstrip("#").split()
    if "size" in body and "count" in body and "busbw" in body:
        return body
    return None


_INT = re.compile(r"[0-9]+")
_ROOT = re.compile(r"-?[0-9]+")
_VALUE = re.compile(r"[0-9]+(?:\.[0-9]+)?|N/A")
_WRONG = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?|N/A")


def _fits(column: str, token: str) -> bool:
    """Whether ``token`` can be the value of ``column`` in a result row."""
    if column in ("size", "count"):
        return _INT.fullmatch(token) is not None
    if column == "type":
        return token in _TYPES
    if column == "redop":
        return token in _REDOPS
    if column == "root":
        return _ROOT.fullmatch(token) is not None
    if column in ("#wrong", "error"):
        return _WRONG.fullmatch(token) is not None
    return _VALUE.fullmatch(token) is not None


def fitting(tokens: list[str], start: int, columns: list[str]) -> int:
    """How many tokens from ``start`` fit the columns in order (at most ``len(columns)``)."""
    count = 0
    for column in columns:
        if start + count >= len(tokens) or not _fits(column, tokens[start + count]):
            break
        count += 1
    return count


@dataclass
class Row:
    values: dict[str, list[str]]
    #: how many values the row had when the paste cut it short; None for a whole row
    cut_at: int | None = None


def _rows(tokens: list[str], columns: list[str], typed: list[bool]) -> list[Row]:
    """Rows from a token stream, resynchronising on anything that does not fit a row.

    A row that stops before its last column, at the end of the stream or right where another
    row starts, is kept as far as it goes, less its last value (the cut may have split it).
    When the stream ends on a token that fits no column (a number cut mid-way, ``0.``), the
    values before it are whole and kept.
    """
    width = len(columns)
    type_at = columns.index("type") if "type" in columns else -1
    rows: list[Row] = []
    i = 0
    while i < len(tokens):
        if type_at >= 0 and (i + type_at >= len(tokens) or not typed[i + type_at]):
            i += 1  # no data type where a row has one: skip without matching the rest
            continue
        fit = fitting(tokens, i, columns)
        if fit == width:
            rows.append(Row(_row_values(columns, tokens[i : i + width])))
            i += width
            continue
        if fit >= 3 and (i + fit == len(tokens) or fitting(tokens, i + fit, columns[:3]) == 3):
            kept = tokens[i : i + fit - 1] if i + fit == len(tokens) else tokens[i : i + fit]
            rows.append(Row(_row_values(columns, kept), cut_at=fit))
            i += fit
            continue
        if fit >= 3 and i + fit == len(tokens) - 1:
            rows.append(Row(_row_values(columns, tokens[i : i + fit]), cut_at=fit + 1))
            break
        i += 1
    return rows


def _row_values(columns: list[str], chunk: list[str]) -> dict[str, list[str]]:
    row: dict[str, list[str]] = {}
    for name, token in zip(columns, chunk, strict=False):
        row.setdefault(name, []).append(token)
    return row


# Layouts to try on rows pasted without their header: today's, then older ones without a
# "root" column, and without "redop" and "root" (broadcast-style tables of nccl-tests 1.x).
_LAYOUTS = (
    DEFAULT_COLUMNS,
    [c for c in DEFAULT_COLUMNS if c != "root"],
    [c for c in DEFAULT_COLUMNS if c not in ("root", "redop")],
)


def best_rows(tokens: list[str], columns: list[str] | None) -> list[Row]:
    """The rows under the header's layout, or under the layout that reads most whole rows."""
    typed = [token in _TYPES for token in tokens]
    if columns is not None:
        return _rows(tokens, columns, typed)
    best: list[Row] = []
    best_whole = -1
    for layout in _LAYOUTS:
        rows = _rows(tokens, list(layout), typed)
        whole = sum(1 for row in rows if row.cut_at is None)
        if whole > best_whole:
            best, best_whole = rows, whole
    return best
