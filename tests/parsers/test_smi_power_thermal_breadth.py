"""Power, clock and temperature readings of nvidia-smi from public threads: what they pinned.

The samples are goldens under ``tests/golden/<folder>/issues/`` and ``smi-q-sections/`` (their
threads in the folders' ``SOURCES``). The tests below pin the values the power and thermal
rules read, and the misreads these samples exposed: a Jetson row dropped for its ``N/A`` bus
id, a GPU row cut inside its bus id or after its memory cell dropped whole, dmon samples above
the first header left out.
"""

from __future__ import annotations

from casefile_probes.dmon import parse_dmon
from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table

from .corpus import GOLDEN, read_sample


def _read(key: str) -> str:
    return read_sample(GOLDEN / f"{key}.txt")


# --- misreads fixed ------------------------------------------------------------------------


def test_jetson_row_with_na_bus_id_is_listed_and_na_driver_is_no_version() -> None:
    """Orin prints ``N/A`` where the bus id goes and "Not Supported" for memory: the GPU is
    there all the same, and "Driver Version: N/A" names no driver."""
    result = parse_smi_table(_read("smi-table/issues/007"))
    assert result.parsed
    assert result.values("name") == {"gpu0": "Orin (nvgpu)"}
    assert result.values("pci.bus_id") == {}
    assert result.values("memory.used") == {}
    assert result.values("power.draw") == {}
    assert "driver_version" not in {fact.name for fact in result.facts}
    assert result.values("cuda_version") == {"host": "12.2"}
    assert not any("no GPU rows" in problem for problem in result.problems)


def test_jetson_row_beside_a_real_driver_version() -> None:
    result = parse_smi_table(_read("smi-table/issues/008"))
    assert result.values("name") == {"gpu0": "Orin (nvgpu)"}
    assert result.values("driver_version") == {"host": "540.4.0"}


def test_first_line_cut_inside_the_bus_id_still_lists_the_gpu() -> None:
    result = parse_smi_table(_read("smi-table/issues/009"))
    assert result.values("name")["gpu3"] == "Tesla P40"
    assert result.values("persistence_mode")["gpu3"] == "Disabled"
    assert "gpu3" not in result.values("pci.bus_id")
    assert result.values("power.draw") == {"gpu0": 62, "gpu1": 70, "gpu2": 72}
    assert result.values("power.limit") == {"gpu0": 250, "gpu1": 250, "gpu2": 250}


def test_second_line_cut_after_the_memory_cell_keeps_pstate_and_power() -> None:
    """GPU 1's line ends after "19786MiB /  24564MiB", without its closing bar."""
    result = parse_smi_table(_read("smi-table/issues/012"))
    assert result.values("pstate") == {"gpu0": "P2", "gpu1": "P2"}
    assert result.values("power.draw") == {"gpu0": 162, "gpu1": 164}
    assert result.values("power.limit") == {"gpu0": 450, "gpu1": 450}
    assert result.values("memory.used") == {"gpu0": 19809, "gpu1": 19786}
    assert result.values("utilization.gpu") == {"gpu0": 3}


def test_dmon_samples_before_the_first_header_are_read() -> None:
    """The capture starts between two repeated headers: its first 8 samples (the run's
    warm-up, 1603 to 1863 MHz) come before any ``# gpu`` line."""
    result = parse_dmon(_read("dmon/issues/002"))
    assert result.values("dmon.samples") == {"gpu0": 43}
    assert result.values("clocks.sm.series.first") == {"gpu0": 1603.0}
    assert result.values("clocks.sm.series.max") == {"gpu0": 1863.0}
    assert result.values("clocks.sm.series.last") == {"gpu0": 1826.0}
    assert result.values("temperature.gpu.series.first") == {"gpu0": 31.0}
    assert result.values("power.draw") == {"gpu0": 146.86}
    assert not any("not dmon output" in problem for problem in result.problems)
    assert any("before the first header" in problem for problem in result.problems)


def test_dmon_rows_before_header_must_fit_its_columns() -> None:
    """Workload output above the header stays out, even when it starts with a digit."""
    text = (
        "0 epochs done\n"
        "    0   150    40    97    26     0     0  5005  1847\n"
        "# gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk\n"
        "# Idx     W     C     %     %     %     %   MHz   MHz\n"
        "    0   171    41    95    35     0     0  5005  1840\n"
    )
    result = parse_dmon(text)
    assert result.values("dmon.samples") == {"gpu0": 2}
    assert result.values("clocks.sm") == {"gpu0": 1843.5}
    assert any("0 epochs done" in problem for problem in result.problems)


# --- values the power and thermal rules read -----------------------------------------------


def test_new_clocks_event_reasons_wording_with_power_cap_active_in_p2() -> None:
    result = parse_smi_q(_read("smi-q/issues/002"))
    assert result.values("pstate") == {"gpu0": "P2"}
    assert result.values("clocks_event_reasons.sw_power_cap") == {"gpu0": True}
    for reason in ("hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown"):
        assert result.values(f"clocks_event_reasons.{reason}") == {"gpu0": False}
    assert result.values("temperature.gpu") == {"gpu0": 77}
    assert result.values("temperature.gpu.max_operating") == {"gpu0": 88}
    assert result.values("temperature.gpu.slowdown") == {"gpu0": 97}
    assert "temperature.gpu.tlimit" not in {fact.name for fact in result.facts}


def test_old_throttle_reasons_in_p2_fragment() -> None:
    """Four reasons and 'Unknown : Active' (no fact carries it); the link width lines above
    have lost their section header and stay unread."""
    result = parse_smi_q(_read("smi-q-sections/012"))
    assert result.values("pstate") == {"gpu0": "P2"}
    assert result.values("clocks_event_reasons.sw_power_cap") == {"gpu0": False}
    assert result.values("clocks_event_reasons.hw_slowdown") == {"gpu0": False}
    assert result.values("utilization.gpu") == {"gpu0": 100}
    assert result.values("pcie.link.width.current") == {}


def test_power_readings_fragment_before_the_next_gpu() -> None:
    result = parse_smi_q(_read("smi-q-sections/014"))
    assert result.values("power.draw") == {"gpu0": 24.39}
    assert result.values("power.limit") == {"gpu0": 260.0}
    assert result.values("power.max_limit") == {"gpu0": 325.0}
    assert result.values("clocks.sm") == {"gpu0": 300}
    assert result.values("clocks.max.sm") == {"gpu0": 2175}
    assert result.values("name") == {"gpu1": "GeForce RTX 2080 Ti"}


def test_query_with_power_limit_below_draw_and_unknown_error_default() -> None:
    result = parse_query_gpu(_read("query-csv/issues/005"))
    assert result.values("power.draw") == {"gpu0": 228.82}
    assert result.values("power.limit") == {"gpu0": 210.0}
    assert result.values("power.default_limit") == {}
    assert result.values("clocks.gr") == {"gpu0": 1560}
    assert result.values("temperature.gpu") == {"gpu0": 56}


def test_dmon_v100_burst_then_idle_tail() -> None:
    result = parse_dmon(_read("dmon/issues/004"))
    assert result.values("dmon.samples") == {"gpu0": 749}
    assert result.values("clocks.sm.series.max") == {"gpu0": 1530.0}
    assert result.values("clocks.sm.series.last") == {"gpu0": 135.0}
    assert result.values("power.draw.series.max") == {"gpu0": 265.0}


def test_smi_table_a_memory_cell_cut_inside_its_total_gives_no_memory_facts() -> None:
    """ "1583MiB /  245" is a total cut short (or wrapped by a narrow terminal), not 245 MiB."""
    text = (
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: 12.0     |\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
        "|===============================+======================+======================|\n"
        "|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0 Off |                  Off |\n"
        "|  0%   30C    P8    29W / 450W |   1583MiB /  245\n"
    )
    facts = {f.name: f.value for f in parse_smi_table(text).facts}
    assert facts["power.draw"] == 29
    assert "memory.total" not in facts and "memory.used" not in facts


DMON_HEAD = (
    "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
    "# Idx      W      C      C      %      %      %      %    MHz    MHz\n"
)


def test_dmon_samples_right_above_the_header_are_read() -> None:
    text = "    0    250     70      -     99     40      0      0   9501   1905\n" + DMON_HEAD
    text += "    0    251     71      -     98     41      0      0   9501   1900\n"
    facts = {(f.name, f.subject): f.value for f in parse_dmon(text).facts}
    assert facts[("dmon.samples", "gpu0")] == 2


def test_dmon_another_tool_s_numbers_above_are_not_samples() -> None:
    """vmstat beside dmon: ten numbers a line, but a GPU index the rows do not have, or a
    "percentage" of 2048, or a line of other text between them and the header."""
    vmstat = "    1      0      0 912346  20480  81920      0      0      0      3\n"
    under = "    0    251     71      -     98     41      0      0   9501   1900\n"
    for above in (vmstat, vmstat.replace("    1 ", "    0 ", 1), vmstat + "procs ---memory---\n"):
        facts = {(f.name, f.subject): f.value for f in parse_dmon(above + DMON_HEAD + under).facts}
        assert facts[("dmon.samples", "gpu0")] == 1, above
        assert ("dmon.samples", "gpu1") not in facts
