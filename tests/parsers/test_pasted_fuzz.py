"""Fuzzing the newer parsers: mutated real fixtures never make them raise.

The mutations are those of ``fuzzing`` (lines deleted, duplicated, swapped, glued, cut,
digits replaced, unicode injected, CRLF), applied to the fixtures from public bug reports and
to the shared corpus samples of the same tools.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.nccl import parse_nccl
from casefile_probes.nccl_debug import parse_nccl_debug
from casefile_probes.nvbandwidth import parse_nvbandwidth
from casefile_probes.p2p import parse_p2p
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.domain.facts import ParseResult

from .corpus import check_result, read_samples
from .fuzzing import fuzz_mutated

CASES: dict[str, tuple[Callable[[str], ParseResult], list[str]]] = {
    "nccl-debug": (
        parse_nccl_debug,
        read_samples("nccl-debug", "nccl/issues", corpus=("nccl",)),
    ),
    "nccl-tests": (parse_nccl, read_samples("nccl/issues", "nccl-debug")),
    "p2p": (parse_p2p, read_samples("p2p/issues")),
    "nvbandwidth": (
        parse_nvbandwidth,
        read_samples("nvbandwidth", corpus=("bandwidth",)),
    ),
    "bandwidth": (parse_bandwidth, read_samples("nvbandwidth")),
}


@pytest.mark.parametrize("name", CASES)
def test_pasted_fuzz_mutated_outputs_never_raise(name: str) -> None:
    parse, samples = CASES[name]
    assert samples

    fuzz_mutated(samples, lambda text: check_result(parse(text)), examples=150)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_pasted_fuzz_random_text_never_raises(text: str) -> None:
    for parse in (parse_nccl_debug, parse_nvbandwidth):
        check_result(parse(text))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(
        st.sampled_from(
            [
                "h:1:2 [0] NCCL INFO ",
                "Channel 00/0 : ",
                "0[0] -> 1[1] via ",
                "P2P/IPC",
                "NET/IB/0/GDRDMA",
                "SHM/direct/direct",
                "Trees [0] ",
                "1/-1/-1->0->-1",
                " set by environment to ",
                "NCCL_P2P_LEVEL",
                "comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1c000",
                "misc/x.cc:1 NCCL WARN ",
                "[repeated 2x across cluster]",
                "\n",
                " ",
                ":",
                "[",
            ]
        ),
        max_size=40,
    )
)
def test_nccl_log_pieces_in_any_order_never_raise(pieces: list[str]) -> None:
    text = "".join(pieces)
    check_result(parse_nccl_debug(text))
    check_result(parse_nccl(text))
