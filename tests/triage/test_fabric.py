"""An RDMA test between two nodes is read against the port rate the case states.

perftest (``ib_write_bw`` and its kin) splits a slow job across nodes into the network's part
and the collective library's: the link at its port's rate clears the fabric, far below it
condemns it. perftest prints no port rate, so the rate is the one the case states of its
network (``--env network=…``); without one the reading stays unread rather than guessed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casefile_probes.perftest import PROBE as PERFTEST

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.domain.expected import CaseContext
from casefile.domain.fabric import fabric_facts, stated_port_rates, still_needed
from casefile.domain.facts import Fact
from casefile.probes.runners.pasted import from_text
from casefile.store.memory import MemoryEventStore
from tests.cli.conftest import CLI, builtin_registry

TWO_NODES = {"gpus": "2 nodes x 8x H100 SXM", "network": "8x ConnectX-7 NDR 400 Gb/s per node"}


def perftest_paste(average_gbps: float, *, bidirectional: bool = False) -> str:
    """The client's side of a default ib_write_bw run with ``--report_gbits`` (the layout of
    tests/golden/perftest)."""
    title = "RDMA_Write Bidirectional BW Test" if bidirectional else "RDMA_Write BW Test"
    return (
        "---------------------------------------------------------------------------------------\n"
        f"                    {title}\n"
        " Dual-port       : OFF\t\tDevice         : mlx5_0\n"
        " Number of qps   : 1\t\tTransport type : IB\n"
        " Connection type : RC\t\tUsing SRQ      : OFF\n"
        " Mtu             : 4096[B]\n"
        " Link type       : IB\n"
        "---------------------------------------------------------------------------------------\n"
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        f" 65536      5000             {average_gbps + 1:.2f}             {average_gbps:.2f}"
        f"\t\t   {average_gbps * 1000 / (65536 * 8):.6f}\n"
        "---------------------------------------------------------------------------------------\n"
    )


@pytest.mark.parametrize(
    ("network", "rate"),
    [
        ("8x ConnectX-7 NDR 400 Gb/s per node", 400.0),
        ("NVLink-C2C between Grace and Hopper; 4x 200 Gb/s RDMA ports per node", 200.0),
        ("100GbE RoCE", 100.0),
        ("HDR100 InfiniBand", 100.0),
        ("4X HDR (200 Gb/s)", 200.0),
        ("EDR", 100.0),
        ("ConnectX-6 200Gbps", 200.0),
        ("NDR400", 400.0),  # the generation glued to its figure
        ("4xHDR", 200.0),
        ("8xNDR", 400.0),
        ("ndr 400", 400.0),
        ("100gbps", 100.0),
        ("100-Gbps", 100.0),
        ("NVLink 900GB/s; IB 200", 200.0),  # bytes are NVLink's; a bare figure after IB
        ("QDR 40 Gb/s", 32.0),  # the rate QDR's data moves at (8b/10b), as one rate
        ("IB HDR 100", 100.0),  # the width-reduced port, written apart
        ("NDR-200", 200.0),
        ("EFA 3,200 Gbps", None),  # an instance's total, not a port
        ("p4d 400 Gbps EFA", None),
        ("400 Gb/s per node", None),
        ("8x 400G per node", 400.0),  # a count of ports before it: each port's
        ("FDR", 54.5),
        ("ConnectX-7", None),
        ("PCIe Gen4 x16", None),
        ("2x 100G + 25G management", None),  # two rates: no guess between them
        ("25/100GbE", None),
        ("NVLink 900 GB/s", None),  # bytes: NVLink's, no port rate
        ("InfiniBand", None),
        ("1GbE management, 100 Gbps IB", None),
    ],
)
def test_the_port_rate_is_read_from_what_the_case_says_of_its_network(
    network: str, rate: float | None
) -> None:
    rates = stated_port_rates({"network": network})
    assert (rates[0] if len(rates) == 1 else None) == rate


def test_the_rate_is_read_under_any_network_key_but_not_from_the_gpus() -> None:
    assert stated_port_rates({"Interconnect": "HDR 200"}) == (200.0,)
    assert stated_port_rates({"NIC": "ConnectX-7 400G"}) == (400.0,)
    assert stated_port_rates({"roce": "100G"}) == (100.0,)
    assert stated_port_rates({"gpus": "8x A100 80G"}) == ()


def port(measured: float, *, gpu: bool | None = None, rate: float | None = None) -> list[Fact]:
    facts = [Fact("perftest.bw.port", measured, "host", "Gb/s")]
    if gpu is not None:
        facts.append(Fact("perftest.gpu_memory", gpu, "host"))
    if rate is not None:
        facts.append(Fact("perftest.port_rate", rate, "host", "Gb/s"))
    return facts


def test_the_share_is_one_port_one_way_over_the_stated_rate() -> None:
    hdr = CaseContext(port_rates=(200.0,))
    assert fabric_facts(port(190.0), lambda: hdr) == [Fact("rdma.bw.share", 0.95, "host")]
    assert fabric_facts(port(190.0), lambda: CaseContext()) == []  # no rate stated
    assert fabric_facts(port(190.0), lambda: CaseContext(port_rates=(100.0, 25.0))) == []
    assert fabric_facts([], lambda: hdr) == []


def test_a_gpu_memory_run_gives_its_own_share() -> None:
    share = fabric_facts(port(140.95, gpu=True), lambda: CaseContext(port_rates=(400.0,)))
    assert share == [Fact("rdma.gpu_bw.share", 0.3524, "host")]


def test_a_run_past_the_stated_rate_is_some_other_ports() -> None:
    assert fabric_facts(port(381.0), lambda: CaseContext(port_rates=(200.0,))) == []


def test_a_figure_stated_in_bytes_is_converted() -> None:
    facts = [Fact("perftest.bw.port", 12.0, "host", "GB/s")]
    share = fabric_facts(facts, lambda: CaseContext(port_rates=(100.0,)))
    assert share == [Fact("rdma.bw.share", 0.96, "host")]
    unknown = [Fact("perftest.bw.port", 12.0, "host", "furlongs")]
    assert fabric_facts(unknown, lambda: CaseContext(port_rates=(100.0,))) == []


def test_a_rate_stated_in_words_is_read() -> None:
    facts = [*port(96.0), Fact("perftest.port_rate", "HDR", "host")]
    assert fabric_facts(facts, lambda: CaseContext()) == [Fact("rdma.bw.share", 0.48, "host")]


@pytest.mark.parametrize(
    ("facts", "rates", "needs"),
    [
        (port(96.0), (), "the ports' rate in Gb/s"),
        (port(96.0), (100.0, 25.0), "one port rate: the case's network names several (100, 25"),
        (port(381.0), (200.0,), "a port rate the run fits under: it carried 381 Gb/s"),
    ],
)
def test_what_a_run_still_needs_says_why(
    facts: list[Fact], rates: tuple[float, ...], needs: str
) -> None:
    said = still_needed(("rdma.bw.share",), facts, lambda: CaseContext(port_rates=rates))
    assert said is not None and said.startswith(needs)
    assert "gpu_memory" not in said
    gpu = still_needed(("rdma.gpu_bw.share",), port(96.0, gpu=True), lambda: CaseContext())
    assert gpu is not None and "perftest.gpu_memory=true" in gpu
    assert still_needed(("rdma.gpu_bw.share",), facts, lambda: CaseContext()) is None


def test_a_run_stated_with_its_rate_carries_its_own() -> None:
    unasked = fabric_facts(port(96.0, rate=200.0), lambda: pytest.fail("the case was asked"))
    assert unasked == [Fact("rdma.bw.share", 0.48, "host")]


def readings(environment: dict[str, str], paste: str) -> dict[str | None, str | None]:
    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case(
            "slow", environment=environment, playbook="gpu-throughput@3", who=Who("t")
        )
        run = from_text(("pasted",), paste, host="node1", taken_at="2026-01-01T00:00:00Z")
        service.probing.record_probe(case, PERFTEST, run)
        projection = service.reader.projection(case)
        return {
            (e.rule or {}).get("id"): e.outcome for e in projection.evidence.values() if e.active
        }


@pytest.mark.parametrize(
    ("average", "bidirectional", "outcome"),
    [
        (392.0, False, "line-rate"),
        (300.0, False, "short"),
        (180.0, False, "slow"),  # under half of a 400 Gb/s port
        (600.0, True, "short"),  # both directions summed: 300 each way
    ],
)
def test_a_run_is_read_against_the_stated_rate(
    average: float, bidirectional: bool, outcome: str
) -> None:
    found = readings(TWO_NODES, perftest_paste(average, bidirectional=bidirectional))
    assert found.get("rdma-rate") == outcome


def test_without_a_stated_rate_the_run_is_kept_and_not_read() -> None:
    found = readings({"gpus": "2 nodes x 8x H100 SXM"}, perftest_paste(180.0))
    assert "rdma-rate" not in found


def test_a_gpu_memory_run_is_read_by_its_own_rule() -> None:
    paste = "initializing CUDA\nallocated GPU buffer address at 0x7f\n" + perftest_paste(140.0)
    found = readings(TWO_NODES, paste)
    assert found.get("rdma-gpu-rate") == "slow" and "rdma-rate" not in found


#: a case across nodes on the current playbook, its network's rate unsaid
OPEN = ("--playbook", "gpu-throughput@3", "--env", "gpus=2 nodes x 8x H100 SXM")


def test_the_probe_command_says_what_a_run_without_a_rate_still_needs(
    cli: CLI, tmp_path: Path
) -> None:
    assert cli("new", "slow", "--id", "n1", *OPEN).code == 0
    paste = tmp_path / "out.txt"
    paste.write_text(perftest_paste(180.0))
    result = cli("probe", "n1", "perftest", "--paste", str(paste))
    assert result.code == 0, result.err
    assert "rdma-rate also needs the ports' rate" in result.out
    assert "rdma-gpu-rate" not in result.out  # a run from host memory


def test_a_case_on_one_node_is_asked_no_port_rate(cli: CLI, tmp_path: Path) -> None:
    one_node = ("--playbook", "gpu-throughput@3", "--env", "gpus=8x H100 SXM (one node)")
    assert cli("new", "slow", "--id", "s1", *one_node).code == 0
    paste = tmp_path / "out.txt"
    paste.write_text(perftest_paste(180.0))
    result = cli("probe", "s1", "perftest", "--paste", str(paste))
    assert result.code == 0 and "also needs" not in result.out, result.out


def test_a_statement_without_a_rate_says_what_it_still_needs(cli: CLI) -> None:
    assert cli("new", "slow", "--id", "n3", *OPEN).code == 0
    result = cli("probe", "n3", "perftest", "--stated", "perftest.bw.port=96")
    assert result.code == 0, result.err
    assert "rdma-rate also needs the ports' rate" in result.out


def test_a_run_stated_with_its_rate_is_read_as_reported(cli: CLI) -> None:
    assert cli("new", "slow", "--id", "n2", *OPEN).code == 0
    stated = ("--stated", "perftest.bw.port=96 Gb/s", "--stated", "perftest.port_rate=200")
    result = cli("probe", "n2", "perftest", *stated, "--json")
    assert result.code == 0, result.err
    evidence = [
        e for e in json.loads(cli("log", "n2", "--json").out) if e["type"] == "evidence.assessed"
    ]
    assert [(e["payload"]["rule"]["id"], e["payload"]["outcome"]) for e in evidence][-1] == (
        "rdma-rate",
        "slow",
    )


def test_perftest_is_ranked_on_one_kind_of_run_not_both() -> None:
    """A run is from host memory or from GPU memory, so it feeds rdma-rate or rdma-gpu-rate:
    the probe is worth the better of the two, never their joint information."""
    from casefile.domain.beliefs.arithmetic import mutual_information_bits
    from casefile.domain.beliefs.ranking import Belief, outcome_table, rank_probes

    with CaseService(MemoryEventStore(), builtin_registry()) as service:
        case = service.writer.new_case(
            "slow", environment=TWO_NODES, playbook="gpu-throughput@3", who=Who("t")
        )
        projection = service.reader.projection(case)
        offered = [c for c in service.reader.candidates(projection) if c.probe == "perftest"]
        assert {c.rule.id for c in offered} == {"rdma-rate", "rdma-gpu-rate"}
        (step,) = [s for s in rank_probes(projection, offered) if s.probe == "perftest"]
        belief = Belief.of(projection.questions["throughput"])
        alone = [
            mutual_information_bits(
                belief.probs, outcome_table(belief.structure, belief.keys, c.rule)
            )
            for c in offered
        ]
    # scored on one kind of run, which the step names (the kind that tells most here)
    assert len(step.rules) == 1 and step.rules[0] in {"rdma-rate", "rdma-gpu-rate"}
    scored = [c.rule.id for c in offered].index(step.rules[0])
    assert step.expected_gain_bits == pytest.approx(alone[scored])
    assert step.expected_gain_bits < 0.99 * joint(belief, offered)


def joint(belief: object, offered: list[object]) -> float:
    """Both rules' joint information, as if one run fed them both."""
    from casefile.domain.beliefs.ranking import Belief, joint_information_bits, outcome_table

    assert isinstance(belief, Belief)
    tables = [
        outcome_table(belief.structure, belief.keys, c.rule)  # type: ignore[attr-defined]
        for c in offered
    ]
    return joint_information_bits(belief.probs, tables)


def test_one_run_feeds_every_plain_rule_and_one_of_each_exclusive_kind() -> None:
    from casefile.domain.beliefs.ranking import Candidate, one_run
    from casefile.domain.rule_loading import rule_from_dict

    def rule(rid: str, exclusive: str | None = None) -> Candidate:
        table = {
            "id": rid, "version": 1, "rationale": "why", "probes": ["p"],
            "statistic": {"aggregate": "max", "fact": "f"},
            "outcomes": [{"name": "hi", "at_least": 1}, {"name": "lo"}],
            "likelihoods": {"otherwise": {"hi": 0.5, "lo": 0.5}},
        }  # fmt: skip
        if exclusive:
            table["exclusive"] = exclusive
        return Candidate("p", rule_from_dict(table, "q"))

    members = [rule("a"), rule("b", "x"), rule("c", "x"), rule("d", "y"), rule("e", "y")]
    runs = [[c.rule.id for c in run] for run in one_run(members)]
    assert runs == [["a", "b", "d"], ["a", "b", "e"], ["a", "c", "d"], ["a", "c", "e"]]
    assert [[c.rule.id for c in run] for run in one_run(members[:1])] == [["a"]]


@pytest.mark.parametrize(
    ("exclusive", "message"),
    [
        ({"rdma-rate": "only-one"}, "exclusive 'only-one' must name two rules or more"),
        ({"rdma-rate": 3}, "'exclusive' must be a name"),
        # two rules of no common probe: one run of a probe never feeds both anyway
        ({"rdma-rate": "apart", "sm-busy": "apart"}, "exclusive 'apart' must name two rules"),
    ],
)
def test_an_exclusive_name_that_excludes_nothing_is_refused(
    exclusive: dict[str, object], message: str
) -> None:
    import tomllib

    from casefile.domain.playbook import playbook_from_dict
    from casefile.errors import RuleError

    source = Path(__file__).parents[2] / "plugins/casefile_gpu_playbook/gpu_throughput_v3.toml"
    data = tomllib.loads(source.read_text(encoding="utf-8"))
    for rule in data["rule"]:
        rule.pop("exclusive", None)
        if rule["id"] in exclusive:
            rule["exclusive"] = exclusive[rule["id"]]
    with pytest.raises(RuleError, match=message):
        playbook_from_dict(data, "v3")


def test_playbook_show_says_one_run_feeds_one_of_the_two(cli: CLI) -> None:
    out = cli("playbook", "show", "gpu-throughput@3").out
    block = out[out.index("  rdma-rate (v1): ") :].split("\n")[:7]
    assert "    one run feeds this or rdma-gpu-rate, not both" in block
    data = json.loads(cli("playbook", "show", "gpu-throughput@3", "--json").out)
    (rule,) = [r for r in data["rules"] if r["id"] == "rdma-gpu-rate"]
    assert rule["excludes"] == ["rdma-rate"]
