"""One arrow for a change's two sides: the direction of a version change, whether a change
undoes what its rule reads, and the normal form a rule's pattern is tried on all read the same
spellings (``undoes`` and the normal form had read only ``->``, ``→`` and ``=>``)."""

from __future__ import annotations

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3

from casefile.domain.change_arrow import plain_arrows, sides
from casefile.domain.change_forms import change_readings, normalise_change
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


@pytest.mark.parametrize(
    ("rule_id", "change", "undone"),
    [
        ("cuda-graphs", "CUDA graphs off -> on", False),
        ("cuda-graphs", "CUDA graphs off ⇒ on", False),
        ("cuda-graphs", "CUDA graphs on -> off", True),
        ("cuda-graphs", "enforce_eager=True -> False", False),
        ("cuda-graphs", "enforce_eager=False -> True", True),
        ("cuda-graphs", "torch.compile -> eager", True),
        ("cuda-graphs", "--enforce-eager -> CUDA graphs on", False),
        ("iommu-acs-off", "ACS: Enabled - > Disabled", False),
        ("iommu-acs-off", "ACS on ⟶ off", False),
        ("iommu-acs-off", "ACS off -> on", True),
        ("host-sync", "pin_memory=False ⇒ True", False),
        ("host-sync", "pin_memory=True -> False", True),
        ("host-sync", "with .item() per step -> without .item()", False),
        ("debug-setting", "detect_anomaly off -> on", True),
        ("custom-allreduce-off", "disable_custom_all_reduce False -> True", False),
    ],
)
def test_a_switch_flipped_is_read_by_which_way_it_turns(
    rule_id: str, change: str, undone: bool
) -> None:
    """A switch flipped reads by the state it leaves, against the state the rule's own A/B
    leaves (``switches_to``): "off -> on" had been read as the rule's change taken away
    whenever the after side alone ("on") was not a change the rule reads."""
    assert rule(rule_id).matches(change)
    assert rule(rule_id).undoes(change) is undone


@pytest.mark.parametrize("arrow", SPELLINGS)
def test_one_a_b_told_with_two_arrows_is_one_change(arrow: str) -> None:
    """The repeat guard compares normal forms: the same version change with another arrow is
    the same change, so it is not counted twice."""
    assert normalise_change(f"torch 2.1.2 {arrow} 2.2.0") == normalise_change(
        "torch 2.1.2 -> 2.2.0"
    )


@pytest.mark.parametrize(
    ("rule_id", "change", "undone"),
    [
        ("batch-size", "batch size 8 -> 32", False),
        ("batch-size", "batch size 32 -> 8", True),
        ("batch-size", "max_num_seqs 256 -> 8", True),
        ("batch-size", "generation batch of 1 image -> batch of 32 images (64x64)", False),
        ("power-limit", "power cap 500 W -> 1400 W (the card's rated default limit)", False),
        ("power-limit", "power cap 180 W -> 150 W", True),
        ("power-limit", "power limit 450W -> 300W", True),
    ],
)
def test_a_number_lowered_is_read_against_a_rule_whose_a_b_raises_it(
    rule_id: str, change: str, undone: bool
) -> None:
    """A smaller batch slower is a larger batch faster: "batch size 32 -> 8" had been read as
    the rule's own A/B (a larger batch), so its slowdown counted against launch overhead."""
    assert rule(rule_id).matches(change)
    assert rule(rule_id).undoes(change) is undone


@pytest.mark.parametrize(
    ("rule_id", "change", "undone"),
    [
        ("cuda-graphs", "--enforce-eager", True),
        ("cuda-graphs", "using -- enforce-eager", True),
        ("cuda-graphs", "--enforce-eager removed", False),
        ("cuda-graphs", "stop forcing --enforce-eager on all LLM endpoints", False),
        ("cuda-graphs", """--stage-overrides '{"0": {"enforce_eager": false}}'""", False),
        ("cuda-graphs", "CUDA graphs enabled", False),
        # vllm-omni-7960's change: "only" here is no scoping of the setting
        ("cuda-graphs", '"enforce_eager": false (graphs on; only difference between runs)', False),
        ("debug-setting", "Enabling the Trainer option detect_anomaly", True),
        ("debug-setting", "Turn on CUDA_LAUNCH_BLOCKING only for fcompare", False),
        ("host-sync", "without .item() in the loop", False),
        ("iommu-acs-off", "iommu=pt", False),
    ],
)
def test_a_one_sided_change_is_read_by_the_state_its_words_leave(
    rule_id: str, change: str, undone: bool
) -> None:
    """A change with no arrow that names the off state ("--enforce-eager": CUDA graphs off)
    is the reverse of a rule whose A/B turns its thing on; it had been read as the rule's own
    A/B, so eager running slower counted against launch overhead."""
    assert rule(rule_id).matches(change)
    assert rule(rule_id).undoes(change) is undone
