"""The feed's wake-ups: LISTEN/NOTIFY on PostgreSQL with a safety-net look, polling elsewhere,
and polling again while LISTEN is missing or lost, said once each; the LISTEN side on its own.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from psycopg.conninfo import conninfo_to_dict

from casefile.app.feed import ChangeFeed
from casefile.app.feed_wakeups import store_listener
from casefile.errors import StoreError
from casefile.store.directory import DirectoryEventStore
from casefile.store.memory import MemoryEventStore
from casefile.store.sql import SqlEventStore
from casefile.store.sql_listen import (
    NOTIFY_CHANNEL,
    ListenUnavailable,
    libpq_conninfo,
    mask_secrets,
    open_listener,
)

from .feeds import (
    CASE,
    SLACK,
    Collector,
    execute,
    free_loopback_port,
    listener_backends,
    make_case_dir,
    note,
    wait_until,
)

# -- PostgreSQL: notifications, and what happens without them ----------------------------------


@pytest.mark.postgres
def test_postgres_event_whose_notification_was_missed_arrives_by_the_safety_net(
    notify_url: str,
) -> None:
    got = Collector()
    with SqlEventStore(notify_url) as store, SqlEventStore(notify_url) as writer:
        store.append(CASE, 0, [note("opened")])
        feed = ChangeFeed(store, CASE, safety_interval=1.0, on_notice=got.on_notice)
        probe = open_listener(notify_url)  # to show that nothing is notified meanwhile
        try:
            with got.watcher(feed):
                assert wait_until(lambda: got.has(1))
                execute(notify_url, "ALTER TABLE events DISABLE TRIGGER USER")
                try:
                    writer.append(CASE, 1, [note("unannounced")])
                    assert probe.wait(1.5) == [], "the append was notified after all"
                    assert wait_until(lambda: got.has(2)), "the safety-net look never came"
                finally:
                    execute(notify_url, "ALTER TABLE events ENABLE TRIGGER USER")
                writer.append(CASE, 2, [note("announced")])
                assert probe.wait(SLACK) == [CASE]
                assert wait_until(lambda: got.has(3))
        finally:
            probe.close()
    assert got.seqs() == [1, 2, 3]
    assert got.notices == [] and got.errors == []  # LISTEN worked throughout


@pytest.mark.postgres
def test_postgres_lost_listen_connection_falls_back_to_polling_and_listens_again(
    notify_url: str,
) -> None:
    got = Collector()
    with SqlEventStore(notify_url) as store, SqlEventStore(notify_url) as writer:
        store.append(CASE, 0, [note("opened")])
        # A safety net far away: whatever arrives quickly came by notification or by polling.
        feed = ChangeFeed(
            store,
            CASE,
            poll_interval=0.2,
            safety_interval=60,
            relisten_interval=0.5,
            on_notice=got.on_notice,
        )
        with got.watcher(feed):
            assert wait_until(lambda: got.has(1))
            backends = listener_backends(notify_url)
            assert len(backends) == 1
            execute(notify_url, f"SELECT pg_terminate_backend({backends[0]})")
            writer.append(CASE, 1, [note("while the listener was down")])
            assert wait_until(lambda: got.has(2)), "lost the event with the listener"
            assert wait_until(lambda: any("restored" in n for n in got.notices))
            assert wait_until(lambda: len(listener_backends(notify_url)) == 1)
            sent = time.monotonic()
            writer.append(CASE, 2, [note("after LISTEN was restored")])
            assert wait_until(lambda: got.has(3), 5)
            assert got.arrived[3] - sent < 5  # notified: the safety net is a minute away
    assert got.seqs() == [1, 2, 3]
    lost = [n for n in got.notices if "LISTEN connection lost" in n]
    assert len(lost) == 1 and "polling every 0.2 s" in lost[0]
    assert len(got.notices) == 2  # lost once, restored once


@pytest.mark.parametrize(
    "backend",
    ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def test_delivery_latency(backend: str, request: pytest.FixtureRequest) -> None:
    """SQLite: within a poll interval or so. PostgreSQL: by notification, well before the
    (here one-minute) safety net."""
    url = str(request.getfixturevalue("sqlite_url" if backend == "sqlite" else "notify_url"))
    got = Collector()
    latencies: list[float] = []
    with SqlEventStore(url) as store, SqlEventStore(url) as writer:
        feed = ChangeFeed(store, CASE, poll_interval=0.5, safety_interval=60)
        with got.watcher(feed):
            for seq in range(1, 11):
                time.sleep(0.13)
                writer.append(CASE, seq - 1, [note(f"#{seq}")])
                sent = time.monotonic()
                assert wait_until(lambda s=seq: got.has(s)), f"seq {seq} never arrived"
                latencies.append(got.arrived[seq] - sent)
    print(
        f"\n{backend} delivery latency: median {sorted(latencies)[5] * 1000:.0f} ms, "
        f"max {max(latencies) * 1000:.0f} ms"
    )
    assert got.seqs() == list(range(1, 11))
    assert max(latencies) < (2.5 if backend == "sqlite" else 2.0)


# -- when LISTEN cannot work -------------------------------------------------------------------


def test_listen_unavailable_is_said_once_and_polling_delivers(sqlite_url: str) -> None:
    port = free_loopback_port()  # nothing listens there: connection refused, on loopback
    dead = f"postgresql+psycopg://feeder:s3cret-pw@127.0.0.1:{port}/casefile"
    attempts: list[float] = []

    def listener() -> Any:
        attempts.append(time.monotonic())
        return open_listener(dead)

    got = Collector()
    with SqlEventStore(sqlite_url) as store, SqlEventStore(sqlite_url) as writer:
        feed = ChangeFeed(
            store,
            CASE,
            poll_interval=0.2,
            relisten_interval=0.1,
            listener=listener,
            on_notice=got.on_notice,
        )
        with got.watcher(feed):
            for seq in range(1, 4):
                writer.append(CASE, seq - 1, [note(f"#{seq}")])
                assert wait_until(lambda s=seq: got.has(s))
            assert wait_until(lambda: len(attempts) >= 4), "LISTEN was never retried"
    assert got.seqs() == [1, 2, 3]
    assert len(got.notices) == 1, got.notices
    (notice,) = got.notices
    assert "LISTEN unavailable" in notice and "polling every 0.2 s" in notice
    assert f"127.0.0.1:{port}" in notice and "***" in notice
    assert "s3cret" not in notice


def test_a_failing_listener_factory_means_polling_not_failure() -> None:
    store = MemoryEventStore()
    calls: list[int] = []

    def refuse() -> Any:
        calls.append(1)
        raise ListenUnavailable("cannot LISTEN on postgresql://pool/db: pooler in between")

    got = Collector()
    feed = ChangeFeed(
        store, CASE, poll_interval=0.05, relisten_interval=0.05, listener=refuse,
        on_notice=got.on_notice,
    )  # fmt: skip
    with got.watcher(feed):
        store.append(CASE, 0, [note("x")])
        assert wait_until(lambda: got.has(1))
        assert wait_until(lambda: len(calls) >= 3)
    assert len(got.notices) == 1 and "pooler in between" in got.notices[0]
    assert got.errors == []


# -- the LISTEN side on its own ----------------------------------------------------------------


def test_libpq_conninfo_from_a_sqlalchemy_url() -> None:
    url = "postgresql+psycopg://us%40er:p%40ss%3Aw%20rd@127.0.0.1:6543/db?sslmode=disable"
    params = conninfo_to_dict(libpq_conninfo(url))
    assert params["user"] == "us@er" and params["password"] == "p@ss:w rd"
    assert (params["host"], params["port"], params["dbname"]) == ("127.0.0.1", "6543", "db")
    assert params["sslmode"] == "disable" and params["application_name"] == "casefile-feed"
    socket_dir = conninfo_to_dict(libpq_conninfo("postgresql+psycopg://me@/db?host=/run/pg"))
    assert socket_dir["host"] == "/run/pg" and "password" not in socket_dir
    with pytest.raises(StoreError):
        libpq_conninfo("sqlite:///x.db")


def test_mask_secrets_hides_the_password_in_every_form() -> None:
    url = "postgresql+psycopg://u:p%40ss@127.0.0.1/db"
    message = "failed for u:p@ss, p%40ss and host=x password='p@ss' password=other"
    masked = mask_secrets(message, url)
    assert "p@ss" not in masked and "p%40ss" not in masked and "other" not in masked
    assert masked.count("***") == 4


@pytest.mark.postgres
def test_listener_receives_payloads_and_says_when_its_connection_is_lost(
    notify_url: str,
) -> None:
    with open_listener(notify_url) as listener, SqlEventStore(notify_url) as store:
        assert listener.channel == NOTIFY_CHANNEL
        assert listener.wait(0.2) == []
        store.append("one", 0, [note("a")])
        store.append("two", 0, [note("b")])
        received: list[str] = []
        deadline = time.monotonic() + SLACK
        while len(received) < 2 and time.monotonic() < deadline:
            received.extend(listener.wait(0.2))
        assert sorted(received) == ["one", "two"]
        execute(notify_url, f"SELECT pg_terminate_backend({listener.backend_pid})")
        with pytest.raises(ListenUnavailable):
            for _ in range(50):
                listener.wait(0.2)


# -- which stores are LISTENed to --------------------------------------------------------------


def test_auto_polls_a_store_that_does_not_announce_its_appends(
    sqlite_url: str, tmp_path: Path
) -> None:
    assert store_listener(MemoryEventStore()) is None
    with SqlEventStore(sqlite_url) as store:
        assert store_listener(store) is None
    make_case_dir(tmp_path / "case", ["opened"])
    assert store_listener(DirectoryEventStore(tmp_path / "case")) is None


@pytest.mark.postgres
def test_auto_listens_to_a_store_that_announces_its_appends(notify_url: str) -> None:
    with SqlEventStore(notify_url) as store:
        factory = store_listener(store)
        assert factory is not None
        listener = factory()
        try:
            assert listener_backends(notify_url) != []
            store.append(CASE, 0, [note("announced")])
            heard: list[str] = []
            deadline = time.monotonic() + SLACK
            while CASE not in heard and time.monotonic() < deadline:
                heard += listener.wait(0.2)
            assert CASE in heard
        finally:
            listener.close()
