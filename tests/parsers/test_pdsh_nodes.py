"""mpstat and pidstat through a parallel shell, read node by node: each node's cores, its
averages, its processes and what the shell said of it are its own. Verbatim golden samples with
pdsh's ``node: `` prefixes added (the helpers of ``test_pdsh_hosts``)."""

from __future__ import annotations

import pytest
from casefile_probes.cpu_load import parse_mpstat, parse_pidstat

from tests.parsers.corpus import check_result
from tests.parsers.test_pdsh_hosts import _paste, _prefixed, _sample


@pytest.mark.parametrize("order", ["blocks", "interleaved"])
def test_mpstat_cores_are_read_node_by_node(order: str) -> None:
    """mpstat/001 (ten cores, cpu7 the busiest at 62.5 %) on node1 beside mpstat/003 (four
    cores near 85 % busy) on node2: each node's cpu0 is its own core. They had been pooled
    as one, node1's 11.56 % averaged with node2's, a core neither node has."""
    one, two = _sample("mpstat/001", 1), _sample("mpstat/003", 1)
    paste = _paste(_prefixed(one, "node1"), _prefixed(two, "node2"), order)
    result = parse_mpstat(paste)
    check_result(result)
    cores = result.values("cpu.busy")
    for node, alone in (("node1", parse_mpstat(one)), ("node2", parse_mpstat(two))):
        for core, busy in alone.values("cpu.busy").items():
            assert cores[f"{node}:{core}"] == busy
    maxima = [parse_mpstat(text).values("cpu.busy.max")["host"] for text in (one, two)]
    assert result.values("cpu.busy.max") == {"host": max(maxima)}
    assert not any(subject.startswith("cpu") for subject in cores)


@pytest.mark.parametrize("order", ["blocks", "reversed", "interleaved"])
def test_a_node_without_averages_is_read_beside_one_with_them(order: str) -> None:
    """mpstat/005 on node1 printed its ``Average:`` rows; mpstat/001 on node2 (one interval,
    cpu7 at 62.5 %) printed none. Each node's own rows are its load: node2 had been left out,
    unnamed, because node1's averages were chosen for the whole paste."""
    one, two = _sample("mpstat/005"), _sample("mpstat/001", 1)
    result = parse_mpstat(_paste(_prefixed(one, "node1"), _prefixed(two, "node2"), order))
    check_result(result)
    assert result.values("cpu.busy")["node2:cpu7"] == 62.5
    assert result.values("cpu.busy.max") == {"host": 62.5}
    alone = [parse_mpstat(text).values("cpu.busy.mean")["host"] for text in (one, two)]
    assert result.values("cpu.busy.mean")["host"] == pytest.approx(sum(alone) / 2, abs=0.01)


def test_nodes_are_listed_in_their_numbers_order() -> None:
    text = _sample("mpstat/003", 1)
    paste = _paste(_prefixed(text, "node10"), _prefixed(text, "node2"), "blocks")
    subjects = list(parse_mpstat(paste).values("cpu.busy"))
    assert subjects.index("node2:cpu0") < subjects.index("node10:cpu0")


@pytest.mark.parametrize("order", ["blocks", "reversed", "interleaved"])
def test_one_pid_on_two_nodes_is_two_tasks(order: str) -> None:
    """pidstat/005 (PID 21314 at 10.73 % on average) on node1 and its first three intervals
    (10.33 %) on node2: the same PID and command on two nodes are two tasks, and the busiest
    is the busiest of both, whichever node pdsh printed last (the later node's mean had
    replaced the earlier's)."""
    full, short = _sample("pidstat/005"), _sample("pidstat/005", 0, 4)
    result = parse_pidstat(_paste(_prefixed(full, "node1"), _prefixed(short, "node2"), order))
    alone = [parse_pidstat(text).values("process.cpu.max")["host"] for text in (full, short)]
    assert alone[0] != alone[1]
    assert result.values("process.cpu.max") == {"host": max(alone)}


@pytest.mark.parametrize("order", ["blocks", "interleaved"])
def test_what_the_shell_said_is_a_problem(order: str) -> None:
    """A node pdsh could not reach gave no rows: the reading says so, word for word, as
    ibstat's does (it had been dropped without a word)."""
    text = _sample("mpstat/001", 1)
    paste = _paste(_prefixed(text, "node1"), _prefixed(text, "node2"), order).splitlines()
    paste.insert(len(paste) // 2, "pdsh@head: node3: ssh exited with exit code 255")
    result = parse_mpstat("\n".join(paste))
    check_result(result)
    assert "node2:cpu7" in result.values("cpu.busy")
    assert "the parallel shell said: pdsh@head: node3: ssh exited with exit code 255" in (
        result.problems
    )
