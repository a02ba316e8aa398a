"""Reads that need no history fold none, and a list of every case's leaders keeps no fold.

The graph (``casefile graph``) is the case's current state: the state-only fold, which may
start from a stored snapshot, gives the same graph as a fold of every event with its whole
history. Listing cases with their leaders folds each case in passing instead of holding a
fold of every case in the database for the service's life (the TUI's case list).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from casefile.app import fold_cache
from casefile.app.graph_export import FORMATS, export_graph, graph_data
from casefile.app.service import CaseService
from casefile.domain.beliefs import project
from casefile.store.sql import SqlEventStore

REFERENCE = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"
CASE = "glm5-pcie-pivot"


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CaseService]:
    monkeypatch.setattr(fold_cache, "SNAPSHOT_AFTER", 5)
    with CaseService(SqlEventStore(f"sqlite:///{tmp_path / 'cases.db'}")) as service:
        service.library.import_directory(REFERENCE)
        yield service


def test_the_graph_from_a_snapshot_is_the_graph_of_the_whole_history(
    service: CaseService,
) -> None:
    whole = project(service.reader.events(CASE))
    service.reader.status(CASE)  # a state-only fold: its snapshot is due
    service.flush()
    fresh = CaseService(service.store, service.registry)
    assert fresh.reader.graph_json(CASE) == graph_data(whole)
    for fmt in FORMATS:
        assert fresh.reader.graph(CASE, fmt) == export_graph(whole, fmt)
    assert (
        fresh.sessions.loaded(CASE) is not None
        and not fresh.sessions.session(CASE, history=False).history
    )


def test_listing_leaders_keeps_no_fold(service: CaseService) -> None:
    fresh = CaseService(service.store, service.registry)
    rows = fresh.library.cases(with_leaders=True)
    assert [row.id for row in rows] == [CASE]
    assert rows[0].leaders
    assert fresh.sessions.loaded(CASE) is None
    # a case already open is read from its session, not folded again
    opened = fresh.reader.status(CASE)
    assert fresh.library.cases(with_leaders=True)[0].leaders == rows[0].leaders
    assert fresh.sessions.loaded(CASE) is not None and opened.hypotheses
