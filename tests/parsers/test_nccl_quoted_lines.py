"""An NCCL log message quoted without its ``host:pid:tid [dev]`` origin is still a message, and
the network NCCL started says which one carries traffic between nodes.

People quote the one line that matters ("NCCL INFO NET/Socket : Using [0]bond0:…") without
the origin that precedes it in the log; NCCL tries its IB transport first and starts its
socket network only when no IB device serves (verbatim in the corpus: "Failed to open
libibverbs.so[.1]" then "NET/Socket : Using …", NVIDIA/nccl#1812).
"""

from __future__ import annotations

import pytest
from casefile_probes.nccl_debug import parse_nccl_debug

SOCKET = "NCCL INFO NET/Socket : Using [0]bond0:200.8.184.2<0>"


@pytest.mark.parametrize("text", [SOCKET, f"  {SOCKET}\n", f"> {SOCKET}\n", f"`{SOCKET}`"])
def test_a_message_quoted_without_its_origin_is_read(text: str) -> None:
    result = parse_nccl_debug(text)
    assert result.parsed, result.problems
    assert result.values("nccl.socket.interfaces") == {"host": "bond0"}
    assert result.values("nccl.network") == {"host": "Socket"}
    assert result.values("nccl.log.hosts") == {"host": 0}


def test_the_network_named_by_nccl_wins_and_ib_devices_are_not_sockets() -> None:
    ib = (
        "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB bond0:10.0.0.1<0>\n"
        "h:1:1 [0] NCCL INFO NET/Socket : Using [0]bond0:10.0.0.1<0>\n"
    )
    assert parse_nccl_debug(ib).values("nccl.network") == {}
    named = "h:1:1 [0] NCCL INFO Using network IB\n" + ib
    assert parse_nccl_debug(named).values("nccl.network") == {"host": "IB"}


def test_prose_about_nccl_is_not_a_message() -> None:
    assert not parse_nccl_debug("I set NCCL INFO level and saw NET/Socket in the log\n").parsed
