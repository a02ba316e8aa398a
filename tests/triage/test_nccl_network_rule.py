"""gpu-throughput@3 reads which network NCCL started for a job across nodes: sockets where an
RDMA fabric should serve point at the inter-node network; a one-node job is not asked."""

from __future__ import annotations

from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.nccl_debug import parse_nccl_debug

from casefile.domain.rules import Applied, Rule, evaluate


def rule() -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == "nccl-network")


def test_a_quoted_socket_line_weighs_for_the_inter_node_network() -> None:
    facts = parse_nccl_debug("NCCL INFO NET/Socket : Using [0]bond0:200.8.184.2<0>\n").facts
    verdict = evaluate(rule(), facts, "any")
    assert isinstance(verdict, Applied) and verdict.outcome == "socket"
    row = rule().row
    assert row("internode-network")["socket"] >= 3 * row("data-loading")["socket"]


def test_rdma_in_use_weighs_against_it() -> None:
    facts = parse_nccl_debug("h:1:1 [0] NCCL INFO Using network IB\n").facts
    verdict = evaluate(rule(), facts, "any")
    assert isinstance(verdict, Applied) and verdict.outcome == "rdma"


def test_only_a_job_across_nodes_is_asked() -> None:
    assert rule().suggested_under({"nodes": "multi"})
    assert not rule().suggested_under({"nodes": "single"})
