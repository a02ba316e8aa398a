"""Fixtures for the TUI: a service over a fresh SQLite store holding the reference case, and
the app built through :func:`casefile.tui.make_app` with a fixed database label (so snapshots
do not show a temporary path) and the built-in plugins only; times in UTC."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casefile.app.service import CaseService
from casefile.store.sql import SqlEventStore
from casefile.tui import make_app
from casefile.tui.app import CasefileApp
from tests.cli.conftest import builtin_registry

REFERENCE = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"
CASE = "glm5-pcie-pivot"


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The TUI shows times in the machine's zone, as the CLI does: snapshots are drawn in UTC
    whatever the machine's own zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'tui.db'}"
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        service.library.import_directory(REFERENCE)
    return url


#: How long a notification stays in a test: the tests read the notifications shown, and on a
#: loaded machine the app's five seconds could pass between a notification and the test's look
#: (a refusal shown, then gone before the screen it was waiting for came back)
TEST_NOTIFICATION_TIMEOUT = 3600.0


def build_app(url: str, case: str | None = CASE, **options: object) -> CasefileApp:
    service = CaseService(SqlEventStore(url), builtin_registry())
    app = make_app(
        service,
        case,
        database_label="sqlite:///tui.db",
        ssh_hosts=lambda: ["gpu-node-1", "gpu-node-2"],  # never the machine's own ssh config
        **options,  # type: ignore[arg-type]
    )
    app.NOTIFICATION_TIMEOUT = TEST_NOTIFICATION_TIMEOUT  # type: ignore[misc]
    return app


@pytest.fixture
def app(db_url: str) -> Iterator[CasefileApp]:
    yield build_app(db_url)
