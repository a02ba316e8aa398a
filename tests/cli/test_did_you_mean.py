"""A misspelt probe, playbook or hypothesis is named with the one it most likely meant.

The refusals listed every installed name and left the reader to find the typo; a probe given
by one part of its name ("topo") found nothing at all. One helper
(:func:`casefile.errors.did_you_mean`) ends every such message, and the request is still
refused: nothing is guessed on the user's behalf.
"""

from __future__ import annotations

import pytest

from casefile.errors import did_you_mean
from tests.cli.conftest import CLI


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("nvidia-smi-qq", "nvidia-smi-q"),
        ("lspcii", "lspci"),
        ("topo", "nvidia-smi-topo"),  # one part of the name
        ("dmon", "nvidia-smi-dmon"),
        ("ncc-tests", "nccl-tests"),
    ],
)
def test_a_probe_typo_is_answered_with_the_probe_meant(cli: CLI, typed: str, meant: str) -> None:
    case = cli("new", "slow", "--id", "t1").out.strip()
    result = cli("probe", case, typed, "--stated", "x=1")
    assert result.code != 0
    (line,) = result.err.strip().splitlines()
    assert f"no probe {typed!r} (did you mean {meant}?)" in line
    assert cli("log", case, "--json").out.count('"type"') == 1  # only the case opened


def test_nothing_close_names_nothing() -> None:
    assert did_you_mean("smi", ["nvidia-smi-q", "nvidia-smi-topo"]) == ""  # two parts: no guess
    assert did_you_mean("zzz", ["lspci"]) == ""
    assert did_you_mean("", ["lspci"]) == ""


def test_a_playbook_and_a_hypothesis_typo(cli: CLI) -> None:
    made = cli("new", "slow", "--playbook", "gpu-throughputt")
    assert made.code != 0 and "(did you mean gpu-throughput?)" in made.err
    versioned = cli("new", "slow", "--playbook", "gpu-throughput@33")
    assert versioned.code != 0 and "did you mean gpu-throughput@3?" in versioned.err
    case = cli("new", "slow", "--playbook", "gpu-throughput@3").out.strip()
    shown = cli("hypothesis", "show", case, "power-cp")
    assert shown.code != 0 and "(did you mean power-cap?)" in shown.err
    figures = cli("experiment", case, "--change", "x", "--reported", "1:2", "--probe", "nccl-test")
    assert figures.code != 0 and "(did you mean nccl-tests?)" in figures.err


def test_case_and_separator_are_no_typo() -> None:
    probes = ["nvidia-smi-q", "nvidia-smi-topo", "lspci"]
    assert did_you_mean("NVIDIA-SMI-Q", probes) == " (did you mean nvidia-smi-q?)"
    assert did_you_mean("nvidia_smi_topo", probes) == " (did you mean nvidia-smi-topo?)"
    assert did_you_mean("TOPO", probes) == " (did you mean nvidia-smi-topo?)"


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["statsu", "t1"], "invalid choice: 'statsu' (did you mean status?)"),
        (["probe", "t1", "nvidia-smi-q", "--load", "undr-load"], "(did you mean under-load?)"),
        (["status", "t1", "--bogus"], "casefile status: error: unrecognized arguments: --bogus"),
        (["new"], "casefile new: error: the following arguments are required: title"),
        (["playbook", "show", "gpu-throughput", "extra"], "casefile playbook show: error: "),
    ],
)
def test_a_usage_error_is_one_line_naming_the_command(
    cli: CLI, words: list[str], said: str
) -> None:
    """argparse printed its usage block above the error; the error is now the one line, with
    the command's own name and the help that shows how."""
    result = cli(*words)
    assert result.code == 2
    (line,) = result.err.strip().splitlines()
    assert said in line and line.endswith("--help shows how)")
