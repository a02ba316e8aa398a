"""Every read command has machine-readable output (``--json``, or ``--format json`` where it
has a ``--format``), and that JSON is exact: strings decode to what was recorded, however hostile.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from casefile.cli.main import build_parser
from tests.cli.conftest import CLI

#: read commands and how each asks for JSON (verify and probe are other engineers' to do)
READ_COMMANDS = {
    ("cases",): "--json",
    ("log",): "--json",
    ("status",): "--json",
    ("replay",): "--json",
    ("show",): "--json",
    ("hypothesis", "show"): "--json",
    ("plugins",): "--json",
    ("parse",): "--json",
    ("graph",): "--format json",
}

HOSTILE = "ti\x1b]0;pwned\x07tle\x9b2J \u2028 ☃ \\x1b"


def strings(value: Any) -> set[str]:
    """Every string in a decoded JSON value (keys and values)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value) | {s for v in value.values() for s in strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings(v)}
    return set()


def _parser_for(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


@pytest.mark.parametrize("path", sorted(READ_COMMANDS))
def test_every_read_command_takes_a_json_option(path: tuple[str, ...]) -> None:
    parser = _parser_for(path)
    options = {o: a for a in parser._actions for o in a.option_strings}
    if READ_COMMANDS[path] == "--json":
        assert "--json" in options
    else:
        assert "json" in (options["--format"].choices or ())


def test_plugins_json_lists_what_the_text_lists(cli: CLI) -> None:
    rows = json.loads(cli("plugins", "--json").out)
    text = cli("plugins").out.splitlines()
    assert len(rows) == len(text)
    assert {"kind", "name", "group", "target", "distribution"} <= set(rows[0])
    by_name = {(r["kind"], r["name"]): r for r in rows}
    assert by_name[("probe", "nvidia-smi")]["target"] == "casefile_probes.smi_table:PROBE"
    assert by_name[("playbook", "gpu-throughput")]["group"] == "casefile.playbooks"
    for row, line in zip(rows, text, strict=True):
        assert line.split()[:3] == [row["kind"], row["name"], row["target"]]


def _graph(cli: CLI, case: str) -> dict[str, Any]:
    result = cli("graph", case, "--format", "json")
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def test_graph_json_has_the_nodes_and_edges_with_confidences(cli: CLI) -> None:
    case = cli("new", HOSTILE, "--id", "gj").out.strip()
    cli("question", "add", case, "Why?", "--id", "q")
    cli("hypothesis", "add", case, "PCIe-bound", "--under", "q", "--prior", "0.5", "--id", "p")
    cli("evidence", "add", case, "--likelihood", "p=0.9", "--because", "bandwidth")
    data = _graph(cli, case)
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["case:gj"]["label"] == HOSTILE  # exact
    assert nodes["h:p"]["kind"] == "hypothesis" and 0.6 < nodes["h:p"]["confidence"] < 0.7
    assert nodes["h:q/catch-all"]["confidence"] == pytest.approx(1 - nodes["h:p"]["confidence"])
    edges = {(e["source"], e["target"], e["kind"]) for e in data["edges"]}
    assert ("q:q", "h:p", "has") in edges
    assert ("e:e1", "h:p", "bears_on") in edges
    bears = next(e for e in data["edges"] if e["kind"] == "bears_on")
    assert bears["likelihood"] == 0.9
    assert [n["id"] for n in data["nodes"]] == sorted(nodes)
    # the same case, the same bytes
    assert cli("graph", case, "--format", "json").out == cli("graph", case, "--format", "json").out
    # and the other formats are as they were
    assert cli("graph", case).out.startswith("digraph casefile {")


def test_json_is_exact_whatever_the_text_holds(cli: CLI) -> None:
    """Control characters are escaped only as JSON itself escapes them; every string decodes to
    exactly what was recorded (the terminal never sees a raw ESC, C1 or line separator)."""
    case = cli("new", HOSTILE, "--id", "hx").out.strip()
    cli("question", "add", case, "Why?", "--id", "q")
    cli("hypothesis", "add", case, HOSTILE, "--under", "q", "--prior", "0.5", "--id", "p")
    outputs = {
        "cases": cli("cases", "--json").out,
        "log": cli("log", case, "--json").out,
        "status": cli("status", case, "--json").out,
        "replay": cli("replay", case, "--json").out,
        "show": cli("show", case, "1", "--json").out,
        "hypothesis": cli("hypothesis", "show", case, "p", "--json").out,
        "graph": cli("graph", case, "--format", "json").out,
    }
    for name, out in outputs.items():
        for raw in ("\x1b", "\x07", "\x9b", "\u2028"):
            assert raw not in out, name
        assert "☃" in out, name  # printable text is not escaped beyond what JSON requires
        assert HOSTILE in strings(json.loads(out)), name
    assert json.loads(outputs["cases"])[0]["title"] == HOSTILE
    assert json.loads(outputs["status"])["case"]["title"] == HOSTILE
