"""The LISTEN side of PostgreSQL change notifications: one dedicated psycopg connection.

Every append or import on PostgreSQL runs ``pg_notify`` on :data:`NOTIFY_CHANNEL` with the case
id as payload, inside its own transaction (the store's trigger; this module never creates it).
PostgreSQL delivers a notification only after that transaction commits, so by the time one
arrives the new rows are visible to any new snapshot.

Why a connection of its own: a connection that waits for notifications must not run anything
else meanwhile, and the store's connections are busy with appends and loads (and go back to a
pool where another thread would receive, or swallow, the notifications). This one is opened
from the store's URL, in autocommit mode (``LISTEN`` takes effect only once committed), and
does nothing but ``LISTEN`` and wait.

A notification only says "something changed": payloads are coalesced (PostgreSQL folds
identical ones sent in one transaction), can be missed (the connection was down, a pooler in
transaction mode never forwards them) and carry no position. The follower
(:mod:`casefile.app.feed`) therefore treats one as a wake-up and reads the store to learn what
is new. Errors leave as :class:`ListenUnavailable` with the password masked.
"""

from __future__ import annotations

import re
from contextlib import suppress
from typing import Any
from urllib.parse import quote, quote_plus

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from casefile.errors import StoreError
from casefile.store.database import display_url
from casefile.store.sql_schema import NOTIFY_CHANNEL

__all__ = [
    "NOTIFY_CHANNEL",
    "ListenUnavailable",
    "NotifyListener",
    "libpq_conninfo",
    "mask_secrets",
    "open_listener",
]

#: ``application_name`` of the listening connection (visible in ``pg_stat_activity``).
APPLICATION_NAME = "casefile-feed"

# Keepalives: a listener that only waits would otherwise not notice a silently dead peer for
# the kernel's default two hours. libpq ignores these on Unix-domain sockets.
_KEEPALIVES = {"keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "10"}


class ListenUnavailable(StoreError):
    """LISTEN could not be set up, or its connection was lost."""


def libpq_conninfo(url: str, *, application_name: str = APPLICATION_NAME) -> str:
    """The libpq conninfo string for a SQLAlchemy PostgreSQL URL.

    ``postgresql+psycopg://user:pw@host:5432/db?sslmode=require`` becomes ``host=host port=5432
    user=user password=pw dbname=db sslmode=require …``: the URL's query parameters are libpq
    keywords already (a repeated ``host`` joins with commas, as libpq's multi-host form wants).
    Raises :class:`StoreError` for a URL that is not PostgreSQL.
    """
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise StoreError(f"not a database URL: {display_url(url)}") from error
    if parsed.get_backend_name() != "postgresql":
        raise StoreError(f"LISTEN needs a PostgreSQL URL, not {display_url(parsed)}")
    params: dict[str, Any] = {
        key: ",".join(value) if isinstance(value, tuple) else value
        for key, value in parsed.query.items()
        if key != "statement_timeout"  # casefile's own (see casefile.store.database)
    }
    given = {
        "host": parsed.host,
        "port": parsed.port,
        "user": parsed.username,
        "password": parsed.password,
        "dbname": parsed.database,
    }
    params.update({key: value for key, value in given.items() if value not in (None, "")})
    params.setdefault("application_name", application_name)
    for key, value in _KEEPALIVES.items():
        params.setdefault(key, value)
    return make_conninfo("", **params)


def mask_secrets(text: str, url: str) -> str:
    """``text`` with the URL's password (plain or percent-encoded) replaced by ``***``."""
    try:
        password = make_url(url).password
    except ArgumentError:
        password = None
    if password:
        for form in sorted(
            {str(password), quote(str(password), safe=""), quote_plus(str(password))},
            key=len,
            reverse=True,
        ):
            text = text.replace(form, "***")
    # A conninfo string quoted into a driver message: never show its password either.
    return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", text)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class NotifyListener:
    """A connection LISTENing on one channel; :meth:`wait` returns the payloads that arrive.

    Used from one thread at a time (the follower's); :meth:`close` from that thread, too.
    """

    def __init__(self, conn: psycopg.Connection[Any], channel: str, url: str) -> None:
        self._conn = conn
        self.channel = channel
        self._url = url
        self.where = display_url(url)

    @property
    def backend_pid(self) -> int:
        """The server process of this connection (tests terminate it to simulate a loss)."""
        return int(self._conn.info.backend_pid)

    def _lost(self, error: BaseException) -> ListenUnavailable:
        detail = mask_secrets(_first_line(error), self._url)
        return ListenUnavailable(f"LISTEN connection to {self.where} lost: {detail}")

    def wait(self, timeout: float) -> list[str]:
        """Payloads received within ``timeout`` seconds (empty if none came).

        Returns as soon as one arrives, with every other already received: a burst of commits
        becomes one wake-up. Ctrl-C interrupts the wait (psycopg waits in short slices).
        Raises :class:`ListenUnavailable` when the connection fails.
        """
        try:
            payloads = [
                n.payload for n in self._conn.notifies(timeout=max(timeout, 0.0), stop_after=1)
            ]
            if payloads:
                payloads += [n.payload for n in self._conn.notifies(timeout=0.0)]
        except psycopg.Error as error:
            raise self._lost(error) from error
        return payloads

    def close(self) -> None:
        with suppress(psycopg.Error):  # already broken: nothing left to release
            self._conn.close()

    def __enter__(self) -> NotifyListener:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def open_listener(
    url: str, channel: str = NOTIFY_CHANNEL, *, connect_timeout: int = 5
) -> NotifyListener:
    """Connect to the database at ``url`` (a SQLAlchemy URL) and LISTEN on ``channel``.

    Raises :class:`ListenUnavailable` (password masked) when the server cannot be reached,
    refuses the login, or refuses LISTEN.
    """
    conninfo = libpq_conninfo(url)
    where = display_url(url)
    try:
        conn = psycopg.connect(
            conninfo, autocommit=True, connect_timeout=max(int(connect_timeout), 2)
        )
    except psycopg.Error as error:
        detail = mask_secrets(_first_line(error), url)
        raise ListenUnavailable(f"cannot connect to {where} to LISTEN: {detail}") from error
    try:
        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
    except psycopg.Error as error:
        conn.close()
        detail = mask_secrets(_first_line(error), url)
        raise ListenUnavailable(f"cannot LISTEN on {where}: {detail}") from error
    return NotifyListener(conn, channel, url)
