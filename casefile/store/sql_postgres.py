"""The SQL store on PostgreSQL, which announces its appends.

Every append and import on PostgreSQL runs ``pg_notify`` inside its transaction (the trigger
:mod:`casefile.store.sql_schema` installs), so a follower can LISTEN instead of polling: this
store is a :class:`~casefile.store.base.NotifyingStore`. Everything else is
:class:`~casefile.store.sql.SqlEventStore`'s, one code path for both databases;
``SqlEventStore(url)`` opens this class for a PostgreSQL URL.
"""

from __future__ import annotations

from casefile.store.sql import SqlEventStore
from casefile.store.sql_listen import NotifyListener, open_listener

__all__ = ["PostgresEventStore"]


class PostgresEventStore(SqlEventStore):
    """An event store on PostgreSQL whose appends can be waited for."""

    def listen(self, *, connect_timeout: int) -> NotifyListener:
        """A connection of its own, LISTENing for this database's appends (see
        :mod:`casefile.store.sql_listen`); raises
        :class:`~casefile.store.sql_listen.ListenUnavailable` when it cannot be opened."""
        return open_listener(self.url, connect_timeout=connect_timeout)
