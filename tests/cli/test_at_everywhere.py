"""``--at`` reaches every event of every recording command (it was once dropped by five).

One parametrised test over all of them: each command runs with ``--at`` and ``--actor``, and
every event it appended carries that time and that actor.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CLI

AT = "2020-01-01T00:00:00Z"
STORED = "2020-01-01T00:00:00.000000Z"
SMI_Q = "==============NVSMI LOG==============\n\nAttached GPUs : 1\nGPU 00000000:01:00.0\n"


def events(cli: CLI, case: str) -> list[dict[str, object]]:
    result = cli("log", case, "--json")
    assert result.code == 0, result.err
    loaded: list[dict[str, object]] = json.loads(result.out)
    return loaded


@pytest.fixture
def case(cli: CLI) -> str:
    case_id = cli("new", "t", "--id", "t1", "--playbook", "gpu-throughput").out.strip()
    assert case_id == "t1"
    assert cli("hypothesis", "retire", "t1", "link-degraded", "--because", "set up").code == 0
    return case_id


COMMANDS: dict[str, list[str]] = {
    "note": ["note", "t1", "a note"],
    "act": ["act", "t1", "rebooted", "--outcome", "no change"],
    "conclude": ["conclude", "t1", "done", "--root-cause", "compute-launch", "--lesson", "x"],
    "question add": ["question", "add", "t1", "another question?", "--id", "q9"],
    "hypothesis add": [
        "hypothesis",
        "add",
        "t1",
        "a child",
        "--under",
        "compute-launch",
        "--prior",
        "0.1",
    ],
    "hypothesis refine": ["hypothesis", "refine", "t1", "pcie-bound", "PCIe, reworded"],
    "hypothesis retire": ["hypothesis", "retire", "t1", "pcie-bound", "--because", "measured"],
    "hypothesis reinstate": ["hypothesis", "reinstate", "t1", "link-degraded"],
    "evidence add": [
        "evidence",
        "add",
        "t1",
        "--likelihood",
        "pcie-bound=0.8",
        "--kind",
        "calculated",
        "--because",
        "78 layers",
    ],
    "playbook open": ["playbook", "open", "t2", "gpu-throughput"],
    "probe --paste": ["probe", "t1", "nvidia-smi-q", "--paste", "{paste}", "--load", "under-load"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_at_and_actor_reach_every_event_a_command_appends(
    cli: CLI, case: str, tmp_path: Path, name: str
) -> None:
    paste = tmp_path / "smi-q.txt"
    paste.write_text(SMI_Q)
    target = "t1"
    if name == "playbook open":
        assert cli("new", "empty", "--id", "t2").code == 0
        target = "t2"
    before = len(events(cli, target))
    words = [w.replace("{paste}", str(paste)) for w in COMMANDS[name]]
    result = cli(*words, "--at", AT, "--actor", "alice")
    assert result.code in (0, 1), result.err  # an unparsed paste exits 1 and is recorded
    new = events(cli, target)[before:]
    assert new, f"{name} appended nothing"
    assert [e["occurred_at"] for e in new] == [STORED] * len(new)
    assert [e["actor"] for e in new] == ["alice"] * len(new)


def test_new_with_a_playbook_stamps_the_playbook_events_too(cli: CLI) -> None:
    assert cli("new", "t", "--id", "t3", "--playbook", "gpu-throughput", "--at", AT).code == 0
    stamped = events(cli, "t3")
    assert len(stamped) > 2
    assert {e["occurred_at"] for e in stamped} == {STORED}
