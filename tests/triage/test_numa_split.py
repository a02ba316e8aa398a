"""How many NUMA nodes each socket is split into (NPS2/NPS4, sub-NUMA clustering), read by
``numa-domains-per-socket`` from ``numactl -H`` or ``lscpu`` as people paste them.

Version 1 of the rule read lscpu's node count per its socket count: ``numactl -H``, which
prints no socket count and is what people paste, was never read, and a Grace system's GPU
memory nodes (nodes without CPUs) read as one socket split nine ways."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.numa import parse_numa

from casefile.domain.rules import Applied, evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "numa"


def split(text: str) -> object:
    return next(
        (f.value for f in parse_numa(text).facts if f.name == "numa.cpu_nodes_per_socket"), None
    )


def outcome(text: str) -> str | None:
    rule = next(r for r in PLAYBOOK_V3.rules if r.id == "numa-domains-per-socket")
    verdict = evaluate(rule, parse_numa(text).facts, "idle")
    return verdict.outcome if isinstance(verdict, Applied) else None


@pytest.mark.parametrize(
    ("sample", "per_socket", "reading"),
    [
        # a Threadripper 3960X in NPS4: four nodes 12 apart, one socket
        ("001.txt", 4.0, "split"),
        # lscpu on a GH200: nine nodes, eight of them GPU memory without CPUs
        ("002.txt", 1.0, "one-per-socket"),
        # lscpu cut before its node lines: no count to read
        ("003.txt", None, None),
        # two nodes 21 apart (two sockets, an EC2 c5n.18xlarge)
        ("005.txt", 1.0, "one-per-socket"),
        # a node's CPU list cut off: not enough to count
        ("006.txt", None, None),
        # two EPYC sockets, 32 apart, numactl and --cpu-compress
        ("007.txt", 1.0, "one-per-socket"),
        ("008.txt", 1.0, "one-per-socket"),
        # two Opteron 6272 packages of two dies each, every node 16 from every other: the
        # matrix cannot tell the packages apart, so the four nodes read as one socket's (two
        # per package in truth); a split either way
        ("009.txt", 4.0, "split"),
    ],
)
def test_real_outputs(sample: str, per_socket: float | None, reading: str | None) -> None:
    text = (GOLDEN / sample).read_text(encoding="utf-8")
    assert split(text) == per_socket
    assert outcome(text) == reading


def test_sockets_come_from_lscpu_where_it_counts_them() -> None:
    """lscpu's own socket count is taken where it prints one: PyTorch's collect_env report
    carries lscpu's lines (a two-socket Xeon with one node each, torch-env/001.txt); with
    the socket count halved the same two nodes are one socket split in two."""
    text = (GOLDEN.parent / "torch-env" / "001.txt").read_text(encoding="utf-8")
    assert split(text) == 1.0
    assert outcome(text) == "one-per-socket"
    one_socket = text.replace("Socket(s):           2", "Socket(s):           1")
    assert one_socket != text
    assert split(one_socket) == 2.0
    assert outcome(one_socket) == "split"
