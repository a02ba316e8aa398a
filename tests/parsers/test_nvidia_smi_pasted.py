"""nvidia-smi outputs from public threads, beside the shared corpus: goldens and hand checks.

Each ``tests/golden/<folder>/issues/<stem>.txt`` has its thread in the sub-folder's ``SOURCES``
and a hand-checked ``.json`` beside it (see ``tests/parsers/nvidia_smi_pasted.py``). The hand
tests below pin what the parsers failed to read before these samples were collected: a
lined-up CSV, a table pasted without its GPU rows, a topology row cut inside a cell.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.query_gpu import parse_query_gpu
from casefile_probes.smi_q import parse_smi_q
from casefile_probes.smi_table import parse_smi_table, recognise_smi_table
from casefile_probes.topo import parse_topo

from .corpus import (
    GOLDEN,
    assert_matches_golden,
    check_sources_and_goldens,
    golden_cases,
    golden_files,
    read_sample,
)
from .nvidia_smi_pasted import PASTED_SMI

CASES = golden_cases(PASTED_SMI)
FOLDERS = [folder for folder in PASTED_SMI if golden_files(folder)]


def _read(key: str) -> str:
    return read_sample(GOLDEN / f"{key}.txt")


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_pasted_nvidia_smi_output_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, PASTED_SMI[folder])


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_pasted_nvidia_smi_output_names_its_thread(folder: str) -> None:
    check_sources_and_goldens(folder, url_prefix="https://github.com/")


def test_every_pasted_nvidia_smi_output_parses_to_facts() -> None:
    """Each was chosen because it holds something readable: none may come out empty."""
    assert len(CASES) >= 10
    for folder, parse in PASTED_SMI.items():
        for path in golden_files(folder):
            result = parse(read_sample(path))
            assert result.parsed and result.facts, f"{folder}/{path.name}: {result.problems}"


# --- what the parsers misread or refused before ----------------------------------------------


def test_query_csv_lined_up_by_column_t_is_read() -> None:
    """``--format=csv | column -s, -t`` leaves no comma: cells split at runs of spaces, and a
    name with single spaces in it stays one cell."""
    result = parse_query_gpu(_read("query-csv/issues/002"))
    assert result.parsed
    assert result.values("name") == {"gpu0": "GeForce GTX 1080", "gpu1": "GeForce GTX 1080"}
    assert result.values("power.draw") == {"gpu0": 131.17, "gpu1": 131.13}
    assert result.values("clocks.gr") == {"gpu0": 1708, "gpu1": 1721}
    assert result.values("temperature.gpu") == {"gpu0": 38, "gpu1": 35}
    assert any("column -t" in problem for problem in result.problems)


def test_query_csv_with_commas_is_not_taken_for_lined_up_columns() -> None:
    """A comma-separated header whose cells are padded stays CSV."""
    text = "index,  name,  power.draw [W]\n0,  NVIDIA A100,  61.50 W\n"
    result = parse_query_gpu(text)
    assert result.values("name") == {"gpu0": "NVIDIA A100"}
    assert not any("column -t" in problem for problem in result.problems)


def test_smi_table_mig_devices_section_alone_is_read_and_recognised() -> None:
    text = _read("smi-table/issues/004")
    assert recognise_smi_table(text)
    result = parse_smi_table(text)
    assert result.parsed
    assert result.values("mig.gi_id") == {
        "gpu1/mig0": 3,
        "gpu1/mig1": 5,
        "gpu1/mig2": 6,
        "gpu2/mig0": 3,
    }
    assert result.values("memory.used")["gpu1/mig1"] == 9826
    # without the GPU rows no GPU's device count is known
    assert not result.values("mig.devices")


def test_smi_table_processes_section_alone_gives_its_processes_but_no_counts() -> None:
    result = parse_smi_table(_read("smi-table/issues/005"))
    assert result.parsed
    assert result.values("process.used_memory")["gpu1/pid34965"] == 14195
    assert result.values("process.name")["gpu0/pid33724"] == "tritonserver"
    assert len(result.values("process.type")) == 7
    # GPU 0's two processes are all that was shown, but a GPU with none would be missing
    assert not result.values("processes.count")
    assert any("no GPU rows" in problem for problem in result.problems)


def test_topo_row_cut_inside_a_cell_keeps_the_other_rows_affinity() -> None:
    """The excerpt ends in row GPU4's 'SY': that stump is not a CPU list, so it must not mark
    the whole CPU Affinity column as clipped."""
    result = parse_topo(_read("topo/issues/003"))
    assert result.values("topo.cpu_affinity") == {
        "gpu0": "0-47,96-143",
        "gpu1": "0-47,96-143",
        "gpu2": "0-47,96-143",
        "gpu3": "0-47,96-143",
    }
    assert not any("clipped" in problem for problem in result.problems)
    assert result.values("topo.link")["gpu3-nic7"] == "PIX"
    assert result.values("topo.link")["gpu0-gpu4"] == "SYS"


# --- values a rule leans on, typed from the text ---------------------------------------------


def test_topo_header_at_column_zero_and_eighteen_nics() -> None:
    result = parse_topo(_read("topo/issues/001"))
    assert result.values("topo.nvlinks")["gpu0-gpu7"] == 12
    assert result.values("topo.link")["gpu0-nic5"] == "PXB"
    assert result.values("topo.link")["gpu2-nic1"] == "PXB"
    assert result.values("topo.link")["gpu3-nic17"] == "SYS"
    assert result.values("topo.numa_affinity") == {
        "gpu0": "3",
        "gpu1": "3",
        "gpu2": "1",
        "gpu3": "1",
    }


def test_topo_sixteen_gpus_with_mlx5_columns() -> None:
    result = parse_topo(_read("topo/issues/002"))
    assert result.values("topo.link")["gpu0-gpu15"] == "NV6"
    assert result.values("topo.link")["gpu2-mlx5_1"] == "PIX"
    assert result.values("topo.link")["gpu4-mlx5_3"] == "PXB"
    assert result.values("topo.p2p_possible")["gpu1-gpu14"] is True


def test_old_clocks_throttle_reasons_spelling_of_495() -> None:
    result = parse_smi_q(_read("smi-q-sections/006"))
    assert result.values("driver_version") == {"host": "495.44"}
    assert result.values("clocks_event_reasons.gpu_idle") == {"gpu0": True}
    assert result.values("clocks_event_reasons.sw_power_cap") == {"gpu0": False}
    assert result.values("clocks_event_reasons.display_clock_setting") == {"gpu0": False}


def test_gpu_power_readings_of_590_with_not_found_samples() -> None:
    result = parse_smi_q(_read("smi-q-sections/010"))
    assert result.values("power.limit") == {"gpu0": 35.0}
    assert result.values("power.max_limit") == {"gpu0": 95.0}
    assert result.values("power.draw.instant") == {"gpu0": 1.44}
    assert not any("unreadable" in problem for problem in result.problems)


def test_nvsmi_log_behind_a_backtick_of_375() -> None:
    result = parse_smi_q(_read("smi-q-sections/011"))
    assert result.values("driver_version") == {"host": "375.66"}
    assert result.values("utilization.gpu") == {"gpu0": 47}
    assert result.values("memory.used") == {"gpu0": 1934}
