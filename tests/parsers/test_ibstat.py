"""The ``ibstat`` probe: its golden results over real ibstat, ibv_devinfo and ibstatus outputs
(``tests/golden/ibstat/``, sources in its ``SOURCES``), its ``recognises`` guess, and the cases
the samples do not hold: quoting, garbage, control characters, a port computed from
ibv_devinfo -v's width and speed.

    .venv/bin/python tests/parsers/test_ibstat.py      # rewrite the goldens from the code

Regenerating is the easy half: read every changed file against its sample before keeping it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pytest
from casefile_probes.ibstat import LANE_GBPS, PROBE, looks_like_ibstat, parse_ibstat

from casefile.plugins import Registry
from tests.parsers.corpus import (
    Parser,
    assert_matches_golden,
    check_probe_declarations,
    check_recognises_no_other,
    check_result,
    check_sources_and_goldens,
    golden_cases,
    read_sample,
    regenerate,
)

IBSTAT: dict[str, Parser] = {"ibstat": parse_ibstat}
CASES = golden_cases(IBSTAT)

IBSTAT_TEXT = """\
CA 'mlx5_0'
\tCA type: MT4129
\tNumber of ports: 1
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 400
\t\tLink layer: InfiniBand
CA 'mlx5_1'
\tCA type: MT4129
\tNumber of ports: 1
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 200
\t\tLink layer: InfiniBand
CA 'mlx5_2'
\tPort 1:
\t\tState: Down
\t\tPhysical state: Polling
\t\tRate: 10
\t\tLink layer: InfiniBand
"""

DEVINFO_V = """\
hca_id:\tmlx5_0
\ttransport:\t\t\tInfiniBand (0)
\tphys_port_cnt:\t\t\t1
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tlink_layer:\t\tInfiniBand
\t\t\tactive_width:\t\t4X (2)
\t\t\tactive_speed:\t\t50.0 Gbps (64)
\t\t\tphys_state:\t\tLINK_UP (5)
hca_id:\tmlx5_1
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tlink_layer:\t\tEthernet
\t\t\tactive_width:\t\t2X (16)
\t\t\tactive_speed:\t\t50.0 Gbps (64)
\t\t\tphys_state:\t\tLINK_UP (5)
hca_id:\tmlx5_2
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tactive_width:\t\t4X (2)
\t\t\tactive_speed:\t\tNDR (128)
\t\t\tphys_state:\t\tLINK_UP (5)
"""


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_ibstat_fixture_matches_golden(folder: str, path: Path) -> None:
    assert_matches_golden(folder, path, IBSTAT[folder])


def test_every_ibstat_fixture_has_a_source_and_a_golden() -> None:
    check_sources_and_goldens("ibstat", least=8)


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_every_ibstat_fixture_parses_to_facts(folder: str, path: Path) -> None:
    result = parse_ibstat(read_sample(path))
    check_result(result)
    assert result.parsed and result.facts, result.problems


@pytest.mark.parametrize(("folder", "path"), CASES)
def test_recognises_its_own_samples(folder: str, path: Path) -> None:
    assert looks_like_ibstat(read_sample(path))


def test_recognises_no_other_tools_output() -> None:
    check_recognises_no_other("ibstat", looks_like_ibstat, least=100)


def test_the_probe_declares_its_recogniser_and_every_fact_it_gives() -> None:
    check_probe_declarations(PROBE, looks_like_ibstat)


def test_the_probe_is_registered_instant_and_offered() -> None:
    probes = Registry.discover().all_probes()
    assert probes["ibstat"].parse is PROBE.parse
    assert PROBE.argv == ("ibstat",)
    assert PROBE.cost == "instant" and not PROBE.needs_load and PROBE.offered


def test_ibstat_ports_state_rate_and_counts() -> None:
    result = parse_ibstat(IBSTAT_TEXT)
    assert result.values("ib.state") == {
        "mlx5_0/1": "Active",
        "mlx5_1/1": "Active",
        "mlx5_2/1": "Down",
    }
    assert result.values("ib.physical_state")["mlx5_2/1"] == "Polling"
    # the polling port's "Rate: 10" is what it would start at, not a reading
    assert result.values("ib.rate") == {"mlx5_0/1": 400.0, "mlx5_1/1": 200.0}
    assert result.values("ib.ports") == {"host": 3}
    assert result.values("ib.ports_active") == {"host": 2}
    assert not result.problems


def test_ibv_devinfo_v_rate_is_lanes_times_lane_speed() -> None:
    result = parse_ibstat(DEVINFO_V)
    assert result.values("ib.rate") == {"mlx5_0/1": 200.0, "mlx5_1/1": 100.0, "mlx5_2/1": 400.0}
    assert result.values("ib.physical_state")["mlx5_0/1"] == "LinkUp"
    assert result.values("ib.state")["mlx5_1/1"] == "Active"
    assert result.values("ib.link_layer") == {"mlx5_0/1": "InfiniBand", "mlx5_1/1": "Ethernet"}
    assert all(fact.unit == "Gb/s" for fact in result.facts if fact.name == "ib.rate")


def test_the_lane_table_gives_ibstat_rates_at_4x() -> None:
    """4X of each speed is the Rate ibstat prints for it, so both tools' rates compare."""
    assert {name: 4 * gbps for name, (gbps, _) in LANE_GBPS.items()} == {
        "SDR": 10.0,
        "DDR": 20.0,
        "QDR": 40.0,
        "FDR10": 40.0,
        "FDR": 56.0,
        "EDR": 100.0,
        "HDR": 200.0,
        "NDR": 400.0,
        "XDR": 800.0,
    }


def test_a_down_port_with_its_link_up_keeps_its_rate() -> None:
    """No subnet manager: the link trained (LinkUp) but the port stays Down; its rate is real."""
    text = "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: LinkUp\n\t\tRate: 100\n"
    result = parse_ibstat(text)
    assert result.values("ib.state") == {"mlx5_0/1": "Down"}
    assert result.values("ib.rate") == {"mlx5_0/1": 100.0}
    assert result.values("ib.ports_active") == {"host": 0}


def test_ibv_devinfo_states_are_ibstat_words() -> None:
    text = (
        "hca_id: mlx5_0\n  port: 1\n    state: PORT_INIT (2)\n    phys_state: POLLING (2)\n"
        "  port: 2\n    state: PORT_ARMED (3)\n"
        "    phys_state: PORT_CONFIGURATION TRAINNING (4)\n"
    )
    result = parse_ibstat(text)
    assert result.values("ib.state") == {"mlx5_0/1": "Initializing", "mlx5_0/2": "Armed"}
    assert result.values("ib.physical_state") == {
        "mlx5_0/1": "Polling",
        "mlx5_0/2": "PortConfigurationTraining",
    }


@pytest.mark.parametrize("text", [IBSTAT_TEXT, DEVINFO_V])
def test_a_quoted_or_indented_paste_reads_like_the_plain_one(text: str) -> None:
    plain = parse_ibstat(text).facts
    quoted = "\n".join(f"> {line}" for line in text.splitlines())
    indented = "\n".join(f"    {line}" for line in text.splitlines())
    crlf = text.replace("\n", "\r\n")
    fenced = f"```\n$ ibstat\n{text}```\n"
    for variant in (quoted, indented, crlf, fenced):
        assert parse_ibstat(variant).facts == plain


def test_garbage_gives_one_line_problem_and_no_facts() -> None:
    for text in ("", "hello world\n", "x" * 10_000, "\x00" * 50):
        result = parse_ibstat(text)
        check_result(result)
        assert not result.parsed and not result.facts
        assert len(result.problems) == 1 and "\n" not in result.problems[0]


def test_port_lines_without_a_device_say_so() -> None:
    result = parse_ibstat("        state:    PORT_ACTIVE (4)\n        link_layer:   InfiniBand\n")
    assert not result.parsed and not result.facts
    assert result.problems == [
        "no port of ibstat (CA '…', Port N:), ibv_devinfo (hca_id:, port:) or ibstatus "
        "(Infiniband device '…' port N status:): is this InfiniBand port output?"
    ]


def test_control_characters_are_harmless() -> None:
    coloured = IBSTAT_TEXT.replace("Active", "\x1b[32mActive\x1b[0m").replace("\t", "\t\x07")
    assert parse_ibstat(coloured).facts == parse_ibstat(IBSTAT_TEXT).facts
    for text in ("\x1b[" * 500, "CA '\x00'\nPort 1:\nState: \x01\n", "\ufeffCA 'a'\n\x0c"):
        check_result(parse_ibstat(text))
        assert looks_like_ibstat(text) in (True, False)


def test_a_port_listed_twice_keeps_each_listing_with_a_problem() -> None:
    """Two nodes pasted together: the second listing is its own port, so a port polling on
    one node is not hidden by the other's (it had kept only the last listing)."""
    text = IBSTAT_TEXT + "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n"
    result = parse_ibstat(text)
    states = result.values("ib.state")
    assert states["mlx5_0/1 (listing 2)"] == "Down"
    assert states["mlx5_0/1"] != "Down"
    assert result.problems == [
        "mlx5_0/1 is listed 2 times (several nodes in one paste?): each listing is read as its "
        "own port"
    ]


def test_non_text_is_unparsed() -> None:
    assert not parse_ibstat(None).parsed  # type: ignore[arg-type]
    assert looks_like_ibstat(None) is False  # type: ignore[arg-type]


def test_other_text_is_not_taken_for_ibstat() -> None:
    for text in (
        "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB eth0",
        "LinkState:.......................Active\nPhysLinkState:...................LinkUp\n",
        "state: running\nrate: 12 it/s\n",
    ):
        assert not looks_like_ibstat(text)


if __name__ == "__main__":
    regenerate(IBSTAT)
