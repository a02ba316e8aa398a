"""A reading or an A/B told twice is refused, so one finding does not count twice.

The same stated reading, the same pasted output or the same reported A/B recorded a second
time multiplied its likelihood ratio in again, as if two measurements agreed: a paste sent
twice by mistake moved the beliefs twice. Now the second copy is refused with one line that
says what it repeats and what lets a real second run or a retelling through, and the case is
left as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casefile.domain.repeats import refuse_repeated_experiment, refuse_repeated_reading
from casefile.errors import DomainError
from tests.cli.conftest import CLI

GEN2 = ["--stated", "pcie.link.gen.current[e3:00.0]=2", "--stated", "pcie.link.gen.max[e3:00.0]=5"]
THREADS = "-t 7 (CPU threads limited to 7)"


@pytest.fixture
def case(cli: CLI) -> str:
    assert cli("new", "slow decode", "--id", "r1", "--playbook", "gpu-throughput@3").code == 0
    return "r1"


def events(cli: CLI, case: str) -> list[dict[str, object]]:
    return json.loads(cli("log", case, "--json").out)  # type: ignore[no-any-return]


def test_a_stated_reading_told_twice_is_refused_and_writes_nothing(cli: CLI, case: str) -> None:
    first = cli("probe", case, "nvidia-smi-q", *GEN2, "--load", "under-load", "--host", "rig")
    assert first.code == 0, first.err
    before = events(cli, case)
    again = cli("probe", case, "nvidia-smi-q", *GEN2, "--load", "under-load", "--host", "rig")
    assert again.code != 0
    (line,) = again.err.strip().splitlines()
    assert "already records this stated reading of nvidia-smi-q on rig" in line
    assert "--note" in line  # what lets a real second run through
    assert events(cli, case) == before
    # a second run that said the same, told apart in its note, counts
    second = cli(
        "probe", case, "nvidia-smi-q", *GEN2, "--load", "under-load", "--host", "rig",
        "--note", "the second run, after a reboot",
    )  # fmt: skip
    assert second.code == 0, second.err


def test_the_same_statement_elsewhere_or_under_other_conditions_is_another_reading(
    cli: CLI, case: str
) -> None:
    assert (
        cli("probe", case, "nvidia-smi-q", *GEN2, "--load", "under-load", "--host", "rig").code == 0
    )
    other_host = cli("probe", case, "nvidia-smi-q", *GEN2, "--load", "under-load", "--host", "b")
    assert other_host.code == 0, other_host.err
    idle = cli("probe", case, "nvidia-smi-q", *GEN2, "--load", "idle", "--host", "rig")
    assert idle.code == 0, idle.err
    other_probe = cli("probe", case, "lspci", *GEN2, "--load", "under-load", "--host", "rig")
    assert other_probe.code == 0, other_probe.err


def test_pasted_output_sent_twice_is_refused(cli: CLI, case: str, tmp_path: Path) -> None:
    paste = tmp_path / "smi.txt"
    paste.write_text(
        "Wed Jan  5 10:00:00 2026\n+---+\n| NVIDIA-SMI 550.54.15  Driver Version: 550.54.15 |\n"
    )
    args = ("probe", case, "nvidia-smi", "--paste", str(paste), "--host", "rig")
    assert cli(*args).code == 0
    again = cli(*args)
    assert again.code != 0 and "already records this pasted output of nvidia-smi" in again.err
    # the time it was taken is no difference: the same text is the same reading
    later = cli(*args, "--taken-at", "2026-01-06T10:00:00Z")
    assert later.code != 0


def test_a_run_that_printed_the_same_is_not_a_repeat(cli: CLI, case: str) -> None:
    """Only what a person brings is checked: a command run twice is two runs."""
    argv = ["--", "python3", "-c", "print('same output')"]
    assert cli("probe", case, "command", *argv).code == 0
    assert cli("probe", case, "command", *argv).code == 0


def test_a_reported_ab_told_twice_is_refused_unless_it_restates(cli: CLI, case: str) -> None:
    args = ("experiment", case, "--change", THREADS, "--reported", "5.1:9.8", "--unit", "tokens/s")
    assert cli(*args).code == 0
    before = events(cli, case)
    again = cli(*args)
    assert again.code != 0
    (line,) = again.err.strip().splitlines()
    assert "experiment x1 already records this A/B" in line and "--restates" in line
    assert events(cli, case) == before
    # spacing and case are no other change
    respaced = cli(
        "experiment", case, "--change", "  -T 7  (cpu threads limited to 7)", "--reported",
        "5.1:9.8", "--unit", "tokens/s",
    )  # fmt: skip
    assert respaced.code != 0
    assert cli(*args, "--restates", "x1").code == 0
    assert cli(*args, "--note", "the second run").code == 0
    assert cli("experiment", case, "--change", THREADS, "--reported", "5.1:9.9", "--unit",
               "tokens/s").code == 0  # fmt: skip


def test_an_outcome_in_words_told_twice_is_refused(cli: CLI, case: str) -> None:
    said = ("experiment", case, "--change", THREADS, "--outcome", "fixed")
    assert cli(*said).code == 0
    assert cli(*said).code != 0
    assert cli("experiment", case, "--change", THREADS, "--outcome", "same").code == 0
    assert cli(*said, "--restates", "x1").code == 0


def test_a_measured_ab_is_not_compared_with_the_told_ones() -> None:
    """Runs tell measured A/Bs apart (their seqs); the guard leaves them to that check."""
    measured = {"change": "c", "baseline_seq": 3, "variant_seq": 5, "metric": "m"}
    refuse_repeated_experiment({"x1": dict(measured, experiment_id="x1")}, measured)


def test_a_record_kept_as_stored_matches_a_new_one_spelled_out() -> None:
    """A stored run may omit what a new one spells out (a default, a key order)."""
    stored = {"probe": "p", "source": "pasted", "host": "h", "stdout_artifact": "a",
              "conditions": {"load": "idle", "host": "h"}, "argv": ["x"]}  # fmt: skip
    new = dict(stored, conditions={"host": "h", "load": "idle"}, reconstructed=False, note=None)
    with pytest.raises(DomainError, match="seq 4 already records"):
        refuse_repeated_reading({4: stored}, new)
    refuse_repeated_reading({4: stored}, dict(new, source="local"))  # ran here: two runs
