"""Shapes of GPU-test and profiler pastes that surveys of real pastes found read wrongly or
not at all: ``bandwidthTest --csv`` lines, nvbandwidth tables named by their prompt, and
``py-spy top``'s idle threads. Split from ``test_pasted_shapes``."""

from __future__ import annotations

from casefile_probes.bandwidth import parse_bandwidth, recognise_bandwidth
from casefile_probes.nvbandwidth import parse_nvbandwidth
from casefile_probes.py_spy import parse_py_spy

from .corpus import check_result


def test_bandwidth_test_csv_lines_are_read() -> None:
    """``bandwidthTest --csv`` prints a line per transfer size (the shape of a post on NVIDIA's
    developer forum, "Using bandwidthTest tool D2D performance more than the official given
    bandwidth", an RTX 3080): one section per direction and memory, its largest size the
    headline, as the table form gives."""
    text = "".join(
        f"bandwidthTest-D2D, Bandwidth = {gbps} GB/s, Time = 0.00000 s, Size = {size} bytes, "
        "NumDevsUsed = 1\n"
        for size, gbps in ((1000, 0.8), (2000, 0.7), (13000, 10.3), (14000, 10.9))
    ) + (
        "bandwidthTest-H2D-Pinned, Bandwidth = 24.5 GB/s, Time = 0.00131 s, Size = 32000000 "
        "bytes, NumDevsUsed = 1\n"
    )
    assert recognise_bandwidth(text)
    result = parse_bandwidth(text)
    check_result(result)
    facts = {(f.name, f.subject): f.value for f in result.facts}
    assert facts[("bandwidth.d2d", "gpu0")] == 10.9
    assert facts[("bandwidth.d2d", "size=1000")] == 0.8
    assert facts[("bandwidth.h2d", "gpu0")] == 24.5


def test_an_nvbandwidth_table_is_named_by_the_test_its_prompt_ran() -> None:
    """A paste of ``./nvbandwidth -t host_to_device_memcpy_ce`` cut to its matrix (no
    "Running …" line, as a forum post showed it): the one test the command names is the
    table's; without the prompt the table stays unnamed and gives no per-GPU facts."""
    table = (
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
        "           0         1\n"
        " 0     24.81     24.79\n"
    )
    named = parse_nvbandwidth("$ ./nvbandwidth -t host_to_device_memcpy_ce\n" + table)
    check_result(named)
    facts = {(f.name, f.subject): f.value for f in named.facts}
    assert facts[("nvbandwidth.host_to_device_memcpy_ce", "gpu0")] == 24.81
    unnamed = {f.name for f in parse_nvbandwidth(table).facts}
    assert "nvbandwidth.host_to_device_memcpy_ce" not in unnamed


def test_a_prompt_names_a_table_only_when_it_is_nvbandwidth_s_one_test() -> None:
    """Several tests after one -t, a -t of ssh, two runs: no table is named by the prompt."""
    table = (
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
        "           0         1\n"
        " 0     24.81     24.79\n"
    )
    for prompt in (
        "$ ./nvbandwidth -t host_to_device_memcpy_ce device_to_host_memcpy_ce\n",
        "$ ssh -t gpu07 ./nvbandwidth\n",
        "$ ./nvbandwidth -t host_to_device_memcpy_ce\n$ ./nvbandwidth\n",
    ):
        names = {f.name for f in parse_nvbandwidth(prompt + table).facts}
        assert not any(name.endswith("_memcpy_ce") or "gpu07" in name for name in names), prompt


def test_bandwidth_test_csv_pageable_and_write_combined_runs() -> None:
    """A pageable run's device-to-device line is the run's memory (it names none), as the
    table form reads it; a --wc run's lines ("-Pinned-WriteCombined") are pinned memory."""
    pageable = (
        "bandwidthTest-H2D-Paged, Bandwidth = 12.1 GB/s, Time = 0.00264 s, Size = 32000000 bytes, "
        "NumDevsUsed = 1\n"
        "bandwidthTest-D2D, Bandwidth = 700.2 GB/s, Time = 0.00005 s, Size = 32000000 bytes, "
        "NumDevsUsed = 1\n"
    )
    facts = {(f.name, f.subject): f.value for f in parse_bandwidth(pageable).facts}
    assert facts[("bandwidth.d2d.pageable", "gpu0")] == 700.2
    assert facts[("bandwidth.memory", "gpu0")] == "pageable"
    combined = (
        "bandwidthTest-H2D-Pinned-WriteCombined, Bandwidth = 24.6 GB/s, Time = 0.00130 s, "
        "Size = 32000000 bytes, NumDevsUsed = 1\n"
    )
    assert recognise_bandwidth(combined)
    assert {(f.name, f.value) for f in parse_bandwidth(combined).facts} >= {("bandwidth.h2d", 24.6)}


def test_py_spy_top_names_no_thread_waiting_to_join() -> None:
    """On Python up to 3.12 a join's time is ``_wait_for_tstate_lock``'s; an idle Event's is
    ``wait``'s in threading: neither is the work."""
    top = (
        "  %Own   %Total  OwnTime  TotalTime  Function (filename)\n"
        " 60.00%  60.00%   30.10s    30.10s   _wait_for_tstate_lock (threading.py)\n"
        " 20.00%  20.00%   10.20s    10.20s   wait (threading.py)\n"
        " 15.00%  30.00%    7.50s    15.00s   forward (model.py)\n"
        "  5.00%   5.00%    2.50s     2.50s   acquire (logging/__init__.py)\n"
    )
    facts = {f.name: f.value for f in parse_py_spy(top).facts}
    assert facts["pyspy.top_function"] == "forward (model.py)"
