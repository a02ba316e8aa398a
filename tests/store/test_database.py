"""Choosing and opening the database: URL resolution, SQLite tuning, errors as one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from casefile.errors import StoreError
from casefile.store.database import ENV_SYNCHRONOUS, ENV_URL, resolve_url
from casefile.store.sql import SqlEventStore


def test_explicit_url_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_URL, "sqlite:////env.db")
    assert resolve_url("sqlite:////flag.db") == "sqlite:////flag.db"


def test_environment_then_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_URL, "sqlite:////env.db")
    assert resolve_url(None) == "sqlite:////env.db"
    monkeypatch.delenv(ENV_URL)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = resolve_url(None)
    assert url == f"sqlite:///{tmp_path / 'data' / 'casefile' / 'casefile.db'}"
    assert (tmp_path / "data" / "casefile").is_dir()
    with SqlEventStore(url) as store:
        assert store.case_ids() == []
    assert (tmp_path / "data" / "casefile" / "casefile.db").is_file()


def test_bare_path_and_postgres_scheme(tmp_path: Path) -> None:
    assert resolve_url(str(tmp_path / "team.db")) == f"sqlite:///{tmp_path / 'team.db'}"
    assert resolve_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert resolve_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"


def pragma(store: SqlEventStore, name: str) -> object:
    with store.engine.connect() as conn:
        return conn.execute(text(f"PRAGMA {name}")).scalar_one()


def test_sqlite_is_wal_full_with_a_busy_timeout(sqlite_url: str) -> None:
    with SqlEventStore(sqlite_url) as store:
        assert pragma(store, "journal_mode") == "wal"
        assert pragma(store, "synchronous") == 2  # FULL
        assert pragma(store, "busy_timeout") == 30_000


def test_synchronous_can_be_relaxed(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with SqlEventStore(sqlite_url + "?synchronous=normal") as store:
        assert pragma(store, "synchronous") == 1
        store.append("c", 0, [])  # the hot path uses the same tuned connections
    monkeypatch.setenv(ENV_SYNCHRONOUS, "NORMAL")
    with SqlEventStore(f"sqlite:///{tmp_path / 'other.db'}") as store:
        assert pragma(store, "synchronous") == 1
    with pytest.raises(StoreError, match="not a SQLite level"):
        SqlEventStore(sqlite_url + "?synchronous=sometimes")


def test_unopenable_database_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "x.db"
    with pytest.raises(StoreError) as caught:
        SqlEventStore(f"sqlite:///{missing}")
    assert str(caught.value) == (
        f"cannot open database sqlite:///{missing}: unable to open database file"
    )


def test_bad_url_and_unreachable_server() -> None:
    with pytest.raises(StoreError, match="not a database URL"):
        SqlEventStore("::nonsense::")
    with pytest.raises(
        StoreError, match=r"cannot open database postgresql\+psycopg://x:\*\*\*@127.*refused"
    ):
        SqlEventStore("postgresql+psycopg://x:secret@127.0.0.1:1/db?connect_timeout=2")


def test_password_never_appears(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as caught:
        SqlEventStore("postgresql+psycopg://x:hunter2@127.0.0.1:1/db?connect_timeout=2")
    assert "hunter2" not in str(caught.value)


def test_url_and_dialect_are_read_only(sqlite_url: str) -> None:
    with SqlEventStore(sqlite_url) as store:
        assert (store.url, store.dialect) == (sqlite_url, "sqlite")
        with pytest.raises(AttributeError):
            store.dialect = "postgresql"  # type: ignore[misc]
