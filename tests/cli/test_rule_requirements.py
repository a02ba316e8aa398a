"""A rule's reading is set aside where the case contradicts what the rule needs: the network
NCCL starts for traffic between nodes says nothing of a job on one node, yet its likelihoods for
the causes that still apply moved them (nccl-1066: the reading weighed on misconfiguration in a
one-node job). The record says which answer set it aside; the same run on a job across nodes is
read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CLI

#: NVIDIA/nccl#1066, the slow launch's NCCL_DEBUG (one node, two ranks), as the thread pasted it
LOG = Path(__file__).parents[2] / (
    "cases/dev/nccl-1066-gpus-per-task-no-nvlink/artifacts/"
    "c3df08f7d2fe88e199a4b70e9ca3c2b5c72b9877036a982bdab57699807c2ec1"
)


def _record(cli: CLI, nodes: str) -> tuple[str, dict[str, object]]:
    case = cli("new", "slow DDP", "--playbook", "gpu-throughput@3").out.strip()
    answered = cli("intake", case, "gpu-count=several", f"nodes={nodes}", "--no-known")
    assert answered.code == 0, answered.err
    ran = cli("probe", case, "nccl-debug", "--paste", str(LOG), "--load", "under-load", "--json")
    assert ran.code == 0, ran.err
    return case, json.loads(ran.out)


@pytest.mark.parametrize("nodes", ["single", "multi"])
def test_the_network_between_nodes_is_read_only_for_a_job_across_them(cli: CLI, nodes: str) -> None:
    case, line = _record(cli, nodes)
    events = json.loads(cli("log", case, "--json").out)
    rules = {
        e["payload"]["rule"]["id"]: e for e in events if e["type"] == "evidence.assessed"
        if "rule" in e["payload"]
    }  # fmt: skip
    asides = [e["payload"] for e in events if e["type"] == "reading.set_aside"]
    if nodes == "multi":
        assert "nccl-network" in rules and rules["nccl-network"]["payload"]["outcome"] == "rdma"
        assert "nccl-network" not in line["set_aside"]
        return
    assert "nccl-network" not in rules and "nccl-network" in line["set_aside"]
    (aside,) = [a for a in asides if a["rule"]["id"] == "nccl-network"]
    assert aside["reason"].startswith("the case answers nodes = single (seq ")
    assert aside["reason"].endswith("rule nccl-network reads only jobs with gpu-count = several "
                                    "and nodes = multi")  # fmt: skip
    logged = cli("log", case).out
    assert "set aside reading" in logged and "the case answers nodes = single" in logged
