"""``casefile record CASE -- COMMAND`` in a real pseudo-terminal: the session is one transcript,
its commands are proposed for review as ``casefile ingest`` proposes them, the answer to the
review decides what is appended, and nothing secret is kept."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import struct
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CLI
from tests.ingest.samples import QUERY, QUERY_ARGV, TOPO
from tests.ingest.test_record_pty import _read_until, _reap

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

TOKEN = "abcdefghijklmnopqrstuvwxyz0123456789"
PASSWORD = "hunter2-Secret"
#: where casefile's own review table starts, after the session's last byte
TABLE = b"   #  kind"
ASKED = b"Append all"


def _spawn(env: dict[str, str], case: str, command: list[str]) -> tuple[int, int]:
    pid, fd = pty.fork()
    if pid == 0:
        argv = [sys.executable, "-m", "casefile", "record", case, "--", *command]
        os.execvpe(sys.executable, argv, env)
    # wide, so that a long typed line is echoed whole
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 400, 0, 0))
    return pid, fd


def _finish(pid: int, fd: int, seen: bytearray, answer: str | None) -> int:
    """Answer the review (when asked), read to the end, and reap the recorder."""
    try:
        if answer is not None:
            _read_until(fd, seen, lambda b: ASKED in b)
            os.write(fd, f"{answer}\r".encode())
        _read_until(fd, seen, lambda b: False, timeout=30.0)
    finally:
        status = _reap(pid)
        os.close(fd)
    return os.waitstatus_to_exitcode(status)


def _environment(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return dict(
        os.environ,
        HOME=str(home),
        TERM="dumb",
        PS1="$ ",  # a prompt the shell-log reader knows (bash --norc takes PS1 from here)
        CASEFILE_ACTOR="tester",
    )


def _events(cli: CLI, case: str) -> list[dict[str, Any]]:
    outcome = cli("log", case, "--json")
    assert outcome.code == 0, outcome.err
    events: list[dict[str, Any]] = json.loads(outcome.out)
    return events


def _runs(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["payload"] for e in events if e["type"] == "probe.ran"]


def _shape(run: dict[str, Any]) -> tuple[object, ...]:
    return (run["probe"], tuple(run["argv"]), run["host"], run["conditions"]["load"])


def _interactive_bash(cli: CLI, tmp_path: Path, answer: str) -> tuple[int, bytes]:
    env = _environment(tmp_path)
    pid, fd = _spawn(env, "cmd", ["bash", "--norc", "--noprofile", "-i"])
    lines = [
        "echo hello\r",
        f"echo 'Authorization: Bearer {TOKEN}'\r",
        "read -s -p 'Password: ' pw; echo; echo got-it\r",
        "exit\r",
    ]
    seen = bytearray()
    try:
        for number, typed in enumerate(lines, 1):
            _read_until(fd, seen, lambda b, n=number: b.count(b"$ ") >= n)
            os.write(fd, typed.encode())
            if typed.startswith("read -s"):
                # the prompt read printed, not the echo of the line typed (which holds it too):
                # typed any sooner, the password would be echoed before read turned echo off
                _read_until(fd, seen, lambda b: b.count(b"Password: ") >= 2)
                os.write(fd, f"{PASSWORD}\r".encode())
    except BaseException:
        _finish(pid, fd, seen, None)
        raise
    return _finish(pid, fd, seen, answer), bytes(seen)


def test_an_interactive_shell_is_one_transcript_reviewed_as_ingest_reviews_it(
    cli: CLI, tmp_path: Path
) -> None:
    assert cli("new", "record a command", "--id", "cmd").code == 0
    code, screen = _interactive_bash(cli, tmp_path, "a")
    assert code == 0, screen[-800:]
    assert b"hello" in screen and b"got-it" in screen  # passed through
    events = _events(cli, "cmd")
    runs = _runs(events)
    # `exit` is how the session ended, not a step in it; everything else was answered "all"
    assert [tuple(r["argv"][:1]) for r in runs] == [("echo",), ("echo",), ("read",)]
    assert {r["host"] for r in runs} == {"unknown"}  # wherever COMMAND went: not known here
    assert {r["conditions"]["load"] for r in runs} == {"unknown"}
    # one transcript: every event points into the same artifact, read as a shell log
    refs = [r["transcript"] for r in runs]
    assert {r["transcript_artifact"] for r in runs} == {runs[0]["transcript_artifact"]}
    assert {ref["format"] for ref in refs} == {"shell-log"}
    offsets = [ref["offset"] for ref in refs]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    # as ingest reads the same bytes (what the session printed, before the review table)
    session = tmp_path / "session.log"
    session.write_bytes(screen[: screen.index(TABLE)])
    assert cli("new", "the same, ingested", "--id", "twin").code == 0
    outcome = cli("ingest", "twin", str(session), "--format", "shell-log", "--yes")
    assert outcome.code == 0, outcome.err
    ingested = [r for r in _runs(_events(cli, "twin")) if r["argv"] != ["exit"]]
    assert [_shape(r) for r in runs] == [_shape(r) for r in ingested]
    # nothing secret kept: not the bearer token, not the password typed without echo
    dump = json.dumps(events)
    assert TOKEN not in dump and PASSWORD not in dump
    assert "Authorization: Bearer [scrubbed]" in dump
    export = tmp_path / "out"
    assert cli("export", "cmd", str(export)).code == 0
    for artifact in (export / "artifacts").iterdir():
        content = artifact.read_bytes()
        assert TOKEN.encode() not in content and PASSWORD.encode() not in content


def test_the_answer_decides_what_is_appended(cli: CLI, tmp_path: Path) -> None:
    assert cli("new", "record a command", "--id", "cmd").code == 0
    code, screen = _interactive_bash(cli, tmp_path, "1,3")
    assert code == 0, screen[-800:]
    assert [r["argv"][0] for r in _runs(_events(cli, "cmd"))] == ["echo", "read"]


def test_answering_none_appends_nothing(cli: CLI, tmp_path: Path) -> None:
    assert cli("new", "record a command", "--id", "cmd").code == 0
    code, screen = _interactive_bash(cli, tmp_path, "n")
    assert code == 1
    assert b"nothing appended" in screen
    assert [e["type"] for e in _events(cli, "cmd")] == ["case.opened"]


def test_a_script_printing_a_remote_session_lands_parsed_runs(cli: CLI, tmp_path: Path) -> None:
    """What ``record -- ssh gpu-box`` sees: the far side's prompts and outputs, no integration."""
    assert cli("new", "remote", "--id", "cmd", "--playbook", "gpu-throughput").code == 0
    (tmp_path / "topo.txt").write_text(TOPO)
    (tmp_path / "query.csv").write_text(QUERY)
    script = tmp_path / "remote.sh"
    script.write_text(
        "#!/bin/sh\n"
        "printf '$ nvidia-smi topo -m\\n'\n"
        f"cat {tmp_path / 'topo.txt'}\n"
        f"printf '%s\\n' '$ {QUERY_ARGV}'\n"
        f"cat {tmp_path / 'query.csv'}\n"
        "printf '$ exit\\n'\n"
    )
    script.chmod(0o755)
    pid, fd = _spawn(_environment(tmp_path), "cmd", [str(script)])
    seen = bytearray()
    code = _finish(pid, fd, seen, "a")
    assert code == 0, bytes(seen)[-800:]
    events = _events(cli, "cmd")
    runs = _runs(events)
    assert [r["probe"] for r in runs] == ["nvidia-smi-topo", "nvidia-smi-query"]
    facts = {
        e["payload"]["probe_run_seq"]: e["payload"]["facts"]
        for e in events
        if e["type"] == "observation.recorded"
    }
    query_seq = [e["seq"] for e in events if e["type"] == "probe.ran"][1]
    assert len([f for f in facts[query_seq] if f["name"] == "utilization.gpu"]) == 8
    assert any(e["type"] == "evidence.assessed" for e in events)  # the playbook's rules ran


def test_a_command_with_no_prompt_in_its_output_records_nothing(cli: CLI, tmp_path: Path) -> None:
    assert cli("new", "quiet", "--id", "cmd").code == 0
    pid, fd = _spawn(_environment(tmp_path), "cmd", ["sh", "-c", "echo just output"])
    seen = bytearray()
    started = time.monotonic()
    code = _finish(pid, fd, seen, None)
    assert code == 1 and b"no command to record" in seen
    assert time.monotonic() - started < 30
    assert [e["type"] for e in _events(cli, "cmd")] == ["case.opened"]
