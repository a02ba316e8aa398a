"""One arrow for a change's two sides: the direction of a version change, whether a change
undoes what its rule reads, and the normal form a rule's pattern is tried on all read the same
spellings (``undoes`` and the normal form had read only ``->``, ``→`` and ``=>``)."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.domain.change_arrow import plain_arrows, sides
from casefile.domain.experiments import change_readings
from casefile.domain.version_direction import direction

SPELLINGS = ["->", "→", "=>", "⇒", "➜", "⟶", "- >"]


def rule(rule_id: str):  # type: ignore[no-untyped-def]
    return next(r for r in PLAYBOOK_V3.experiments if r.id == rule_id)


@pytest.mark.parametrize("arrow", SPELLINGS)
def test_every_spelling_splits_a_change_at_its_first_arrow(arrow: str) -> None:
    assert sides(f"eager {arrow} CUDA graphs {arrow} again") == (
        "eager",
        f"CUDA graphs {arrow} again",
    )
    assert plain_arrows(f"eager{arrow}graphs") == "eager -> graphs"


def test_a_change_without_an_arrow_has_no_sides() -> None:
    assert sides("NCCL_P2P_DISABLE=1") is None


@pytest.mark.parametrize("arrow", SPELLINGS)
def test_an_undone_setting_reads_backwards_whatever_the_arrow(arrow: str) -> None:
    change = f"NCCL_P2P_DISABLE=1 {arrow} P2P back on"
    assert rule("p2p-disable").undoes(change)


@pytest.mark.parametrize("arrow", SPELLINGS)
def test_a_version_change_is_read_and_its_way_known_whatever_the_arrow(arrow: str) -> None:
    forward = f"torch 2.1.2 {arrow} 2.2.0"
    back = f"torch 2.2.0 {arrow} 2.1.2"
    assert rule("version").matches(forward)
    assert direction(change_readings(forward)) == "forward"
    assert direction(change_readings(back)) == "back"
