"""NCCL log and nccl-tests shapes found in public pastes that the parsers misread or skipped.

Each test names the real sample (``tests/golden/…``) that showed the shape, checks the fact
read from it, and pins the edge of the change on a reduced text, so that the fix stays as
narrow as the format it reads.
"""

from __future__ import annotations

from casefile_probes.nccl import parse_nccl
from casefile_probes.nccl_debug import parse_nccl_debug

from .corpus import GOLDEN


def _read(key: str) -> str:
    return (GOLDEN / f"{key}.txt").read_text(encoding="utf-8")


# --- NCCL_DEBUG=INFO ----------------------------------------------------------------------


def test_ring_order_padded_to_a_fixed_width_is_read() -> None:
    """NCCL 2.19+ prints 'Channel 00/04 :    0   1   2   3' (sglang#565): it was skipped."""
    result = parse_nccl_debug(_read("nccl-debug/022"))
    assert result.values("nccl.ring") == {f"channel{n}": "0 1 2 3" for n in range(4)}
    assert result.values("nccl.channels") == {"host": 4}
    # the older single-blank spelling reads the same
    old = parse_nccl_debug("h:1:2 [0] NCCL INFO Channel 01/16 : 0 1 2 3\n")
    assert old.values("nccl.ring") == {"channel1": "0 1 2 3"}


def test_p2p_disabled_between_connected_gpus_is_a_fact_per_pair() -> None:
    """TensorRT-LLM#2225 holds nothing but these lines: the driver refuses P2P on the box."""
    result = parse_nccl_debug(_read("nccl-debug/019"))
    disabled = result.values("nccl.p2p_disabled")
    assert len(disabled) == 8
    assert disabled["gpu6-gpu7"] is True and disabled["gpu4-gpu6"] is True
    warn = parse_nccl_debug(
        "h:1:2 [0] NCCL WARN P2P is disabled between NVLINK connected GPUs 1 and 0. This should"
        " not be the case given their connectivity, and is probably due to a hardware issue.\n"
    )
    assert warn.values("nccl.p2p_disabled") == {"gpu1-gpu0": True}
    assert warn.values("nccl.warnings") == {"host": 1}


def test_a_connection_cut_before_its_transport_is_said_to_be_cut() -> None:
    """nccl#707's paste ends at '… -> 1[': a cut value, not a silent drop."""
    result = parse_nccl_debug(_read("nccl-debug/021"))
    assert any("cut short" in problem for problem in result.problems)
    assert len(result.values("nccl.transport")) == 7
    # old NCCL's ring listing has arrows too, and is whole
    listing = parse_nccl_debug("h:1:2 [0] NCCL INFO Ring 00 : 0 -> 1 -> 0\n")
    assert not listing.problems


# --- nccl-tests ---------------------------------------------------------------------------


def test_a_row_cut_inside_its_last_number_keeps_the_values_before_it() -> None:
    """nccl-tests#214 ends on '… 31.59    0.26    0.' : the 8192 row was dropped whole."""
    result = parse_nccl(_read("nccl/issues/010"))
    assert result.values("nccl.busbw")["size=8192"] == 0.26
    assert result.values("nccl.algbw.inplace")["size=8192"] == 0.26
    assert "size=8192" not in result.values("nccl.busbw.inplace")
    assert any("8192 (12 of 13 values)" in problem for problem in result.problems)
    # the same for a rows-only paste (nccl-tests#294)
    rows_only = parse_nccl(_read("nccl/issues/014"))
    assert "size=268435456" in rows_only.values("nccl.time")


def test_a_stray_word_between_rows_still_does_not_make_a_row() -> None:
    text = (
        "     1048576        262144     float     sum      -1    27.76   37.78   66.11       0"
        "    27.49   38.15   66.76       0\n"
        "     2097152        524288     float     sum\n"
        "done\n"
        "     4194304       1048576     float     sum      -1    53.24   78.78  137.87       0"
        "    52.85   79.36  138.88       0\n"
    )
    result = parse_nccl(text)
    assert set(result.values("nccl.busbw")) == {"size=1048576", "size=4194304"}
