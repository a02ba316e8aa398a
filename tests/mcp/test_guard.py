"""The honesty guard on the reference case, in process: which conclusions it holds back and
what it says; and the cap on an answer's size."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from casefile.app.conclusion_guard import hold
from casefile.app.opening import open_service
from casefile.app.service import CaseService
from casefile.mcp.reads import ANSWER_CAP, cap

REFERENCE = Path(__file__).resolve().parents[2] / "casefile" / "reference" / "glm5-pcie-pivot"
CASE = "glm5-pcie-pivot"
#: the reference case after the shared belief "PCIe-bound", before the user's question
BEFORE_THE_LINK = 24


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CaseService]:
    db = f"sqlite:///{tmp_path_factory.mktemp('guard') / 'casefile.db'}"
    with open_service(db) as opened:
        opened.library.import_directory(REFERENCE)
        yield opened


def test_a_child_of_the_never_measured_leader_is_held_back_too(service: CaseService) -> None:
    status = service.reader.status(CASE, BEFORE_THE_LINK)
    for root_cause in ("pcie-bound", "pcie-bandwidth"):
        held = hold(status, root_cause)
        assert held is not None
        assert any(w.startswith("never measured:") for w in held.warnings), root_cause
        assert held.next_step is not None and "pcie-link-busy under load" in held.next_step


def test_a_trailing_hypothesis_is_held_back_by_the_leader(service: CaseService) -> None:
    status = service.reader.status(CASE, BEFORE_THE_LINK)
    held = hold(status, "collective-latency")
    assert held is not None and held.rival == "pcie-bound"
    assert held.rival_confidence is not None and held.confidence < held.rival_confidence
    assert "not yet shown to be the cause" in held.message()


def test_no_root_cause_or_an_unknown_one_is_for_others_to_judge(service: CaseService) -> None:
    status = service.reader.status(CASE)
    assert hold(status, None) is None
    assert hold(status, "no-such-hypothesis") is None  # the service refuses it in its words


def test_an_answer_is_capped() -> None:
    text = cap("x" * (ANSWER_CAP + 500))
    assert len(text) < ANSWER_CAP + 100 and text.endswith("(ask for less: a narrower tool)")
    assert cap("short") == "short"
