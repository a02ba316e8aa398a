"""The probe is a row of the action table: the TUI's dialog, the CLI and the agent interface
build the same :class:`RunProbe`, and the command line the TUI echoes records the same run.

Pasted output goes to the echoed command's stdin (``--paste -``), so the line a person copies
from the TUI's Commands tab, fed the same text, records what the dialog recorded.
"""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest

from casefile.actions.probe_actions import PROBE, RunProbe, pasted_command
from casefile.actions.spec import argv, command_line
from casefile.actions.text import InputProblem, parse
from casefile.app.opening import open_case
from casefile.app.who import Who
from casefile.tui.dialogs.probe import build_probe
from tests.cli.conftest import CLI

PASTED = "GPU0\tGPU1\nGPU0\t X \tNV12\nGPU1\tNV12\t X \n"


def _runs(db: str, case_id: str) -> list[dict[str, object]]:
    with open_case(case_id, db) as opened:
        events = opened.service.reader.events(opened.case_id)
    return [
        {k: e.payload.get(k) for k in ("probe", "argv", "host", "source", "stdout_artifact")}
        for e in events
        if e.type == "probe.ran"
    ]


def test_the_echoed_line_with_its_stdin_records_what_the_dialog_recorded(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    case_id = cli("new", "Echo", "--id", "e1").out.strip()
    values = {
        "probe": "command",
        "load": "under-load",
        "paste": PASTED,
        "paste_host": "gpu-node-7",
        "argv": "nvidia-smi topo -m",
        "note": "from the login node",
    }
    built = build_probe(values, ["command"], case_id, actor="ana")
    assert "--paste -" in built.command and "--host gpu-node-7" in built.command
    with open_case(case_id, db) as opened:
        list(built.action.records(opened.service, opened.case_id, Who("ana")))
    words = shlex.split(built.command)
    assert words[:2] == ["casefile", "probe"]
    # on the same case, the echoed line is the same reading again: refused as a repeat
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PASTED.encode())))
    repeat = cli(*words[1:])
    assert repeat.code != 0 and "already records this pasted output" in repeat.err
    # on another case it records what the dialog recorded
    other = cli("new", "Echo again", "--id", "e2").out.strip()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PASTED.encode())))
    echoed = cli(*[other if word == case_id else word for word in words[1:]])
    assert echoed.code == 0, echoed.err
    (first,), (second,) = _runs(db, case_id), _runs(db, other)
    assert first == second
    assert first["host"] == "gpu-node-7" and first["argv"] == ["nvidia-smi", "topo", "-m"]


def test_one_set_of_rules_for_the_dialog_the_cli_and_the_tools() -> None:
    with pytest.raises(ValueError, match="trusting a new host key goes with SSH hosts"):
        RunProbe("command", trust_host=True)
    with pytest.raises(ValueError, match="pasted output is one host's"):
        RunProbe("command", hosts=("a", "b"), paste="x")
    with pytest.raises(ValueError, match="is not a host"):
        RunProbe("command", hosts=("-oProxyCommand=x",))
    with pytest.raises(ValueError, match="goes with pasted output"):
        RunProbe("command", taken_at="2026-03-02T10:00:00.000000Z")
    with pytest.raises(InputProblem, match="not a number of seconds"):
        parse(PROBE, {"probe": "command", "window": "soon"})
    with pytest.raises(InputProblem, match="does not split"):
        parse(PROBE, {"probe": "command", "argv": "echo 'unbalanced"})
    with pytest.raises(ValueError, match="give SSH hosts or pasted output, not both"):
        build_probe({"probe": "command", "hosts": "gpu-1", "paste": "x"}, ["command"], "c1")


def test_a_command_line_is_the_last_thing_on_the_line() -> None:
    action = RunProbe("command", note="n", argv=("echo", "--note", "not an option"))
    words = argv(PROBE, action, "c1")
    assert words[-4:] == ["--", "echo", "--note", "not an option"]
    assert words.index("--note") < words.index("--")
    line = command_line(PROBE, action, "c1", "ana")
    assert line.endswith("--actor ana -- echo --note 'not an option'")
    assert command_line(PROBE, RunProbe("command", note="--"), "c1", "ana").endswith(
        "--note -- --actor ana"
    )
    assert pasted_command(("nvidia-smi --query-gpu='index,name'",)) == (
        "nvidia-smi",
        "--query-gpu=index,name",
    )
    assert pasted_command(("echo", "a b")) == ("echo", "a b")  # several words: as given


def test_the_json_of_a_run_keeps_its_shape(cli: CLI) -> None:
    case_id = cli("new", "Shape", "--id", "s1").out.strip()
    out = cli("probe", case_id, "command", "--json", "--", "echo", "hello")
    line = json.loads(out.out.splitlines()[0])
    assert line["ok"] is True and line["host"] and line["probe_run_seq"] == 2
