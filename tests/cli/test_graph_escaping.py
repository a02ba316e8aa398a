"""`casefile graph`: text from the case can never break out of a DOT or Mermaid string."""

from __future__ import annotations

import re
from typing import Any, cast

import networkx as nx
import pytest

from casefile.app.graph_export import to_dot, to_mermaid
from casefile.domain.beliefs import Projection
from tests.cli.conftest import CLI

NASTY = 'say "hi"] -> x [color=red]\nnext line | pipe \\ back'
RATIONALE = 'the "link" was idle]\r\n"]; evil -> node; ["'

#: a DOT double-quoted string: no bare quote, no raw line break, every backslash an escape
QUOTED = r'"(?:[^"\\\r\n]|\\.)*"'
DOT_NODE = re.compile(rf"^  {QUOTED} \[label={QUOTED}, shape=\w+\];$")
DOT_EDGE = re.compile(rf"^  {QUOTED} -> {QUOTED} \[label={QUOTED}\];$")
MERMAID_NODE = re.compile(r'^  n\d+\["[^"|\r\n]*"\]$')
MERMAID_EDGE = re.compile(r"^  n\d+ -->\|[^|\"\r\n]*\| n\d+$")


def check_dot(dot: str, nodes: int, edges: int) -> None:
    lines = dot.splitlines()
    assert lines[:2] == ["digraph casefile {", "  rankdir=LR;"] and lines[-1] == "}"
    body = lines[2:-1]
    assert len(body) == nodes + edges, dot
    assert sum(bool(DOT_NODE.match(line)) for line in body) == nodes, dot
    assert sum(bool(DOT_EDGE.match(line)) for line in body) == edges, dot


def check_mermaid(mermaid: str, nodes: int, edges: int) -> None:
    lines = mermaid.splitlines()
    assert lines[0] == "flowchart LR"
    body = lines[1:]
    assert len(body) == nodes + edges, mermaid
    assert sum(bool(MERMAID_NODE.match(line)) for line in body) == nodes, mermaid
    assert sum(bool(MERMAID_EDGE.match(line)) for line in body) == edges, mermaid


@pytest.fixture
def nasty_case(cli: CLI) -> str:
    case: str = cli("new", 'Title "with" quotes').out.strip()
    cli("question", "add", case, 'What "limits"\nit?', "--id", "q")
    added = cli("hypothesis", "add", case, NASTY, "--under", "q", "--prior", "0.5", "--id", "h")
    assert added.code == 0, added.err
    assessed = cli("evidence", "add", case, "--likelihood", "h=0.2", "--because", RATIONALE)
    assert assessed.code == 0, assessed.err
    return case


def test_dot_escapes_every_label(cli: CLI, nasty_case: str) -> None:
    # case, question, catch-all, h, evidence; asks, has ×2, bears_on
    dot = cli("graph", nasty_case, "--format", "dot").out
    check_dot(dot, nodes=5, edges=4)
    assert r"say \"hi\"] -> x [color=red]\nnext line | pipe \\ back" in dot
    assert r"the \"link\" was idle]\n\"]; evil -> node; [\"" in dot


def test_mermaid_labels_are_one_safe_line(cli: CLI, nasty_case: str) -> None:
    mermaid = cli("graph", nasty_case, "--format", "mermaid").out
    check_mermaid(mermaid, nodes=5, edges=4)
    assert "say #quot;hi#quot;] -#gt; x [color=red] next line #124; pipe \\ back" in mermaid


class FakeProjection:
    """Just what the exporters read: a graph, and confidences by hypothesis id."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph

    def confidences(self) -> dict[str, float]:
        return {'x"]; evil': 0.25}


def test_dot_escapes_node_ids() -> None:
    graph = nx.MultiDiGraph()
    evil = 'h:x"]; evil'
    graph.add_node("q:q\\", kind="question", label="q")
    graph.add_node(evil, kind="hypothesis", label="h")
    graph.add_node("e:1\nx", kind="evidence", label="e")
    graph.add_edge("q:q\\", evil, kind="has")
    graph.add_edge("e:1\nx", evil, kind='bears"on', likelihood=0.2)
    projection = cast(Projection, FakeProjection(graph))
    dot = to_dot(projection)
    check_dot(dot, nodes=3, edges=2)
    assert r'"h:x\"]; evil" [label="h (25.0%)"' in dot
    assert r'"q:q\\" -> "h:x\"]; evil"' in dot
    assert r'"e:1\nx" -> "h:x\"]; evil" [label="bears\"on, likelihood=0.2"]' in dot
    check_mermaid(to_mermaid(projection), nodes=3, edges=2)
