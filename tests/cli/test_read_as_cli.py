"""``casefile probe`` and ``ingest`` say, in one line, which probe read a paste recorded under
``command`` (or under a probe that could not read it)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import CLI

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
#: an RTX 4090's LnkCap/LnkSta pair, its link trained at 2.5GT/s (a real paste)
DOWNGRADED = GOLDEN / "lspci-fragment" / "003.txt"


def test_probe_says_which_probe_read_a_paste_under_command(cli: CLI) -> None:
    case = cli("new", "slow link", "--playbook", "gpu-throughput").out.strip()
    result = cli("probe", case, "command", "--paste", str(DOWNGRADED), "--", "./links.sh")
    assert result.code == 0, result.err
    (line,) = [line for line in result.out.splitlines() if "read as" in line]
    assert line.startswith("probe run ") and "read as lspci" in line
    # the same output again is the same reading: a note says it is another run
    as_json = cli("probe", case, "command", "--json", "--paste", str(DOWNGRADED), "--note",
                  "the second run", "--", "./l.sh")  # fmt: skip
    assert json.loads(as_json.out)["read_as"] == ["lspci"]


def test_probe_says_nothing_of_the_kind_for_a_paste_its_probe_read(cli: CLI) -> None:
    case = cli("new", "slow link").out.strip()
    result = cli("probe", case, "lspci", "--paste", str(DOWNGRADED))
    assert result.code == 0, result.err
    assert "read as" not in result.out


def test_ingest_says_which_probe_read_a_command_no_pattern_matched(
    cli: CLI, tmp_path: Path
) -> None:
    case = cli("new", "slow link", "--id", "links", "--playbook", "gpu-throughput").out.strip()
    source = tmp_path / "notes.md"
    source.write_text(f"[bash] ./links.sh\n```\n{DOWNGRADED.read_text()}```\n")
    outcome = cli("ingest", case, str(source), "--yes")
    assert outcome.code == 0, outcome.err
    assert "run #1 (command): read as lspci" in outcome.out.splitlines()


def test_record_says_which_probe_read_a_command_no_pattern_matched(
    cli: CLI, tmp_path: Path
) -> None:
    """What ``record -- ssh gpu-box`` sees when the far side runs a script of its own."""
    from tests.ingest.test_record_command import _environment, _finish, _spawn

    assert cli("new", "remote", "--id", "cmd", "--playbook", "gpu-throughput").code == 0
    script = tmp_path / "remote.sh"
    script.write_text(
        f"#!/bin/sh\nprintf '$ ./links.sh\\n'\ncat {DOWNGRADED}\nprintf '$ exit\\n'\n"
    )
    script.chmod(0o755)
    pid, fd = _spawn(_environment(tmp_path), "cmd", [str(script)])
    seen = bytearray()
    code = _finish(pid, fd, seen, "a")
    assert code == 0, bytes(seen)[-800:]
    (line,) = [line for line in bytes(seen).decode().splitlines() if "./links.sh" in line][-1:]
    assert "command" in line and "read as lspci" in line
    runs = [e["payload"] for e in json.loads(cli("log", "cmd", "--json").out)]
    assert [r["probe"] for r in runs if "argv" in r] == ["command"]
