"""The probe ranking credits a probe only with the rules its facts can feed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V1 as PLAYBOOK
from casefile_probes import (
    bandwidth,
    dmon,
    iommu_dmesg,
    kernel_cmdline,
    lspci,
    lspci_tree,
    nccl,
    nccl_debug,
    numa,
    nvbandwidth,
    p2p,
    pmon,
    query_gpu,
    smi_q,
    smi_table,
    topo,
)

from casefile.app.service import CaseService
from casefile.domain.beliefs.ranking import can_produce, feeds, rank_probes
from casefile.domain.rules import Rule, Statistic
from casefile.plugins import Registry
from casefile.probes.api import Probe
from casefile.store.memory import MemoryEventStore

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def rule(base: Rule, rule_id: str, facts: tuple[str, ...], probes: tuple[str, ...]) -> Rule:
    """``base`` reading other facts, named by other probes (its outcomes and numbers kept)."""
    return dataclasses.replace(base, id=rule_id, statistic=Statistic("any", facts), probes=probes)


P2P_SUPPORTED = next(r for r in PLAYBOOK.rules if r.id == "p2p-supported")
#: what the issue saw: the topology matrix named by a rule reading a fact it never gives
P2P_BANDWIDTH = rule(
    P2P_SUPPORTED,
    "p2p-bandwidth",
    ("p2p.unidir_bw.enabled",),
    ("nvidia-smi-topo", "cuda-p2p-bandwidth"),
)
P2P_POSSIBLE = rule(P2P_SUPPORTED, "p2p-possible", ("topo.p2p_possible",), ("nvidia-smi-topo",))


def service(*probes: Probe) -> tuple[CaseService, str]:
    playbook = dataclasses.replace(PLAYBOOK, rules=(*PLAYBOOK.rules, P2P_BANDWIDTH, P2P_POSSIBLE))
    svc = CaseService(MemoryEventStore(), Registry.of(probes=probes, playbooks=[playbook]))
    case = svc.writer.new_case("p2p", case_id="p2p")
    svc.writer.open_playbook(case, playbook.id)
    return svc, case


def test_the_topology_matrix_is_not_credited_with_a_rule_it_cannot_feed() -> None:
    svc, case = service(topo.PROBE, p2p.PROBE, smi_q.PROBE, dmon.PROBE)
    projection = svc.reader.projection(case)
    offered = {(c.probe, c.rule.id) for c in svc.reader.candidates(projection)}
    assert ("nvidia-smi-topo", "p2p-bandwidth") not in offered
    assert ("cuda-p2p-bandwidth", "p2p-bandwidth") in offered
    assert ("nvidia-smi-topo", "p2p-possible") in offered  # it does give topo.p2p_possible
    assert ("nvidia-smi-topo", "p2p-supported") in offered
    ranked = {s.probe: s.rules for s in rank_probes(projection, svc.reader.candidates(projection))}
    assert set(ranked["nvidia-smi-topo"]) == {"p2p-supported", "topology-path", "p2p-possible"}
    assert "p2p-bandwidth" in ranked["cuda-p2p-bandwidth"]
    # dmon gives PCIe throughput but not the link's generation and width the ratio needs
    assert ("nvidia-smi-dmon", "pcie-link-busy") not in offered
    assert ("nvidia-smi-q", "pcie-link-busy") in offered


def test_a_probe_that_declares_no_facts_feeds_every_rule_that_names_it() -> None:
    undeclared = dataclasses.replace(topo.PROBE, facts=())
    svc, case = service(undeclared)
    offered = {(c.probe, c.rule.id) for c in svc.reader.candidates(svc.reader.projection(case))}
    assert ("nvidia-smi-topo", "p2p-bandwidth") in offered
    assert feeds(P2P_BANDWIDTH, ())


def test_feeds_pools_facts_needs_the_denominator_and_knows_derived_facts() -> None:
    assert feeds(P2P_SUPPORTED, ("p2p.enabled",))  # one of the pooled facts will do
    ratio = dataclasses.replace(
        P2P_SUPPORTED, statistic=Statistic("max", ("pcie.rx_throughput",), per="pcie.link.capacity")
    )
    assert not feeds(ratio, ("pcie.rx_throughput",))
    assert feeds(ratio, ("pcie.rx_throughput", "pcie.link.gen.max", "pcie.link.width.current"))
    assert can_produce(("pci.acs.*",), "pci.acs.ctl.req_redir")
    assert not can_produce(("pci.acs.*",), "pci.device")


#: corpus folders of the golden parser results → the probe whose parser made them
GOLDEN_PROBES = {
    "bandwidth": bandwidth.PROBE,
    "cmdline": kernel_cmdline.PROBE,
    "dmon": dmon.PROBE,
    "iommu-dmesg": iommu_dmesg.PROBE,
    "lspci": lspci.PROBE,
    "lspci-acs": lspci.PROBE,
    "lspci-fragment": lspci.PROBE,
    "lspci-tree": lspci_tree.PROBE,
    "nccl": nccl.PROBE,
    "nccl-debug": nccl_debug.PROBE,
    "numa": numa.PROBE,
    "nvbandwidth": nvbandwidth.PROBE,
    "p2p": p2p.PROBE,
    "pmon": pmon.PROBE,
    "query-csv": query_gpu.PROBE,
    "smi-q": smi_q.PROBE,
    "smi-q-sections": smi_q.PROBE,
    "smi-table": smi_table.PROBE,
    "smi-table-fragment": smi_table.PROBE,
    "topo": topo.PROBE,
}


@pytest.mark.parametrize("folder", sorted(GOLDEN_PROBES))
def test_a_probe_declares_every_fact_its_golden_results_hold(folder: str) -> None:
    probe = GOLDEN_PROBES[folder]
    names = {
        fact["name"]
        for path in sorted((GOLDEN / folder).glob("*.json"))
        for fact in json.loads(path.read_text(encoding="utf-8")).get("facts", [])
    }
    assert names, folder
    assert sorted(n for n in names if not can_produce(probe.facts, n)) == []
