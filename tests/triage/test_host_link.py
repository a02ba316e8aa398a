"""A host-to-device copy test against the GPU's PCIe link, read by gpu-throughput@3's
``h2d-link-rate``.

bandwidthTest and nvbandwidth print what the copies reached, never the link: 3.97 GB/s is a
fault on a P100 (Gen3 x16, 15.75 GB/s raw) and about all a Gen2 x8 link carries. The playbook's
``[[host_link]]`` table gives each GPU's link; the rule reads the slowest GPU's share of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.bandwidth import PROBE as CUDA_BANDWIDTH
from casefile_probes.nvbandwidth import PROBE as NVBANDWIDTH

from casefile.domain.beliefs.ranking import feeds
from casefile.domain.expected import CaseContext
from casefile.domain.facts import Fact
from casefile.domain.host_link import H2D_SHARE, HOST_LINK_RATE, host_link_facts, link_rate
from casefile.domain.playbook import load_playbook
from casefile.domain.rules import Applied, evaluate
from casefile.errors import RuleError
from tests.cli.conftest import CLI
from tests.triage.test_experiments import log

TABLE = PLAYBOOK_V3.host_links
RULE = next(r for r in PLAYBOOK_V3.rules if r.id == "h2d-link-rate")
GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.mark.parametrize(
    ("name", "rate"),
    [
        ("Tesla P100-PCIE-16GB", 15.75),
        ("Tesla V100-SXM2-16GB", 15.75),  # an SXM part reaches its host over PCIe too
        ("Tesla T4", 15.75),
        ("NVIDIA A100-SXM4-80GB", 31.51),
        ("NVIDIA A10", 31.51),  # not an A100's kin
        ("NVIDIA L4", 31.51),
        ("NVIDIA GeForce RTX 4090", 31.51),
        ("NVIDIA GeForce RTX 4060 Ti", 15.75),  # x8
        ("NVIDIA GeForce RTX 3050", 15.75),  # x8
        ("NVIDIA GeForce RTX 5090", 63.02),
        ("NVIDIA GeForce RTX 5060", 31.51),  # Gen5 x8
        ("NVIDIA H100 80GB HBM3", 63.02),
        ("NVIDIA GeForce GTX 1630", None),  # its lanes are listed as x16 and as x8
        ("NVIDIA RTX A1000", 15.75),  # Gen4 x8, not an A100's kin
        ("Intel(R) Arc(TM) Pro A40/A50", None),  # not an NVIDIA A40
        ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 63.02),  # a desktop card
        ("NVIDIA GeForce GTX 980M", None),  # a laptop part without "Laptop" in its name
        ("NVIDIA GeForce RTX 2050", None),  # laptop only
        ("NVIDIA RTX 2000E Ada Generation", 15.75),
        ("Tesla K10", 15.75),  # Gen3, unlike the K20
        ("Tesla M2090", 8.0),  # Fermi: Gen2
        ("Tesla K20Xm", 8.0),  # Kepler's first Teslas: Gen2
        ("Tesla K80", 15.75),
        ("NVIDIA RTX 2000 Ada Generation", 15.75),  # Gen4 x8
        ("NVIDIA RTX 6000 Ada Generation", 31.51),
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 63.02),
        ("NVIDIA RTX PRO 2000 Blackwell", 31.51),  # Gen5 x8
        ("NVIDIA GeForce RTX 3060 Laptop GPU", None),  # the maker chose its lanes
        ("NVIDIA GH200 480GB", None),  # NVLink-C2C to the CPU
        ("NVIDIA GB10", None),  # one memory with the CPU
        ("Orin (nvgpu)", None),
        ("AMD Instinct MI300X", None),  # no row: no figure
    ],
)
def test_each_gpu_finds_its_own_link(name: str, rate: float | None) -> None:
    found = link_rate(TABLE, [name])
    assert (None if found is None else round(found, 2)) == rate


def test_gpus_of_different_links_give_no_figure() -> None:
    assert link_rate(TABLE, ["NVIDIA GeForce RTX 4090", "Tesla P100-PCIE-16GB"]) is None
    assert link_rate(TABLE, ["NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000"]) is not None


def copies(
    *values: tuple[str, str, float], name: str | None = "Tesla P100-PCIE-16GB"
) -> list[Fact]:
    facts = [Fact(fact, value, subject, "GB/s") for fact, subject, value in values]
    return facts + ([Fact("name", name, "gpu0")] if name else [])


def shares(facts: list[Fact], context: CaseContext | None = None) -> dict[str, object]:
    derived = host_link_facts(TABLE, facts, lambda: context or CaseContext())
    return {f.name: f.value for f in derived}


def test_the_share_is_the_best_copy_over_the_links_raw_rate() -> None:
    # gearshifft#82: a P100 fed from the other socket's memory, then from its own
    remote = copies(("bandwidth.h2d", "size=33554432", 3.9672), ("bandwidth.h2d", "gpu0", 3.9672))
    assert shares(remote) == {H2D_SHARE: 0.2518, HOST_LINK_RATE: 15.7538}
    local = copies(("bandwidth.h2d", "gpu0", 12.7409))
    assert shares(local)[H2D_SHARE] == 0.8087


def test_the_slowest_gpu_counts_and_pageable_copies_do_not() -> None:
    four = copies(
        *(
            (("nvbandwidth.host_to_device_memcpy_ce", f"gpu{i}", v))
            for i, v in enumerate((25.5, 24.3, 6.1, 26.3))
        ),
        name="NVIDIA GeForce RTX 4090",
    )
    assert shares(four)[H2D_SHARE] == round(6.1 / 31.507696, 4)  # one card in an x4 slot
    pageable = copies(("bandwidth.h2d.pageable", "gpu0", 3.0))
    assert shares(pageable) == {}  # half a healthy link's rate: says nothing of the link


def test_of_two_runs_of_one_gpu_the_slow_one_is_the_finding() -> None:
    """gearshifft#82's paste: bandwidthTest under numactl on the P100's own socket, then on
    the other (tests/golden/bandwidth/issues/001)."""
    facts = golden_facts(GOLDEN / "bandwidth" / "issues" / "001.json")
    runs = sorted(f.value for f in facts if f.name == "bandwidth.h2d" and f.subject == "gpu0")
    assert len(runs) == 2  # type: ignore[arg-type]
    assert outcome(facts) == "far-below"


def test_a_run_of_small_transfers_is_no_reading() -> None:
    """A range ending at 100 KB measures each copy's fixed cost as much as the link."""
    small = copies(
        ("bandwidth.h2d", "size=1024", 0.4),
        ("bandwidth.h2d", "size=102400", 9.8),
        ("bandwidth.h2d", "gpu0", 9.8),
        name="NVIDIA GeForce RTX 4090",
    )
    assert shares(small) == {}
    large = [*small, Fact("bandwidth.h2d", 25.1, "size=33554432", "GB/s")]
    large = [f for f in large if f.name != "bandwidth.h2d" or f.subject != "gpu0"]
    large.append(Fact("bandwidth.h2d", 25.1, "gpu0", "GB/s"))
    assert shares(large)[H2D_SHARE] == round(25.1 / 31.507696, 4)


def test_a_quick_run_beside_a_range_run_is_read_by_its_large_transfers() -> None:
    both = [
        Fact("bandwidth.h2d", 25.1, "size=33554432", "GB/s"),
        Fact("bandwidth.h2d", 9.0, "size=102400", "GB/s"),
        Fact("bandwidth.h2d", 1.1, "size=1024", "GB/s"),
        Fact("bandwidth.h2d", 25.1, "gpu0", "GB/s"),
        Fact("bandwidth.h2d", 9.0, "gpu0", "GB/s"),
        Fact("name", "NVIDIA GeForce RTX 4090", "gpu0"),
    ]
    assert shares(both)[H2D_SHARE] == round(25.1 / 31.507696, 4)


def test_each_gpu_is_judged_by_its_own_link() -> None:
    """A Quadro K2200 (no row) beside an RTX 4090: the 4090 alone is read, by its own link."""
    mixed = [
        Fact("nvbandwidth.host_to_device_memcpy_ce", 6.2, "gpu0", "GB/s"),
        Fact("nvbandwidth.host_to_device_memcpy_ce", 25.3, "gpu1", "GB/s"),
        Fact("name", "Quadro K2200", "gpu0"),
        Fact("name", "NVIDIA GeForce RTX 4090", "gpu1"),
    ]
    assert shares(mixed)[H2D_SHARE] == round(25.3 / 31.507696, 4)


def test_a_stated_rate_is_read_in_its_unit() -> None:
    stated = [Fact("bandwidth.h2d", 3783.4, "host", "MB/s")]
    assert shares(stated, CaseContext(gpus=("1x Tesla P100-PCIE-16GB",)))[H2D_SHARE] == 0.2518


def test_a_total_over_several_gpus_is_no_reading() -> None:
    """bandwidthTest --device=all adds the GPUs' rates up: four links at 6 GB/s read 24."""
    total = [
        Fact("bandwidth.h2d", 24.0, "host", "GB/s"),
        *(Fact("name", "NVIDIA A100-SXM4-40GB", f"gpu{i}") for i in range(4)),
    ]
    assert shares(total) == {}
    one = [
        Fact("bandwidth.h2d", 6.0, "host", "GB/s"),
        Fact("name", "NVIDIA A100-SXM4-40GB", "gpu0"),
    ]
    assert shares(one)[H2D_SHARE] == round(6.0 / 31.507696, 4)  # one GPU: its own link


def test_the_case_names_the_gpu_only_where_the_run_does_not() -> None:
    asked: list[int] = []

    def context() -> CaseContext:
        asked.append(1)
        return CaseContext(gpus=("1x Tesla V100",))

    named = copies(("bandwidth.h2d", "gpu0", 24.0), name="NVIDIA A100-SXM4-80GB")
    assert (
        dict((f.name, f.value) for f in host_link_facts(TABLE, named, context))[HOST_LINK_RATE]
        == 31.5077
    )
    unnamed = copies(("bandwidth.h2d", "gpu0", 12.0), name=None)
    assert (
        dict((f.name, f.value) for f in host_link_facts(TABLE, unnamed, context))[HOST_LINK_RATE]
        == 15.7538
    )
    assert host_link_facts(TABLE, [Fact("name", "Tesla V100", "gpu0")], context) == []
    assert asked == [1]  # only for a run with copies that names no GPU


@pytest.mark.parametrize(
    "facts",
    [
        # GB300's NVLink-C2C: 359 GB/s, past any PCIe link (corpus/bandwidth/001)
        [Fact("nvbandwidth.host_to_device_memcpy_ce", 359.05, "gpu0", "GB/s")],
        # a Gen4 figure on a GPU the table calls Gen3: the row is wrong for it
        copies(("bandwidth.h2d", "gpu0", 24.0)),
    ],
)
def test_a_copy_past_the_link_is_no_reading(facts: list[Fact]) -> None:
    assert shares(facts, CaseContext(gpus=("1x Tesla V100",))) == {}


def outcome(facts: list[Fact]) -> str | None:
    verdict = evaluate(RULE, [*facts, *PLAYBOOK_V3.context_facts(facts)], "idle")
    return verdict.outcome if isinstance(verdict, Applied) else None


def golden_facts(path: Path) -> list[Fact]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Fact(f["name"], f["value"], f["subject"], f.get("unit")) for f in data["facts"]]


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        ("bandwidth/003.json", "below"),  # A100 SXM4 at 12.3 GB/s: Gen3's rate on a Gen4 part
        ("bandwidth/007.json", "at-rate"),  # DGX A100: 25.7 GB/s
        ("bandwidth/008.json", "below"),  # A100 PCIe at 17.3 GB/s
        ("nvbandwidth/003.json", "at-rate"),  # four RTX 4090s at 24-26 GB/s
        ("nvbandwidth/009.json", "at-rate"),  # four RTX 5090s at 56 GB/s of Gen5 x16
        ("bandwidth/001.json", None),  # device to device only: no host copy
    ],
)
def test_real_outputs_are_read_against_their_gpus_link(sample: str, expected: str | None) -> None:
    assert outcome(golden_facts(GOLDEN / sample)) == expected


def test_the_copy_tests_are_known_to_feed_the_rule() -> None:
    assert feeds(RULE, CUDA_BANDWIDTH.facts)
    assert feeds(RULE, NVBANDWIDTH.facts)
    assert not feeds(RULE, ("bandwidth.d2d",))


def test_the_rule_condemns_the_link_far_below_and_clears_it_at_its_rate() -> None:
    assert RULE.row("link-degraded")["far-below"] >= 10 * RULE.otherwise["far-below"]
    assert RULE.row("numa-bios")["far-below"] >= 5 * RULE.otherwise["far-below"]
    assert RULE.row("link-degraded")["at-rate"] * 4 < RULE.otherwise["at-rate"]


def test_host_link_rows_are_checked_when_the_playbook_loads() -> None:
    head = '[playbook]\nid = "p"\n[question]\nid = "q"\ntext = "?"\ncatch_all = 0.1\n'
    hypothesis = '[[hypothesis]]\nid = "h"\ntext = "h"\nprior = 0.9\n'
    for row, message in (
        ('gpu = "X"\ngeneration = 7\nsource = "s"', "generation"),
        ('gpu = "X"\ngeneration = 4\nwidth = 12\nsource = "s"', "width"),
        ('gpu = "("\ngeneration = 3\nsource = "s"', "not a pattern"),
        ('gpu = "X"\ngeneration = 3', "source"),
    ):
        with pytest.raises(RuleError, match=message):
            load_playbook(f"{head}{hypothesis}[[host_link]]\n{row}\n", "t.toml")


def test_a_stated_copy_rate_is_read_against_the_cases_gpu(cli: CLI) -> None:
    """gearshifft#82 as a person tells it: "bandwidthTest gives 3.97 GB/s host to device" on
    a P100, the GPU named only by the case."""
    opened = cli(
        "new", "slow copies", "--id", "h1", "--playbook", "gpu-throughput@3",
        "--env", "gpus=1x Tesla P100-PCIE-16GB",
    )  # fmt: skip
    assert opened.code == 0, opened.err
    result = cli("probe", "h1", "cuda-bandwidth", "--stated", "bandwidth.h2d=3.97")
    assert result.code == 0, result.err
    read = [
        (e["payload"]["rule"]["id"], e["payload"]["outcome"])
        for e in log(cli, "h1")
        if e["type"] == "evidence.assessed" and "intake" not in e["payload"]
    ]
    assert read == [("h2d-link-rate", "far-below")]


@pytest.mark.parametrize(
    ("gpus", "stated", "said"),
    [
        ((), "3.97", "h2d-link-rate also needs the GPU's name"),
        (("--env", "gpus=1x AMD Instinct MI250X"), "3.97", "fit no row of its host links"),
        (("--env", "gpus=1x Tesla P100-PCIE-16GB"), "3783.4", "is past the 15.75 GB/s raw rate"),
    ],
)
def test_a_copy_rate_the_rule_cannot_read_says_what_it_still_needs(
    cli: CLI, gpus: tuple[str, ...], stated: str, said: str
) -> None:
    opened = cli("new", "slow copies", "--id", "h2", "--playbook", "gpu-throughput@3", *gpus)
    assert opened.code == 0, opened.err
    result = cli("probe", "h2", "cuda-bandwidth", "--stated", f"bandwidth.h2d={stated}")
    assert result.code == 0, result.err
    assert said in result.out, result.out
