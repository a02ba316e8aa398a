"""An A/B compares one unit: where a fact's unit differs between the two runs (a log whose rate
was tokens/s in one paste and it/s in the other), the figures cannot be divided, and the
command says so instead of reading a 20,000x "speedup"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casefile.domain.units import figure_name
from tests.cli.conftest import CLI

WORDS = "| epoch 008 | loss 6.326 | nll_loss 5.193 | ppl 36.58 | wps 12876 | ups 4.9 | wpb 2578\n"
BAR = "epoch 001:  10%|#| 100/1000 [00:50<07:30, 2.00it/s, loss=9.1]\n"


def paste(cli: CLI, tmp_path: Path, case: str, name: str, text: str) -> int:
    path = tmp_path / name
    path.write_text(text)
    ran = cli(
        "probe", case, "app-log", "--paste", str(path), "--load", "under-load", "--json",
        "--", "fairseq-train", "data-bin",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    return int(json.loads(ran.out.splitlines()[-1])["probe_run_seq"])


def test_two_runs_whose_throughput_is_in_two_units_are_not_divided(
    cli: CLI, tmp_path: Path
) -> None:
    assert cli("new", "slow training", "--id", "u", "--playbook", "gpu-throughput@3").code == 0
    words = paste(cli, tmp_path, "u", "words.txt", WORDS)
    bar = paste(cli, tmp_path, "u", "bar.txt", BAR)
    tried = cli(
        "experiment", "u", "--change", "num_workers 2 -> 8", "--baseline", str(words),
        "--variant", str(bar),
    )  # fmt: skip
    assert tried.code != 0
    assert "throughput is tokens/s in seq" in tried.err and "it/s in seq" in tried.err
    # the same unit on both sides is compared as ever
    again = paste(cli, tmp_path, "u", "words2.txt", WORDS.replace("12876", "19314"))
    read = cli(
        "experiment", "u", "--change", "num_workers 2 -> 8", "--baseline", str(words),
        "--variant", str(again), "--json",
    )  # fmt: skip
    assert read.code == 0, read.err
    assert json.loads(read.out)["speedup"] == 1.5


@pytest.mark.parametrize(
    ("unit", "name"),
    [
        ("tok/s", "throughput"),
        ("GB/s", "throughput"),
        ("img/s per GPU", "throughput"),
        ("s/step", "time"),
        ("ms", "time"),
        ("widgets", "figure"),
        (None, "figure"),
    ],
)
def test_a_figure_nothing_names_is_named_by_its_unit(unit: str | None, name: str) -> None:
    assert figure_name(unit) == name
