"""Golden results for the tegrastats and nvpmodel parsers over real outputs, their
``recognises`` guesses (every sample of their own tool, none of any other's), and fuzzing: a
mutated or random paste never makes them raise, and a long line costs time linear in its length.

Every ``.txt`` has its source address in its folder's ``SOURCES`` file and a hand-checked
``.json`` beside it; see ``tests/parsers/jetson_tools.py`` for how they are stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes.nvpmodel import PROBE as NVPMODEL
from casefile_probes.tegrastats import PROBE as TEGRASTATS
from casefile_probes.tegrastats import parse_tegrastats
from hypothesis import given, settings
from hypothesis import strategies as st

from casefile.plugins import Registry

from .corpus import (
    assert_matches_golden,
    check_linear_in_line_length,
    check_probe_declarations,
    check_recognises_no_other,
    check_result,
    check_sources_and_goldens,
    golden_cases,
    read_sample,
    read_samples,
)
from .fuzzing import fuzz_mutated
from .jetson_tools import JETSON_TOOLS, RECOGNISERS

CASES = golden_cases(JETSON_TOOLS)


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_jetson_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, JETSON_TOOLS[folder])


@pytest.mark.parametrize("folder", sorted(JETSON_TOOLS))
def test_every_jetson_fixture_has_a_source_and_a_golden(folder: str) -> None:
    check_sources_and_goldens(folder, least=4, url_prefix="https://")


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_every_jetson_fixture_parses_to_facts(folder: str, path: Path) -> None:
    result = JETSON_TOOLS[folder](read_sample(path))
    assert result.parsed and result.facts, result.problems


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_recognises_its_own_samples(folder: str, path: Path) -> None:
    assert RECOGNISERS[folder](read_sample(path))


@pytest.mark.parametrize("folder", sorted(JETSON_TOOLS))
def test_recognises_no_other_tools_output(folder: str) -> None:
    check_recognises_no_other(folder, RECOGNISERS[folder], least=100)


def test_the_probes_declare_their_recogniser_and_every_fact_they_give() -> None:
    check_probe_declarations(TEGRASTATS, RECOGNISERS["tegrastats"])
    check_probe_declarations(NVPMODEL, RECOGNISERS["nvpmodel"])
    assert TEGRASTATS.needs_load and not NVPMODEL.needs_load


def test_the_probes_are_registered_under_their_names() -> None:
    probes = Registry.discover().all_probes()
    assert probes["tegrastats"].parse is TEGRASTATS.parse
    assert probes["nvpmodel"].parse is NVPMODEL.parse
    # it prints until stopped: casefile never runs it, and a paste needs no command line
    assert TEGRASTATS.where == frozenset({"pasted"})
    assert TEGRASTATS.argv == ("tegrastats", "--interval", "1000")
    assert NVPMODEL.argv == ("nvpmodel", "-q") and NVPMODEL.cost == "instant"


def test_a_series_under_load_is_summarised_per_metric() -> None:
    """008: a Nano under detectnet, as a blockquote: GR3D's mean over the lines, its series,
    and the sensors that read -256 C left out as absent."""
    result = parse_tegrastats(read_sample(Path(__file__).parents[1] / "golden/tegrastats/008.txt"))
    facts = {(f.subject, f.name): f.value for f in result.facts}
    assert facts[("gpu0", "utilization.gpu")] == 78.0
    assert ("gpu0", "utilization.gpu.series") in facts
    assert facts[("gpu0", "tegrastats.samples")] == 4


def test_an_absent_sensor_is_not_a_cold_gpu() -> None:
    line = "RAM 4321/62801MB (lfb 1759x4MB) EMC_FREQ 0%@2133 GR3D_FREQ 0%@[0,0] GPU@-256C tj@44C"
    names = {f.name for f in parse_tegrastats(line).facts}
    assert "temperature.gpu" not in names and "clocks.sm" not in names


def test_a_timestamped_series_takes_its_times_from_the_stamps() -> None:
    lines = "".join(
        f"04-11-2025 10:36:{second:02d} RAM 4321/62801MB GR3D_FREQ {load}%@[1300,1300] gpu@40C\n"
        for second, load in ((0, 10), (5, 20), (10, 30))
    )
    facts = {f.name: f.value for f in parse_tegrastats(lines).facts}
    assert facts["utilization.gpu.series.slope"] == pytest.approx(2.0)  # 10 % per 5 s


def test_the_interval_option_spaces_an_unstamped_series() -> None:
    lines = "".join(f"RAM 1/2MB GR3D_FREQ {load}%@900\n" for load in (10, 20, 30))
    facts = {
        f.name: f.value for f in parse_tegrastats("$ tegrastats --interval 500\n" + lines).facts
    }
    assert facts["utilization.gpu.series.slope"] == pytest.approx(20.0)  # 10 % per 0.5 s


def test_only_the_tegrastats_command_gives_the_interval() -> None:
    """Another program's ``--interval`` on a pasted prompt (the job's own) is not tegrastats'."""
    lines = "".join(f"RAM 1/2MB GR3D_FREQ 50%@900 GPU@{t}C\n" for t in (40, 40.5, 41, 41.5))
    paste = "$ python3 detect.py --interval 5 &\n$ tegrastats\n" + lines
    facts = {f.name: f.value for f in parse_tegrastats(paste).facts}
    assert facts["temperature.gpu.series.slope"] == pytest.approx(0.5)  # one line a second


@pytest.mark.parametrize(
    ("command", "slope"),
    [
        ("$ python3 detect.py --interval 10 & sudo tegrastats\n", 10.0),  # the job's own
        ("tegrastats --interval 5000\n", 2.0),  # pasted without its prompt: 10 % per 5 s
        ("$ sudo /usr/bin/tegrastats --interval 500 --logfile /tmp/t.log\n", 20.0),
    ],
)
def test_the_interval_is_tegrastats_own_on_its_command_line(command: str, slope: float) -> None:
    lines = "".join(f"RAM 1/2MB GR3D_FREQ {load}%@900\n" for load in (10, 20, 30))
    result = parse_tegrastats(command + lines)
    facts = {f.name: f.value for f in result.facts}
    assert facts["utilization.gpu.series.slope"] == pytest.approx(slope)
    assert not any("not tegrastats output" in problem for problem in result.problems)


def test_an_unprivileged_run_without_the_gpus_load_is_recognised_and_read() -> None:
    """Without sudo, older tegrastats prints no GR3D: its lines are whole, and its memory
    block is what tells it apart."""
    line = "RAM 2020/7852MB (lfb 1164x4MB) CPU [9%@345,21%@345,off,off]\n"
    result = parse_tegrastats(line * 2)
    assert TEGRASTATS.recognises is not None and TEGRASTATS.recognises(line * 2)
    assert result.parsed and {f.name: f.value for f in result.facts}["tegrastats.samples"] == 2


def test_stamps_of_whole_seconds_give_way_to_a_faster_interval() -> None:
    lines = "".join(
        f"04-11-2025 10:36:27 RAM 1/2MB GR3D_FREQ {load}%@900\n" for load in (10, 20, 30)
    )
    facts = {
        f.name: f.value
        for f in parse_tegrastats("$ sudo tegrastats --interval 200\n" + lines).facts
    }
    assert facts["utilization.gpu.series.slope"] == pytest.approx(50.0)  # 10 % per 0.2 s


def test_an_unstamped_line_before_stamped_ones_times_them_all_by_the_interval() -> None:
    paste = (
        "RAM 1/2MB GR3D_FREQ 10%@900\n"
        "04-11-2025 10:36:27 RAM 1/2MB GR3D_FREQ 20%@900\n"
        "04-11-2025 10:36:28 RAM 1/2MB GR3D_FREQ 30%@900\n"
    )
    facts = {f.name: f.value for f in parse_tegrastats(paste).facts}
    assert facts["utilization.gpu.series.slope"] == pytest.approx(10.0)


def test_a_clock_that_ends_a_cut_line_is_left_out() -> None:
    full = "RAM 1/2MB EMC_FREQ 8%@1600 GR3D_FREQ 99%@1300 GPU@40C\n"
    facts = {f.name: f.value for f in parse_tegrastats(full * 3 + "RAM 1/2MB EMC_FREQ 8%@1").facts}
    assert facts["clocks.sm"] == 1300.0 and facts["clocks.mem"] == 1600.0
    cut = parse_tegrastats(full * 3 + "RAM 1/2MB EMC_FREQ 8%@1600 GR3D_FREQ 99%@13")
    assert {f.name: f.value for f in cut.facts}["clocks.sm"] == 1300.0


def test_a_second_cluster_is_averaged_in_and_a_cluster_at_zero_is_off() -> None:
    """JetPack 5.0 printed Orin's clusters as two fields; later ones as a list: one state, one
    reading."""
    split = parse_tegrastats("RAM 1/2MB GR3D_FREQ 80%@1300 GR3D2_FREQ 0%@0\n").facts
    listed = parse_tegrastats("RAM 1/2MB GR3D_FREQ 40%@[1300,0]\n").facts
    assert {f.name: f.value for f in split}["clocks.sm"] == 1300.0
    assert {f.name: f.value for f in split}["utilization.gpu"] == 40.0
    assert {f.name: f.value for f in listed}["clocks.sm"] == 1300.0


def test_a_shell_that_could_not_run_it_says_so() -> None:
    result = parse_tegrastats("bash: tegrastats: command not found\n")
    assert not result.parsed and "did not run" in result.problems[0]


@pytest.mark.parametrize("folder", sorted(JETSON_TOOLS))
def test_mutated_outputs_never_raise(folder: str) -> None:
    parse, recognise = JETSON_TOOLS[folder], RECOGNISERS[folder]

    def check(text: str) -> None:
        check_result(parse(text))
        assert isinstance(recognise(text), bool)

    fuzz_mutated(read_samples(folder), check)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400))
def test_random_text_never_raises(text: str) -> None:
    for folder, parse in JETSON_TOOLS.items():
        check_result(parse(text))
        assert isinstance(RECOGNISERS[folder](text), bool)


#: repeated units that reach deep into the patterns and end so that nothing matches there
SHAPES = {
    "cores": ("CPU [1%@2,", ""),
    "rails": ("VDD_A 1/", "x"),
    "sensors": ("a@1.", "x"),
    "gr3d": ("GR3D_FREQ 1%@[1,", ""),
    "ram": ("RAM 1/", "x"),
    "mode": ("NV Power Mode: ", "x y"),
    "options": ("tegrastats --a --b ", "!"),
    "lfb": ("RAM 1/2MB (lfb 1x", "x"),
}
LINE = 400_000


@pytest.mark.parametrize("folder", sorted(JETSON_TOOLS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_long_line_costs_time_linear_in_its_length(folder: str, shape: str) -> None:
    """Twice the line, at most about twice the time (and never seconds)."""
    unit, end = SHAPES[shape]
    check_linear_in_line_length(JETSON_TOOLS[folder], unit, end, LINE, f"{folder} ({shape})")
