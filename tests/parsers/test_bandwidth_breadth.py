"""Breadth round for the P2P and copy-bandwidth probes: values typed from real public pastes.

Each test names the golden sample it reads (``tests/golden/<folder>/<stem>.txt``, source in the
folder's ``SOURCES``) and pins the values a person read off that paste, so that a regenerated
golden file that got them wrong cannot pass unnoticed.
"""

from __future__ import annotations

from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.nvbandwidth import parse_nvbandwidth, recognise_nvbandwidth
from casefile_probes.p2p import parse_p2p

from .corpus import GOLDEN, read_sample


def golden(name: str) -> str:
    return read_sample(GOLDEN / name)


# --- nvbandwidth: device_local_copy prints a matrix with one axis ---------------------------

# The matrix as nvbandwidth v0.8 prints it (nvbandwidth/008, 8x H20-3e): a single GPU axis, no
# CPU or peer axis, so the title reads "memcpy local GPU(column)".
_LOCAL_COPY = """\
Running device_local_copy.
memcpy local GPU(column) bandwidth (GB/s)
           0         1
 0   1116.30   1115.72

SUM device_local_copy 2232.02
"""


def test_device_local_copy_cells_are_read_per_gpu() -> None:
    result = parse_nvbandwidth(_LOCAL_COPY)
    assert result.values("nvbandwidth.device_local_copy") == {"gpu0": 1116.30, "gpu1": 1115.72}
    assert result.values("nvbandwidth.device_local_copy.min") == {"host": 1115.72}
    assert result.values("nvbandwidth.gpus") == {"host": 2}
    assert not any("no values read" in problem for problem in result.problems)


def test_device_local_copy_matrix_alone_is_recognised() -> None:
    matrix_only = "\n".join(_LOCAL_COPY.splitlines()[1:4])
    assert recognise_nvbandwidth(matrix_only)


def test_h20_device_local_copy_from_the_thread() -> None:
    result = parse_nvbandwidth(golden("nvbandwidth/008.txt"))
    cells = result.values("nvbandwidth.device_local_copy")
    assert len(cells) == 8
    assert cells["gpu0"] == 1116.30
    assert cells["gpu2"] == 1115.72
    assert cells["gpu6"] == 1117.17
    assert result.values("nvbandwidth.device_local_copy.sum") == {"host": 8930.99}


def test_the_bandwidth_probe_reads_the_local_copy_matrix_too() -> None:
    result = parse_bandwidth(golden("nvbandwidth/008.txt"))
    assert result.values("nvbandwidth.device_local_copy")["gpu7"] == 1116.30


# --- values that decide P2P cases, typed from the pastes --------------------------------------


def test_5090_pair_with_p2p_enabled_slower_than_disabled() -> None:
    """p2p/issues/012: the peer path is rerouted (ReBAR off), P2P=Enabled far below Disabled."""
    result = parse_p2p(golden("p2p/issues/012.txt"))
    assert result.values("p2p.unidir_bw.disabled") == {"gpu0-gpu1": 42.47, "gpu1-gpu0": 42.54}
    assert result.values("p2p.unidir_bw.enabled") == {"gpu0-gpu1": 12.19, "gpu1-gpu0": 2.01}
    assert result.values("p2p.bidir_bw.enabled.max") == {"host": 4.03}
    assert result.values("p2p.latency.gpu.enabled") == {"gpu0-gpu1": 0.36, "gpu1-gpu0": 0.37}


def test_mixed_blackwell_box_peer_access_as_printed() -> None:
    """p2p/issues/017: only the 5060 Ti cards reach each other; the list is cut mid-line."""
    enabled = parse_p2p(golden("p2p/issues/017.txt")).values("p2p.enabled")
    assert enabled["gpu0-gpu1"] is False
    assert enabled["gpu2-gpu3"] is True
    assert enabled["gpu3-gpu2"] is True
    assert "gpu3-gpu4" not in enabled  # "Device=3 CAN Access" is where the excerpt ends


def test_nine_gpu_matrix_cut_in_its_last_row() -> None:
    """p2p/issues/015: untitled rows are not guessed at; the cut last row loses its last value."""
    result = parse_p2p(golden("p2p/issues/015.txt"))
    bidir = result.values("p2p.bidir_bw.enabled")
    assert bidir["gpu8-gpu2"] == 111.15
    assert "gpu8-gpu3" not in bidir
    assert result.values("p2p.unidir_bw.disabled") == {}
    assert result.values("p2p.gpus") == {"host": 9}


def test_a_two_axis_title_with_an_unknown_arrow_is_not_one_axis() -> None:
    """ "CPU(row) → GPU(column)" (an editor's arrow) is not a one-axis matrix: its first row
    alone must not be read as the whole, dropping GPU 1's slow 13.2."""
    text = (
        "Running host_to_device_memcpy_ce.\n"
        "memcpy CE CPU(row) → GPU(column) bandwidth (GB/s)\n"
        "           0         1         2         3\n"
        " 0     26.10     13.20     26.05     26.11\n"
    )
    facts = {f.name: f.value for f in parse_nvbandwidth(text).facts}
    assert not any(name.endswith(".max") and value == 26.1 for name, value in facts.items())
