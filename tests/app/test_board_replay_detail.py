"""A hypothesis's detail at an earlier step is read from the captured trajectory, not refolded,
and says exactly what ``casefile hypothesis show --to SEQ`` (a fold up to SEQ) says."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.board import Board
from casefile.app.service import CaseService
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry

ROOT = Path(__file__).resolve().parents[2]
CASES = [
    ROOT / "casefile" / "reference" / "glm5-pcie-pivot",
    ROOT / "cases" / "dev" / "nccl-tests-228-a100-p2p-level-loc",
]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_the_detail_at_every_step_equals_a_fold_up_to_it(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = CaseService(MemoryEventStore(), builtin_registry())
    case_id = service.library.import_directory(path).case_id
    board = Board(service, case_id)
    projection = board.projection
    hypotheses = [
        *projection.hypothesis_question,
        *(f"{q}/catch-all" for q in projection.questions),
    ]
    refolds = []
    original = service.reader.hypothesis_detail

    def counted(case: str, hid: str, upto: int | None = None) -> object:
        if upto is not None:
            refolds.append(upto)
        return original(case, hid, upto)

    checked = 0
    for seq in range(1, projection.last_seq, 3):
        for hid in hypotheses:
            try:
                expected = original(case_id, hid, upto=seq)
            except Exception:  # not proposed yet at that seq
                continue
            monkeypatch.setattr(service.reader, "hypothesis_detail", counted)
            got = board.hypothesis_detail(hid, seq)
            monkeypatch.setattr(service.reader, "hypothesis_detail", original)
            assert got == expected, (seq, hid)
            checked += 1
    assert checked > 100
    assert len(refolds) < checked / 10  # the refold is the rare exception
