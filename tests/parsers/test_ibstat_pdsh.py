"""ibstat, ibv_devinfo and ibstatus pasted through a parallel shell (pdsh, clush: every line
``node1: …``). No such paste was found in public threads, so the pastes here are the verbatim
samples of ``tests/golden/ibstat/`` (sources in its ``SOURCES``) prefixed inside the test as
pdsh prefixes them: ``host: `` before each line the node printed, an empty line printed as
``host: ``. Each case failed before the prefix was read."""

from __future__ import annotations

from pathlib import Path

import pytest
from casefile_probes._text import is_prompt_line
from casefile_probes.ibstat import looks_like_ibstat, parse_ibstat

from casefile.domain.facts import Fact, ParseResult
from tests.parsers.corpus import GOLDEN, check_result, read_sample

SAMPLES = sorted((GOLDEN / "ibstat").glob("*.txt"))


def _sample(stem: str) -> str:
    return read_sample(GOLDEN / "ibstat" / f"{stem}.txt")


def _through_pdsh(text: str, host: str, *, blank_lines: bool = True) -> list[str]:
    """The node's lines as pdsh prints them; the local prompt a sample starts with (``$
    ibstat``) is the poster's terminal, not the node's, so it stays as it was. With
    ``blank_lines`` off, empty lines stay empty (a poster who tidied the paste)."""
    out = []
    for line in text.splitlines():
        if is_prompt_line(line) is not None or (not line.strip() and not blank_lines):
            out.append(line)
        else:
            out.append(f"{host}: {line}".rstrip())
    return out


def _on(result: ParseResult, node: str) -> set[Fact]:
    """The per-port facts of a plain reading, their subjects named as on ``node``."""
    return {
        Fact(f.name, f.value, f"{f.subject} ({node})", f.unit)
        for f in result.facts
        if f.subject != "host"
    }


@pytest.mark.parametrize("path", SAMPLES, ids=[path.stem for path in SAMPLES])
@pytest.mark.parametrize("blank_lines", [True, False])
def test_one_node_reads_as_the_plain_paste(path: Path, blank_lines: bool) -> None:
    text = read_sample(path)
    prefixed = "\n".join(_through_pdsh(text, "gpu-node-07", blank_lines=blank_lines)) + "\n"
    plain, through = parse_ibstat(text), parse_ibstat(prefixed)
    check_result(through)
    assert through.facts == plain.facts
    assert through.problems == plain.problems
    assert looks_like_ibstat(prefixed)


def test_two_nodes_interleaved_name_each_port_with_its_node() -> None:
    """pdsh prints lines as they arrive: node1's ibstat and node2's ibstatus, line by line."""
    one, two = _through_pdsh(_sample("001"), "node1"), _through_pdsh(_sample("013"), "node2")
    mixed = [line for pair in zip(one, two, strict=False) for line in pair]
    longer = one if len(one) > len(two) else two
    mixed += longer[min(len(one), len(two)) :]
    result = parse_ibstat("\n".join(mixed))
    check_result(result)
    expected = _on(parse_ibstat(_sample("001")), "node1") | _on(
        parse_ibstat(_sample("013")), "node2"
    )
    assert {f for f in result.facts if f.subject != "host"} == expected
    assert result.values("ib.state")["mlx5_0/1 (node1)"] == "Active"
    assert result.values("ib.state")["mlx5_1/1 (node2)"] == "Down"
    counted = [parse_ibstat(_sample(stem)).values("ib.ports")["host"] for stem in ("001", "013")]
    assert result.values("ib.ports") == {"host": sum(counted)}  # type: ignore[arg-type]
    assert result.problems == []


def test_one_node_down_among_like_nodes_is_not_hidden() -> None:
    """The same ibstat on two nodes, in blocks, one port Down on the second: each node keeps
    its port (no "listed twice" problem: the prefix says whose it is)."""
    text = _sample("005")
    broken = text.replace("State: Active", "State: Down").replace("LinkUp", "Polling")
    paste = _through_pdsh(text, "n01.hpc.example.org")
    paste += _through_pdsh(broken, "n02.hpc.example.org")
    result = parse_ibstat("\n".join(paste))
    assert result.values("ib.state") == {
        "mlx4_0/1 (n01.hpc.example.org)": "Active",
        "mlx4_0/1 (n02.hpc.example.org)": "Down",
    }
    assert result.values("ib.ports") == {"host": 2}
    assert result.values("ib.ports_active") == {"host": 1}
    assert result.problems == []


def test_a_node_listing_a_port_twice_keeps_both_listings() -> None:
    paste = _through_pdsh(_sample("005") + _sample("005"), "node1") + _through_pdsh(
        _sample("005"), "node2"
    )
    result = parse_ibstat("\n".join(paste))
    assert set(result.values("ib.state")) == {
        "mlx4_0/1 (node1)",
        "mlx4_0/1 (node1, listing 2)",
        "mlx4_0/1 (node2)",
    }
    assert result.problems == [
        "mlx4_0/1 is listed 2 times (on node1): each listing is read as its own port"
    ]


def test_what_the_shell_said_is_a_problem() -> None:
    paste = [
        "pdsh -w node[1-3] ibstat",
        *_through_pdsh(_sample("001"), "node1"),
        "pdsh@head: node3: ssh exited with exit code 255",
        *_through_pdsh(_sample("013"), "node2"),
    ]
    result = parse_ibstat("\n".join(paste))
    assert "mlx5_0/1 (node2)" in result.values("ib.state")
    assert result.problems == [
        "the parallel shell said: pdsh@head: node3: ssh exited with exit code 255"
    ]


def test_a_posters_note_is_no_node() -> None:
    """``Note: …`` reads as a host name; it lists no device, so the one node's ports keep the
    plain names."""
    paste = ["Note: node2 did not answer", *_through_pdsh(_sample("001"), "node1")]
    result = parse_ibstat("\n".join(paste))
    assert result.facts == parse_ibstat(_sample("001")).facts


def test_ibstats_own_key_lines_are_no_prefixes() -> None:
    """ibstat's port lines at the line's start (``ibstat mlx4_0 1`` prints them unindented),
    cut from their header, above a node's prefixed listing: keys, not hosts, so the paste holds
    lines no shell prefixed and is no parallel shell's (read plain: nothing to read). The
    node's listing holds a header, so a paste reading ``State`` as a node would be read node by
    node: this checks the key list, not the fallback that reads a paste plain where no node
    lists a device (``State: Active`` alone passes with or without the list). Constructed."""
    text = "State: Active\nRate: 200\nLMC: 0\n"
    paste = text + "\n".join(_through_pdsh(_sample("005"), "node1"))
    for result in (parse_ibstat(text), parse_ibstat(paste)):
        assert not result.parsed and not result.facts
        assert "is this InfiniBand port output?" in result.problems[0]


def test_ibv_devinfos_own_key_lines_are_no_prefixes() -> None:
    """``port: 1`` is ibv_devinfo's port header, not a node named ``port``: read as the header,
    even with a node's prefixed listing (which holds a header, so the fallback that reads a
    paste plain where no node lists a device does not decide) after it. Constructed: the lines
    ibv_devinfo prints, indentation stripped."""
    text = "transport: InfiniBand (0)\nport: 1\nstate: PORT_ACTIVE (4)\n"
    paste = text + "\n".join(_through_pdsh(_sample("005"), "node1"))
    for result in (parse_ibstat(text), parse_ibstat(paste)):
        assert result.values("ib.state") == {"port1": "Active"}


def test_a_plain_paste_with_one_prefixed_line_stays_plain() -> None:
    """Every line must carry a prefix: one ``node1:`` line among plain ones is no pdsh paste,
    and the plain lines are read as they were."""
    text = _sample("001")
    result = parse_ibstat("node1: uptime 3 days\n" + text)
    assert result.facts == parse_ibstat(text).facts
