"""A case on a Jetson is read with a Jetson's tools.

A Jetson's integrated GPU has no nvidia-smi worth the name (absent before JetPack 6, ``N/A`` in
every field on Orin after it): a user there pastes ``tegrastats`` and ``nvpmodel -q``. Before
these, "1x Jetson AGX Orin" answered no GPU count, so every inter-GPU hypothesis kept its
share, the next steps offered nvidia-smi five ways, and neither tool's output was read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.dmon import PROBE as DMON
from casefile_probes.nvpmodel import PROBE as NVPMODEL
from casefile_probes.tegrastats import PROBE as TEGRASTATS

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.probes.runners.pasted import from_text
from casefile.probes.runners.result import RunResult
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import builtin_registry
from tests.triage.test_gpu_patterns import env_answers

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
NVIDIA_SMI_FAMILY = {
    "nvidia-smi",
    "nvidia-smi-q",
    "nvidia-smi-q-perf",
    "nvidia-smi-query",
    "nvidia-smi-dmon",
    "nvidia-smi-pmon",
    "nvidia-smi-topo",
    "nvml-sampler",
}
#: one tegrastats line of an Orin under load (the layout of tests/golden/tegrastats' Orin
#: samples, with the GPU busy): GR3D 99 % at 1300 MHz on both clusters, EMC 62 %
ORIN_BUSY = (
    "04-11-2025 10:36:27 RAM 9321/62801MB (lfb 1759x4MB) SWAP 19/31400MB (cached 0MB) "
    "CPU [12%@2201,3%@2201,0%@2201,0%@2201] EMC_FREQ 62%@3199 GR3D_FREQ 99%@[1300,1300] "
    "CPU@51.5C gpu@50.8C VDD_GPU_SOC 18340mW/17980mW VIN_SYS_5V0 9025mW/9010mW\n"
)


@pytest.mark.parametrize(
    ("gpus", "answers"),
    [
        ("Jetson AGX Orin 64GB", ["one"]),
        ("1x Jetson Xavier NX", ["one"]),
        ("NVIDIA Jetson Orin Nano 8GB developer kit", ["one"]),
        ("Jetson TX2", ["one"]),  # the X of TX2 is no count after an x
        ("Jetson Orin NX 16 GB", ["one"]),  # nor is NX 16
        ("4x Jetson Orin NX cluster", ["several"]),
        ("Jetson Nano x2", ["several"]),
        ("five Jetson Orin Nanos", []),  # not one; a count in words is left unread
        ("100 Jetson Nanos", []),
        ("Jetson AGX Orin (x2)", ["several"]),
        ("Jetson AGX Orin*2", ["several"]),
        ("Jetson AGX Orin 64GBx2", []),  # not one
        ("Jetson AGX Orin and 2 RTX 4090", ["several"]),
        ("Jetson Orin AGX w/ 2 RTX A4000", []),  # another GPU beside it: not one
        ("Jetson AGX Orin and Jetson Orin Nano", []),  # two Jetsons: not one
        ("a pair of Jetson Nanos", []),
        ("Jetson Nano (2 of them)", []),
        ("Jetson Nano 4GB (B01)", ["one"]),  # a revision, not an A100's kin
        ("JETSON ORIN NX 16GB", ["one"]),
        ("two Jetson Xavier NX boards", []),  # not one; a count in words is left unread
        ("Jetson AGX Orin vs RTX 4090", []),
    ],
)
def test_a_jetson_named_is_one_gpu(gpus: str, answers: list[str]) -> None:
    assert sorted(set(env_answers("gpu-count", gpus))) == answers


def run(text: str) -> RunResult:
    return from_text(("pasted",), text, host="jetson", taken_at="2026-01-01T00:00:00Z")


def orin_case(service: CaseService) -> str:
    """A new case on a Jetson AGX Orin, on the current playbook."""
    return service.writer.new_case(
        "slow", environment={"gpus": "Jetson AGX Orin"}, playbook="gpu-throughput@3", who=Who("t")
    )


def offered(environment: dict[str, str]) -> set[str]:
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case(
            "slow", environment=environment, playbook="gpu-throughput@3", who=Who("t")
        )
        projection = service.reader.projection(case)
        return {c.probe for c in service.reader.candidates(projection)}


def test_a_jetson_is_offered_its_own_tools_and_not_nvidia_smi() -> None:
    names = offered({"gpus": "Jetson AGX Orin 64GB"})
    assert {"tegrastats", "nvpmodel"} <= names
    assert not names & NVIDIA_SMI_FAMILY
    assert {"app-log", "nsys-stats"} <= names


@pytest.mark.parametrize(
    "environment",
    [{}, {"gpus": "1x RTX 4090"}, {"gpus": "8x H100 SXM"}, {"platform": "Jetson AGX Thor"}],
)
def test_other_machines_are_offered_nvidia_smi_and_not_the_jetson_tools(
    environment: dict[str, str],
) -> None:
    names = offered(environment)
    assert not names & {"tegrastats", "nvpmodel"} or "Thor" in str(environment)
    assert "nvidia-smi" in names


def test_hardware_scope_reads_every_key_that_names_the_machine() -> None:
    assert TEGRASTATS.suits({"platform": "Jetson Xavier NX, JetPack 5.1"})
    assert TEGRASTATS.suits({"board": "Orin Nano devkit"})
    assert TEGRASTATS.suits({"gpu_model": "Jetson AGX Orin"})
    assert TEGRASTATS.suits({"module": "Jetson Orin NX 16GB"})
    assert TEGRASTATS.suits({"platform": "tegra234"})
    assert not DMON.suits({"GPUs": "Jetson Orin Nano"})
    assert not TEGRASTATS.suits({"software": "Jetson inference (dusty-nv)"})  # software only
    assert not DMON.suits({"gpus": "Jetson TX2"})
    assert DMON.suits({"gpus": "Jetson AGX Thor"})  # Thor's driver answers nvidia-smi
    assert NVPMODEL.suits({"gpus": "Jetson AGX Thor"})


@pytest.mark.parametrize(
    "environment",
    [
        {"platform": "IGX Orin", "gpus": "RTX 6000 Ada"},  # the board's discrete card
        {"platform": "DRIVE AGX Pegasus (2x Xavier + 2x Turing T4)"},
        {"machine": "xavier-dev-box (workstation)", "gpus": "RTX 3090"},  # a host's name
    ],
)
def test_a_discrete_gpu_named_beside_a_jetson_keeps_nvidia_smi(
    environment: dict[str, str],
) -> None:
    assert DMON.suits(environment)


@pytest.mark.parametrize(
    "gpus",
    [
        "Jetson Nano B01",  # a revision
        "Jetson Nano A02",
        "Jetson Nano (quad Cortex-A57)",  # its CPU
        "Jetson Xavier NX, H265 encode",  # its encoder
        "orin nano 8gb",  # a family name in small letters
        "tx2",
    ],
)
def test_a_jetsons_own_names_are_no_discrete_gpu(gpus: str) -> None:
    assert TEGRASTATS.suits({"gpus": gpus}) and not DMON.suits({"gpus": gpus})


@pytest.mark.parametrize("gpus", ["AGX Thor", "NVIDIA Thor", "Jetson T5000", "Jetson T4000"])
def test_thor_by_any_of_its_names_is_offered_both_families(gpus: str) -> None:
    assert TEGRASTATS.suits({"gpus": gpus}) and DMON.suits({"gpus": gpus})


def test_a_host_named_after_a_jetson_family_is_no_jetson() -> None:
    assert not TEGRASTATS.suits({"machine": "xavier-dev-box", "gpus": "RTX 3090"})


def test_a_tegrastats_paste_under_load_reads_the_gpu_and_memory_controller() -> None:
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = orin_case(service)
        service.probing.record_probe(case, TEGRASTATS, run(ORIN_BUSY * 3), load="under-load")
        projection = service.reader.projection(case)
        readings = {
            (e.rule or {}).get("id"): e.outcome for e in projection.evidence.values() if e.active
        }
    assert readings.get("sm-busy") == "busy"
    # the memory controller's load is a share at its current clock, not of its peak; and a
    # few seconds of temperatures are no trend over a sustained run
    assert "memory-bandwidth-share" not in readings
    assert "temperature-trend" not in readings


@pytest.mark.parametrize(
    ("paste", "reduced", "mode"),
    [
        ("NV Power Mode: MODE_30W\n3\n", True, "MODE_30W"),
        ("NV Fan Mode:quiet\nNV Power Mode: MAXN\n0\n", False, "MAXN"),
        ("NV Power Mode: MAXN_SUPER\n2\n", False, "MAXN_SUPER"),
        (
            "NVPM VERB: Config file: /etc/nvpmodel.conf\nNVPM VERB: parsing done for "
            "/etc/nvpmodel.conf\nNVPM VERB: Current mode: NV Power Mode: MODE_30W\n3\n",
            True,
            "MODE_30W",
        ),  # --verbose
    ],
)
def test_nvpmodel_reads_the_mode_and_whether_it_is_reduced(
    paste: str, reduced: bool, mode: str
) -> None:
    facts = {f.name: f.value for f in NVPMODEL.parse(paste).facts}
    assert facts["jetson.power_mode"] == mode
    assert facts["jetson.power_mode.reduced"] is reduced


@pytest.mark.parametrize(
    ("paste", "mode", "number"),
    [
        ("Here is my mode:\n> NV Power Mode: MAXN\n> 0\nand it is slow\n", "MAXN", 0),
        ("NV Power Mode[0]: MAXN\n", "MAXN", 0),  # jetson-stats' jetson_release
        ("NV Power Mode:      MODE_15W\r2\r", "MODE_15W", 2),  # wide, with CR line ends
    ],
)
def test_a_mode_line_is_read_however_it_was_pasted(paste: str, mode: str, number: int) -> None:
    facts = {f.name: f.value for f in NVPMODEL.parse(paste).facts}
    assert facts["jetson.power_mode"] == mode and facts["jetson.power_mode.id"] == number
    assert NVPMODEL.recognises is not None and NVPMODEL.recognises(paste)


@pytest.mark.parametrize(
    "paste",
    [
        "NV Power Mode: MAXN\n",
        "> NV Power Mode: MAXN\n",
        "NV Power Mode: MODE 15W\n",  # not a mode's name
        "GPU MinFreq=114750000 MaxFr",  # cut
        "SOC family:tegra234  Machine:\n",  # no machine
        "GPU  MinFreq=1 MaxFreq=2\n",
        "EMC MinFreq=204000000 MaxFreq=3199000000\n",
        "nothing here\n",
    ],
)
def test_what_nvpmodel_recognises_it_parses_and_nothing_else(paste: str) -> None:
    assert NVPMODEL.recognises is not None
    assert NVPMODEL.recognises(paste) == NVPMODEL.parse(paste).parsed


@pytest.mark.parametrize("mode", ["MODE_20W_6CORE", "15W", "10W"])
def test_a_mode_that_is_some_boards_top_is_not_read_as_reduced(mode: str) -> None:
    """Xavier NX has no MAXN (its 20 W six-core mode is its top), nor had an Orin Nano before
    JetPack 6.2 (15 W, 10 W on the 4 GB): the output cannot say the budget was cut."""
    result = NVPMODEL.parse(f"NV Power Mode: {mode}\n8\n")
    names = {f.name for f in result.facts}
    assert "jetson.power_mode" in names and "jetson.power_mode.reduced" not in names
    assert any("top mode" in problem for problem in result.problems)


@pytest.mark.parametrize(
    ("paste", "said"),
    [
        ("bash: nvpmodel: command not found\n", "command not found"),
        ("NVPM ERROR: failed to read PARAM EMC\n", "NVPM ERROR"),
    ],
)
def test_a_failed_query_says_why_in_its_own_words(paste: str, said: str) -> None:
    result = NVPMODEL.parse(paste)
    assert not result.parsed and said in result.problems[0]
    assert "nvidia-smi" not in result.problems[0]


def test_a_reduced_power_mode_counts_for_the_power_cap() -> None:
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = orin_case(service)
        before = service.reader.projection(case).questions["throughput"].snapshot()
        service.probing.record_probe(case, NVPMODEL, run("NV Power Mode: MODE_15W\n1\n"))
        after = service.reader.projection(case).questions["throughput"].snapshot()
    assert after.confidences["power-cap"] > 1.5 * before.confidences["power-cap"]
