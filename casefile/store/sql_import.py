"""An import's transaction on the SQL store: the case's artifacts, then its rows as they verify.

:meth:`~casefile.store.sql.SqlEventStore.import_case` checks the envelopes first
(:func:`~casefile.store.verify.importable_case`) and opens one transaction; this is what runs
inside it. The chain is checked as its rows stream into the database (``COPY`` on PostgreSQL,
one ``executemany`` on SQLite): one pass, no list of rows, each payload encoded once for its
hash and its row. A break raises out of the stream, so the transaction writes nothing; the
artifacts' digests are checked last, as :func:`~casefile.store.verify.check_importable` orders
its refusals, before the transaction commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection

from casefile.domain.events import Event
from casefile.errors import StoreError
from casefile.store.sql_artifacts import lock_artifacts
from casefile.store.sql_copy import copy_rows
from casefile.store.sql_tables import ANY_EVENT, COLUMNS, INSERT_ARTIFACTS, row_of
from casefile.store.verify import check_artifacts, verified_chain

#: One event's INSERT on SQLite (qmark placeholders), run once per row by ``executemany``.
SQLITE_INSERT = (
    f"INSERT INTO events ({', '.join(COLUMNS)}) VALUES ({', '.join(['?'] * len(COLUMNS))})"
)


def write_import(
    conn: Connection,
    case_id: str,
    events: Sequence[Event],
    artifacts: Mapping[str, bytes],
    *,
    sqlite: bool,
    where: str,
) -> None:
    """Write the case's artifacts and events in the caller's transaction on ``conn``.

    Raises :class:`StoreError` when the case already exists in ``where`` and
    :class:`~casefile.errors.IntegrityError` at the first event or artifact that does not
    verify; either way the caller's transaction rolls back.
    """
    if conn.execute(ANY_EVENT, {"case_id": case_id}).first() is not None:
        raise StoreError(
            f"case {case_id} already exists in {where}; "
            "import into another database or remove the case first"
        )
    wanted = sorted(artifacts)
    # locked like an append's (see SqlArtifacts._claim): a removal cannot take one meanwhile
    present = lock_artifacts(conn, wanted, share=True)
    missing = [
        {"digest": d, "data": bytes(artifacts[d]), "size": len(artifacts[d])}
        for d in wanted
        if d not in present
    ]
    if missing:
        conn.execute(INSERT_ARTIFACTS, missing)
    rows = (row_of(event, text) for event, text in verified_chain(case_id, events))
    cursor: Any = conn.connection.cursor()  # the driver's, in this transaction
    try:
        if sqlite:
            cursor.executemany(SQLITE_INSERT, rows)
        else:
            copy_rows(cursor, rows)
    finally:
        cursor.close()
    check_artifacts(artifacts)
