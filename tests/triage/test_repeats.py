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
from types import SimpleNamespace

import pytest

from casefile.domain.facts import Fact
from casefile.domain.repeats import refuse_repeated_experiment, refuse_repeated_reading
from casefile.errors import DomainError
from tests.cli.conftest import CLI
from tests.parsers.corpus import CORPUS, read_sample

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
    assert "already records this stated reading on rig" in line
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


def test_the_same_facts_in_another_order_spelling_or_probe_are_the_same_reading(
    cli: CLI, case: str
) -> None:
    """The facts are the reading, not the text nor the probe's name: a statement reordered,
    "250W" for "250 W", or the same reading under another probe that reads it counts once."""
    under = ("--load", "under-load", "--host", "rig")
    first = ["--stated", "power.draw=250 W", "--stated", "power.limit=300 W"]
    assert cli("probe", case, "nvidia-smi-q", *first, *under).code == 0
    reordered = ["--stated", "power.limit=300W", "--stated", "power.draw=250W"]
    assert cli("probe", case, "nvidia-smi-q", *reordered, *under).code != 0
    assert cli("probe", case, "nvidia-smi-query", *first, *under).code != 0


def test_output_that_gave_no_facts_may_be_given_again(cli: CLI, case: str, tmp_path: Path) -> None:
    """It counted for nothing: given again (under the right probe, say) it counts once."""
    paste = tmp_path / "junk.txt"
    paste.write_text("no such output\n")
    args = ("probe", case, "nvidia-smi-topo", "--paste", str(paste), "--host", "rig")
    cli(*args)
    assert "already records" not in cli(*args).err


def test_pasted_output_sent_twice_is_refused(cli: CLI, case: str, tmp_path: Path) -> None:
    paste = tmp_path / "smi.txt"
    paste.write_text(
        "Wed Jan  5 10:00:00 2026\n+---+\n| NVIDIA-SMI 550.54.15  Driver Version: 550.54.15 |\n"
    )
    args = ("probe", case, "nvidia-smi", "--paste", str(paste), "--host", "rig")
    assert cli(*args).code == 0
    again = cli(*args)
    assert again.code != 0 and "already records this pasted output on rig" in again.err
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
    """A stored run may omit what a new one spells out (a default, a key order, a unit of
    none); a run made here is never compared (two runs are two runs)."""
    stored = {"probe": "p", "source": "pasted", "host": "h", "stdout_artifact": "a",
              "conditions": {"load": "idle", "host": "h"}, "argv": ["x"]}  # fmt: skip
    observation = {"probe_run_seq": 4, "facts": [{"name": "f", "subject": "host", "value": 1}]}
    case = SimpleNamespace(probe_runs={4: stored}, observations={5: observation})
    new = dict(stored, conditions={"host": "h", "load": "idle"}, reconstructed=False, note=None)
    facts = [Fact("f", 1, "host", None)]
    with pytest.raises(DomainError, match="seq 4 already records"):
        refuse_repeated_reading(case, new, facts)  # type: ignore[arg-type]
    refuse_repeated_reading(case, dict(new, source="local"), facts)  # type: ignore[arg-type]
    refuse_repeated_reading(case, dict(new, note="the second run"), facts)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "respelled", ["NCCL_P2P_DISABLE = 1", "export NCCL_P2P_DISABLE=1", "nccl_p2p_disable=1"]
)
def test_a_change_respelled_is_the_same_change(cli: CLI, case: str, respelled: str) -> None:
    figures = ("--reported", "27:48", "--unit", "GB/s")
    assert cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", *figures).code == 0
    assert cli("experiment", case, "--change", respelled, *figures).code != 0


def test_figures_then_words_for_one_change_are_pointed_at_each_other(cli: CLI, case: str) -> None:
    """Not word for word, so not refused; but one finding may be counting twice, and the
    person is told which A/B to name if it is a retelling."""
    figures = ("--reported", "27:48", "--unit", "GB/s")
    assert cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", *figures).code == 0
    worded = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed")
    assert worded.code == 0, worded.err
    assert "experiment x1 records an A/B of the same change" in worded.out
    assert "--restates x1 counts it once" in worded.out
    named = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed",
                "--restates", "x2", "--json")  # fmt: skip
    assert json.loads(named.out)["same_change"] is None


def test_a_paste_with_other_line_ends_is_the_same_reading(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    sample = CORPUS / "topo" / "001.txt"
    if not sample.is_file():
        pytest.skip("the shared corpus is not beside the checkout")
    text = read_sample(sample)
    unix, windows = tmp_path / "unix.txt", tmp_path / "windows.txt"
    unix.write_text(text, newline="\n")
    windows.write_text(text.rstrip("\n") + "\n\n", newline="\r\n")
    args = ("probe", case, "nvidia-smi-topo", "--host", "rig", "--paste")
    assert cli(*args, str(unix)).code == 0
    again = cli(*args, str(windows))
    assert again.code != 0 and "already records this pasted output on rig" in again.err


def test_the_same_paste_under_a_second_probe_that_reads_it_is_the_same_reading(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    """Filed without a command, each probe's own stands in: -q and -q-perf differed, so the
    clock rule read one paste twice."""
    sample = CORPUS / "smi-q" / "005.txt"
    if not sample.is_file():
        pytest.skip("the shared corpus is not beside the checkout")
    paste = tmp_path / "q.txt"
    paste.write_text(read_sample(sample))
    under = ("--load", "under-load", "--host", "rig", "--paste", str(paste))
    assert cli("probe", case, "nvidia-smi-q", *under).code == 0
    again = cli("probe", case, "nvidia-smi-q-perf", *under)
    assert again.code != 0 and "already records this pasted output on rig" in again.err


def test_the_same_change_hint_names_the_ab_that_counts_and_only_for_a_telling(
    cli: CLI, case: str
) -> None:
    figures = ("--reported", "27:48", "--unit", "GB/s")
    assert cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", *figures).code == 0
    # a retelling the rules read replaces x1: the A/B that counts is x2
    said = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "fixed",
               "--restates", "x1")  # fmt: skip
    assert said.code == 0, said.err
    worded = cli("experiment", case, "--change", "NCCL_P2P_DISABLE=1", "--outcome", "better")
    assert "experiment x2 records an A/B of the same change" in worded.out


@pytest.mark.parametrize("unit", ["tok/s", "Tokens per second", "tokens / sec"])
def test_a_unit_spelled_another_way_is_the_same_unit(cli: CLI, case: str, unit: str) -> None:
    assert cli("experiment", case, "--change", THREADS, "--reported", "5.1:9.8", "--unit",
               "tokens/s").code == 0  # fmt: skip
    again = cli("experiment", case, "--change", THREADS, "--reported", "5.1:9.8", "--unit", unit)
    assert again.code != 0 and "experiment x1 already records this A/B" in again.err
    # another unit is another measure
    assert cli("experiment", case, "--change", THREADS, "--reported", "5.1:9.8", "--unit",
               "img/s").code == 0  # fmt: skip


def test_the_hypotheses_named_in_another_order_are_the_same_ab(cli: CLI, case: str) -> None:
    said = ("experiment", case, "--change", "pinned the loader to socket 0", "--outcome", "fixed")
    assert cli(*said, "--tests", "host-cpu,numa-bios").code == 0
    again = cli(*said, "--tests", "numa-bios,host-cpu")
    assert again.code != 0 and "already records this A/B" in again.err
    assert cli(*said, "--tests", "numa-bios").code == 0
