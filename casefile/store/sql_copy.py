"""Many events into PostgreSQL at once through ``COPY … FROM STDIN``.

A multi-row INSERT of 1,000 events carries 10,000 placeholders, and psycopg parses and
rewrites that statement on every call (45 % of a batched append's time). ``COPY`` streams the
rows instead: one statement, so on an autocommit connection it is atomic on its own like the
INSERT it replaces, and the ``(case_id, seq)`` key refuses a lost race the same way (a unique
violation). The statement-level trigger that sends ``NOTIFY`` (see
:mod:`casefile.store.sql_schema`) fires for ``COPY`` as for ``INSERT``: once per statement, with
the rows in its transition table.

Batches below :data:`COPY_FROM_ROWS` keep the INSERT: a ``COPY`` costs a second round trip,
and a single append is bound by the commit's fsync either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from casefile.store.sql_tables import COLUMNS

#: From this many rows an append on PostgreSQL copies them instead of one INSERT.
COPY_FROM_ROWS = 32

COPY_EVENTS = f"COPY events ({', '.join(COLUMNS)}) FROM STDIN"


def copy_rows(cursor: Any, rows: Iterable[tuple[Any, ...]]) -> None:
    """Stream ``rows`` (``row_values`` tuples) into ``events`` on a psycopg ``cursor``."""
    with cursor.copy(COPY_EVENTS) as copy:
        for row in rows:
            copy.write_row(row)
