"""Stated readings: the facts a person tells, typed as a parser would give them, and the
statements refused before anything is recorded."""

from __future__ import annotations

import pytest

from casefile.domain.facts import Fact
from casefile.domain.stated import check_statement, read_statement, stated_fact, statement
from casefile.errors import DomainError


@pytest.mark.parametrize(
    ("key", "value", "fact"),
    [
        ("pcie.link.gen.current[e3:00.0]", "2", Fact("pcie.link.gen.current", 2, "e3:00.0")),
        ("pcie.link.width.current", " 8 ", Fact("pcie.link.width.current", 8, "host")),
        ("throughput", "231 GB/s", Fact("throughput", 231, "host", "GB/s")),
        ("throughput[gpu0]", "2.5GB/s", Fact("throughput", 2.5, "gpu0", "GB/s")),
        ("clocks_event_reasons.sw_thermal", "Yes", Fact("clocks_event_reasons.sw_thermal", True)),
        ("pcie.link.downgraded[gpu1]", "false", Fact("pcie.link.downgraded", False, "gpu1")),
        ("name[gpu0]", "NVIDIA RTX PRO 6000", Fact("name", "NVIDIA RTX PRO 6000", "gpu0")),
        ("ratio", "1e3", Fact("ratio", 1000.0)),
        ("ratio", "nan", Fact("ratio", "nan")),
    ],
)
def test_a_stated_value_is_typed_as_a_parser_would_give_it(
    key: str, value: str, fact: Fact
) -> None:
    got = stated_fact(key, value)
    assert got == fact and type(got.value) is type(fact.value)


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("", "2", "write NAME=VALUE"),
        ("pcie gen", "2", "write NAME=VALUE"),
        ("pcie.link.gen.current[gpu0", "2", "write NAME=VALUE"),
        ("pcie.link.gen.current", "  ", "the value is empty"),
        ("note", "a\x1b[31mred", "printable"),
        ("note", "x" * 201, "one short line"),
    ],
)
def test_a_statement_that_cannot_be_a_fact_is_refused_in_one_line(
    key: str, value: str, says: str
) -> None:
    with pytest.raises(DomainError, match=says) as refused:
        stated_fact(key, value)
    assert "\n" not in str(refused.value)


def test_the_stored_statement_reads_back_to_the_same_facts() -> None:
    given = [("pcie.link.gen.current[e3:00.0]", "2"), ("throughput", "8 GB/s")]
    text = statement(given)
    assert text == "pcie.link.gen.current[e3:00.0]=2\nthroughput=8 GB/s\n"
    read = read_statement(text)
    assert read.parsed and not read.problems
    assert read.facts == [stated_fact(k, v) for k, v in given]
    assert not read_statement("").parsed


def test_a_fact_the_probe_does_not_give_is_refused_naming_those_it_gives() -> None:
    declared = ("pcie.link.gen.*", "utilization.gpu")
    check_statement("nvidia-smi-q", declared, [("pcie.link.gen.max", "5")])
    with pytest.raises(DomainError, match=r"gives no fact 'pcie\.bw'.*utilization\.gpu"):
        check_statement("nvidia-smi-q", declared, [("pcie.bw", "5")])
    check_statement("third-party", (), [("anything", "1")])  # undeclared: any fact
    with pytest.raises(DomainError, match="twice"):
        check_statement("p", (), [("a[gpu0]", "1"), ("a[ gpu0 ]", "2")])
    with pytest.raises(DomainError, match="at least one"):
        check_statement("p", (), [])


def test_a_fraction_stated_as_anything_but_a_number_from_0_to_1_is_refused() -> None:
    """A probe's fractions (a share of time, 0 to 1) are compared with bands such as 0.4 and
    0.75: "32 %" or 32 read as they are would pass every band and read a GPU busy a third of
    the time as busy all of it. A share that is a ratio (dispatch time over GPU time, above 1
    on a host-paced step) is not a fraction, and is taken as stated."""
    declared = ("gpu.busy_share", "app.dispatch_share")
    fractions = ("gpu.busy_share",)
    for good in ("0.32", "0", "1", "1.0", " 0.936 "):
        check_statement("nsys-stats", declared, [("gpu.busy_share", good)], fractions)
    for bad in ("32 %", "32%", "32", "1.2", "-0.1", "0.3 s", "about 0.3", "true"):
        with pytest.raises(DomainError, match=r"a fraction from 0 to 1.*0\.32") as refused:
            check_statement("nsys-stats", declared, [("gpu.busy_share", bad)], fractions)
        assert "\n" not in str(refused.value) and repr(bad.strip()) in str(refused.value)
    check_statement("app-log", declared, [("app.dispatch_share", "1.2")], fractions)
    # a fraction's subject is its own; the check reads the name
    check_statement("nsys-stats", declared, [("gpu.busy_share[gpu0]", "0.5")], fractions)


def test_a_percentage_stated_as_a_fraction_is_refused() -> None:
    """Utilisation is 0 to 100 as nvidia-smi prints it: "0.9" for 90 % read as a GPU idle
    below 1 %, and a rule counted a busy GPU as one the job does not use."""
    declared = ("utilization.gpu", "model.gpu_share")
    percentages = declared
    # with its sign, a fraction of a percent is one (an idle GPU's mean utilisation, 0.33 %)
    for good in ("90", "90 %", "0", "1", "100", "37.5", "0.33 %", "0.5%"):
        check_statement("nvidia-smi-q", declared, [("utilization.gpu", good)], (), percentages)
    for bad in ("0.9", "0.33", "140", "140 %", "-3", "90 W", "busy"):
        with pytest.raises(DomainError, match=r"a percentage from 0 to 100 \(write 90 for 90 %"):
            check_statement("nvidia-smi-q", declared, [("utilization.gpu", bad)], (), percentages)
    with pytest.raises(DomainError, match="a percentage"):
        check_statement("app-log", declared, [("model.gpu_share", "0.5")], (), percentages)
