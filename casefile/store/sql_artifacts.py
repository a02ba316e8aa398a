"""The artifact side of the SQL event store: content-addressed blobs, and keeping them for the
appends that refer to them.

An ``artifacts`` row is a blob keyed by its digest, shared by every case that refers to it, so
a removal of one case may take a blob another writer has just put for its next append (red
team R3-M5). :class:`SqlArtifacts` keeps what it put until an append of its own refers to it,
and that append claims its artifacts in its own transaction, putting back any gone; a removal
locks the rows it may delete before it reads who still refers to them. Apart from
:mod:`casefile.store.sql` because it is one job with its own state (the blobs kept) and its own
locking, which the event stream, the snapshots and the import only call on.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, delete, select
from sqlalchemy.exc import IntegrityError as SqlIntegrityError

from casefile.domain.events import sha256_hex
from casefile.errors import StoreError
from casefile.store.sql_connections import SqlConnections
from casefile.store.sql_tables import (
    AC,
    ARTIFACT_DATA,
    ARTIFACT_EXISTS,
    ARTIFACTS,
    INSERT_ARTIFACTS,
)
from casefile.store.verify import ARTIFACT_FIELDS

__all__ = [
    "UNREFERENCED_LIMIT",
    "SqlArtifacts",
    "drop_artifacts",
    "lock_artifacts",
    "referred_digests",
]

_CHUNK = 500  # parameters per IN (...) list: well under SQLite's and PostgreSQL's limits
#: The most bytes of blobs a store keeps for appends still to come (see
#: :meth:`SqlArtifacts.put_artifact`); past it the oldest are let go.
UNREFERENCED_LIMIT = 512 * 1024 * 1024


class SqlArtifacts(SqlConnections):
    """Artifacts over the store's connections: put, get, and the claim an append makes.

    The base of :class:`~casefile.store.sql.SqlEventStore`, above
    :class:`~casefile.store.sql_connections.SqlConnections`.
    """

    def __init__(self, url: str) -> None:
        super().__init__(url)
        p = "?" if self._engine.dialect.paramstyle == "qmark" else "%s"
        self._restore_sql = (
            f"INSERT INTO artifacts (digest, data, size) VALUES ({p}, {p}, {p}) "
            "ON CONFLICT (digest) DO NOTHING"
        )
        #: blobs put by this store that no append of it has referred to yet, oldest first
        #: (see put_artifact), and their total size
        self._pending: OrderedDict[str, bytes] = OrderedDict()
        self._pending_bytes = 0
        self._pending_lock = threading.Lock()

    def put_artifact(self, data: bytes) -> str:
        """Store the blob once; return its digest.

        The store also keeps the bytes until one of its appends refers to them (at most
        :data:`UNREFERENCED_LIMIT` bytes, the oldest let go first): a blob that was already
        there belongs to another case too, and removing that case may take it before the
        append lands; the append then puts it back (see :meth:`_claim`).
        """
        blob = data if isinstance(data, bytes) else bytes(data)
        digest = sha256_hex(blob)
        try:
            with self._transaction("store an artifact", write=True) as conn:
                exists = conn.execute(ARTIFACT_EXISTS, {"digest": digest}).first()
                if exists is None:
                    conn.execute(
                        INSERT_ARTIFACTS, {"digest": digest, "data": blob, "size": len(blob)}
                    )
        except SqlIntegrityError:
            pass  # stored by another writer meanwhile: same digest, same bytes
        self._keep(digest, blob)
        return digest

    def _keep(self, digest: str, blob: bytes) -> None:
        with self._pending_lock:
            if digest in self._pending:
                self._pending.move_to_end(digest)
                return
            self._pending[digest] = blob
            self._pending_bytes += len(blob)
            while self._pending_bytes > UNREFERENCED_LIMIT and len(self._pending) > 1:
                self._pending_bytes -= len(self._pending.popitem(last=False)[1])

    def _let_go(self, digests: Iterable[str]) -> None:
        """Forget the kept copies of blobs an append has now committed references to."""
        with self._pending_lock:
            for digest in digests:
                blob = self._pending.pop(digest, None)
                if blob is not None:
                    self._pending_bytes -= len(blob)

    def get_artifact(self, digest: str) -> bytes:
        with self._transaction(f"read artifact {digest}", write=False) as conn:
            row = conn.execute(ARTIFACT_DATA, {"digest": digest}).first()
        if row is None:
            raise KeyError(digest)
        return bytes(row[0])

    def artifact_digests(self, digests: Iterable[str]) -> dict[str, bytes]:
        wanted = sorted(set(digests))
        found: dict[str, bytes] = {}
        with self._transaction("read artifacts", write=False) as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                for digest, data in conn.execute(
                    select(AC.digest, AC.data).where(AC.digest.in_(chunk))
                ):
                    found[str(digest)] = bytes(data)
        return found

    # -- an append's claim -----------------------------------------------------------------

    def _claim(self, cursor: Any, case_id: str, digests: list[str]) -> None:
        """Make sure of every artifact an append's events refer to, until it commits.

        Artifacts are shared by content, and a writer puts its blobs before it appends: the
        put finds a blob already there (another case's) and inserts nothing, and a removal of
        that other case may then take the blob before the append lands (red team R3-M5). So
        the append, in its own transaction, locks each row it refers to (PostgreSQL:
        ``FOR KEY SHARE``, which
        :meth:`~casefile.store.sql.SqlEventStore.remove_case`'s ``FOR UPDATE`` waits for; on SQLite
        the write lock this transaction holds already keeps every removal out), and puts back
        any that is gone from the copy :meth:`put_artifact` kept. One that this store did not
        put refuses the append: an event never lands without its artifact.
        """
        present = self._present(cursor, digests)
        missing = [digest for digest in digests if digest not in present]
        if not missing:
            return
        with self._pending_lock:
            kept = {digest: self._pending.get(digest) for digest in missing}
        for digest, data in kept.items():
            if data is not None:
                cursor.execute(self._restore_sql, (digest, data, len(data)))
        # Again: on PostgreSQL a row that another writer put back first is locked only now.
        present = self._present(cursor, missing)
        lost = [digest for digest in missing if digest not in present]
        if lost:
            raise StoreError(
                f"cannot append to case {case_id} in {self._where}: artifact {lost[0]} is "
                "not in the database (removed with another case after it was stored?); "
                "nothing was appended"
            )

    def _present(self, cursor: Any, digests: list[str]) -> set[str]:
        """Which of ``digests`` (sorted) the artifacts table holds, each row locked against
        removal until this transaction ends (PostgreSQL; in sorted order, so that appends and
        removals never wait on each other in a cycle)."""
        p = "?" if self._sqlite else "%s"
        lock = "" if self._sqlite else " FOR KEY SHARE"
        found: set[str] = set()
        for start in range(0, len(digests), _CHUNK):
            chunk = digests[start : start + _CHUNK]
            marks = ", ".join([p] * len(chunk))
            cursor.execute(
                f"SELECT digest FROM artifacts WHERE digest IN ({marks}) ORDER BY digest{lock}",
                chunk,
            )
            found.update(str(digest) for (digest,) in cursor.fetchall())
        return found


def lock_artifacts(conn: Connection, digests: list[str], *, share: bool) -> set[str]:
    """Which of ``digests`` (sorted) are stored, each row locked on PostgreSQL until the
    transaction ends: ``FOR KEY SHARE`` (``share``: it stays, as an append's claim) or
    ``FOR UPDATE`` (a removal's), in sorted order like :meth:`SqlArtifacts._present`.
    SQLite has no row locks; its writers' transactions exclude each other whole."""
    found: set[str] = set()
    for start in range(0, len(digests), _CHUNK):
        query = (
            select(AC.digest)
            .where(AC.digest.in_(digests[start : start + _CHUNK]))
            .order_by(AC.digest)
            .with_for_update(read=share, key_share=share)
        )
        found.update(str(digest) for (digest,) in conn.execute(query))
    return found


def referred_digests(rows: Iterable[Any]) -> set[str]:
    """The artifact digests that rows of (type, payload text) refer to."""
    found: set[str] = set()
    for event_type, payload in rows:
        data = json.loads(payload)
        found.update(
            value
            for name in ARTIFACT_FIELDS.get(event_type, ())
            if isinstance(value := data.get(name), str)
        )
    return found


def drop_artifacts(conn: Connection, digests: list[str]) -> None:
    """Delete the artifacts ``digests`` name, in the caller's transaction (a removal's, which
    has locked them with :func:`lock_artifacts` and found no other case referring to them)."""
    for start in range(0, len(digests), _CHUNK):
        conn.execute(delete(ARTIFACTS).where(AC.digest.in_(digests[start : start + _CHUNK])))
