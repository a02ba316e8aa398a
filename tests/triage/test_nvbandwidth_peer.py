"""nvbandwidth's copies between GPUs read by the peer-to-peer rules, as the CUDA P2P test's
are: the best pair against the path's expected rate (``p2p-bandwidth-expected``), and whether
the GPUs have peer access at all (``p2p-supported``), which nvbandwidth shows by running those
copies or waiving them. Before, a pasted nvbandwidth matrix fed only the host-link rule, so a
GeForce pair whose copies were waived counted nothing toward consumer-no-p2p."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.nvbandwidth import PROBE as NVBANDWIDTH
from casefile_probes.nvbandwidth import parse_nvbandwidth

from casefile.domain.beliefs.ranking import feeds
from casefile.domain.facts import Fact
from casefile.domain.rules import Applied, evaluate
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "nvbandwidth"


def facts(sample: str) -> list[Fact]:
    return parse_nvbandwidth((GOLDEN / sample).read_text(encoding="utf-8")).facts


def outcome(rule_id: str, read: list[Fact]) -> str | None:
    rule = next(r for r in PLAYBOOK_V3.rules if r.id == rule_id)
    verdict = evaluate(rule, [*read, *PLAYBOOK_V3.context_facts(read)], "idle")
    return verdict.outcome if isinstance(verdict, Applied) else None


def test_a_matrix_of_copies_between_gpus_is_peer_access_at_its_rate() -> None:
    """Six RTX A6000s over PCIe (001.txt): every pair copies at 21.8-26.35 GB/s, about what
    PCIe Gen4 carries; peer access works."""
    read = facts("001.txt")
    assert outcome("p2p-supported", read) == "p2p"
    assert outcome("p2p-bandwidth-expected", read) == "as-expected"


def test_copies_between_gpus_waived_on_two_geforce_cards_is_no_peer_access() -> None:
    """Two RTX 2080 Tis (004.txt): nvbandwidth waives the copy between them, since the
    GeForce driver gives them no peer access over PCIe."""
    read = facts("004.txt")
    assert outcome("p2p-supported", read) == "no-p2p"
    assert outcome("p2p-bandwidth-expected", read) is None


def test_a_waived_copy_on_one_gpu_says_nothing_of_peer_access() -> None:
    """With one GPU there is no pair to copy between, and the copy is waived as well: no
    reading of peer access. The same output with its second device line taken out."""
    text = (GOLDEN / "004.txt").read_text(encoding="utf-8")
    one = "\n".join(line for line in text.splitlines() if not line.startswith("Device 1:"))
    read = parse_nvbandwidth(one).facts
    assert not [f for f in read if f.name.startswith("p2p.")]
    assert outcome("p2p-supported", read) is None


def test_host_copies_are_no_peer_rate() -> None:
    """Only copies between GPUs say anything of peer-to-peer: a run of host copies alone
    (003.txt, eight RTX 4090s) gives no peer fact."""
    read = facts("003.txt")
    assert not [f for f in read if f.name.startswith("p2p.")]


def test_a_bidirectional_copy_is_peer_access_but_no_one_way_rate() -> None:
    """A bidirectional copy between GPUs ran with peer access, but its figure is not the P2P
    test's one-way one. No collected paste holds its results, so 001.txt's matrix is read
    under the bidirectional test's name."""
    text = (GOLDEN / "001.txt").read_text(encoding="utf-8")
    one_way, two_way = (
        "device_to_device_memcpy_read_ce",
        "device_to_device_bidirectional_memcpy_read_ce",
    )
    both = text.replace(one_way, two_way)
    assert both != text
    read = parse_nvbandwidth(both).facts
    assert not [f for f in read if f.name.startswith("p2p.unidir")]
    assert [f.value for f in read if f.name == "p2p.enabled"] == [True]


def test_the_probe_is_known_to_feed_both_rules() -> None:
    """The ranking offers nvbandwidth for the rules its facts can feed."""
    for rule_id in ("p2p-supported", "p2p-bandwidth-expected"):
        rule = next(r for r in PLAYBOOK_V3.rules if r.id == rule_id)
        assert "nvbandwidth" in rule.probes
        assert feeds(rule, NVBANDWIDTH.facts)


@pytest.mark.parametrize("sample", ["004.txt"])
def test_through_the_cli_a_waived_copy_counts_for_consumer_cards(
    cli: CLI, tmp_path: Path, sample: str
) -> None:
    opened = cli(
        "new", "slow all-reduce", "--id", "w", "--playbook", "gpu-throughput",
        "--env", "gpus=2x RTX 2080 Ti", "--env", "workload=training",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    before = json.loads(cli("status", "w", "--json").out)
    paste = tmp_path / sample
    paste.write_text((GOLDEN / sample).read_text(encoding="utf-8"))
    ran = cli("probe", "w", "nvbandwidth", "--paste", str(paste), "--", "nvbandwidth")
    assert ran.code == 0, ran.err
    readings = [
        e["payload"]
        for e in log(cli, "w")
        if e["type"] == "evidence.assessed"
        and (e["payload"].get("rule") or {}).get("id") == "p2p-supported"
    ]
    assert [r["outcome"] for r in readings] == ["no-p2p"]
    after = json.loads(cli("status", "w", "--json").out)

    def consumer(status: dict[str, object]) -> float:
        hypotheses = status["hypotheses"]
        assert isinstance(hypotheses, list)
        return next(h["confidence"] for h in hypotheses if h["id"] == "consumer-no-p2p")

    assert consumer(after) > consumer(before)
