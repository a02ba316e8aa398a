"""``casefile record`` driving a real bash (and zsh, where installed) through a pseudo-terminal."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.cli.conftest import CLI
from tests.ingest.samples import FORGED_LOG, FORGED_PROMPTS, QUERY, QUERY_ARGV

MARK_B = b"\x1b]133;B"
MARK_C = b"\x1b]133;C"
PASSWORD = "hunter2-Secret"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _read_until(fd: int, buffer: bytearray, predicate: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate(bytes(buffer)):  # type: ignore[operator]
        left = deadline - time.monotonic()
        assert left > 0, f"timed out; saw {bytes(buffer)[-400:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            buffer += data


def _drive(
    env: dict[str, str],
    case: str,
    lines: list[str],
    *extra: str,
    prompts: list[int] | None = None,
) -> tuple[int, bytes]:
    """Type each line once the session has printed its prompt (``prompts``: how many B marks
    are on the screen by then, where the output prints some of its own)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(
            sys.executable,
            [
                sys.executable,
                "-m",
                "casefile",
                "record",
                case,
                "--load",
                "under-load",
                "--exclude",
                "^secret-",
                *extra,
            ],
            env,
        )
    # wide enough that readline echoes the long query line whole (it scrolls a line wider
    # than the terminal sideways, and the typed text is read from the echo)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 400, 0, 0))
    seen = bytearray()
    try:
        for number, line in enumerate(lines, 1):
            count = prompts[number - 1] if prompts else number
            _read_until(fd, seen, lambda b, n=count: b.count(MARK_B) >= n)
            os.write(fd, line.encode())
            if "Password" in line:
                # the prompt the command printed (after its C mark), not the echo of the line
                _read_until(
                    fd,
                    seen,
                    lambda b, n=number: (
                        b.count(MARK_C) >= n and b.rfind(b"Password:") > b.rfind(MARK_C)
                    ),
                )
                os.write(fd, (PASSWORD + "\r").encode())
        _read_until(fd, seen, lambda b: False, timeout=30.0)
    finally:
        status = _reap(pid)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), bytes(seen)


def _reap(pid: int, timeout: float = 30.0) -> int:
    """The child's wait status; a child still running after ``timeout`` is killed (a test that
    went wrong must not hang the suite)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


SHELLS = [name for name in ("bash", "zsh") if shutil.which(name)]


@pytest.mark.parametrize("shell", SHELLS)
def test_record_a_shell_session(cli: CLI, tmp_path: Path, shell: str) -> None:
    assert cli("new", "live", "--id", "live", "--playbook", "gpu-throughput").code == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "query.csv").write_text(QUERY)
    fake = bin_dir / "nvidia-smi"
    fake.write_text(f"#!/bin/sh\ncat {tmp_path / 'query.csv'}\n")
    fake.chmod(0o755)
    env = _environment(tmp_path, shell, bin_dir)
    code, screen = _drive(
        env,
        "live",
        [
            "echo hello\r",
            f"{QUERY_ARGV}\r",
            "false\r",
            # a prompt that does not echo, the same in bash and zsh (whose read -s differs)
            "stty -echo; printf 'Password: '; read pw; stty echo; echo\r",
            " echo hidden-by-space\r",
            "secret-thing || true\r",
            "exit\r",
        ],
    )
    assert code == 0, screen[-600:]
    assert b"hello" in screen  # passed through
    events = json.loads(cli("log", "live", "--json").out)
    runs = [e["payload"] for e in events if e["type"] == "probe.ran"]
    assert [(r["probe"], r["argv"][0], r.get("exit_status")) for r in runs] == [
        ("command", "echo", 0),
        ("nvidia-smi-query", "nvidia-smi", 0),
        ("command", "false", 1),
        ("command", "stty", 0),
    ]
    assert {r["host"] for r in runs} == {socket.gethostname()}  # they ran here
    observations = {
        e["payload"]["probe_run_seq"]: e["payload"]
        for e in events
        if e["type"] == "observation.recorded"
    }
    query_seq = [e["seq"] for e in events if e["type"] == "probe.ran"][1]
    facts = observations[query_seq]["facts"]
    assert len([f for f in facts if f["name"] == "utilization.gpu"]) == 8
    assert any(e["type"] == "evidence.assessed" for e in events)
    dump = json.dumps(events)
    assert PASSWORD not in dump
    assert "hidden-by-space" not in dump and "secret-thing" not in dump
    export = tmp_path / "out"
    assert cli("export", "live", str(export)).code == 0
    for artifact in (export / "artifacts").iterdir():
        content = artifact.read_bytes()
        assert PASSWORD.encode() not in content
        assert b"hidden-by-space" not in content


def _environment(tmp_path: Path, shell: str, bin_dir: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return dict(
        os.environ,
        SHELL=shutil.which(shell) or shell,
        PATH=f"{bin_dir}:{os.environ['PATH']}",
        HOME=str(home),
        TERM="dumb",
        CASEFILE_RECORD_NORC="1",
        CASEFILE_ACTOR="tester",
    )


def test_dry_run_records_nothing(cli: CLI, tmp_path: Path) -> None:
    assert cli("new", "dry", "--id", "dry").code == 0
    env = _environment(tmp_path, "bash", tmp_path)
    code, screen = _drive(env, "dry", ["echo hello\r", "exit\r"], "--dry-run")
    assert code == 0
    assert b"would record" in screen
    events = json.loads(cli("log", "dry", "--json").out)
    assert [e["type"] for e in events] == ["case.opened"]


@pytest.mark.parametrize("shell", SHELLS)
def test_marks_a_command_prints_are_its_output(cli: CLI, tmp_path: Path, shell: str) -> None:
    """R3-H2: ``cat`` of a log holding OSC 133 marks recorded a fake ``nvidia-smi --query-gpu``
    run "(exit 0)" at 100 %, and a rule wrote evidence from it. Only marks carrying the
    session's nonce are the shell's: the session ran one command, ``cat``, which printed it all."""
    assert cli("new", "spoof", "--id", "spoof", "--playbook", "gpu-throughput").code == 0
    log = tmp_path / "spoof.log"
    log.write_text(FORGED_LOG)
    env = _environment(tmp_path, shell, tmp_path)
    code, screen = _drive(env, "spoof", [f"cat {log}\r", "exit\r"], prompts=[1, 2 + FORGED_PROMPTS])
    assert code == 0, screen[-600:]
    events = json.loads(cli("log", "spoof", "--json").out)
    runs = [e["payload"] for e in events if e["type"] == "probe.ran"]
    assert [(r["probe"], r["argv"], r.get("exit_status")) for r in runs] == [
        ("command", ["cat", str(log)], 0)
    ]
    assert not any(e["type"] == "evidence.assessed" for e in events)
    export = tmp_path / "out"
    assert cli("export", "spoof", str(export)).code == 0
    printed = (export / "artifacts" / runs[0]["stdout_artifact"]).read_bytes()
    # the marks and all (zsh pads the line after it before its next prompt)
    assert printed.replace(b"\r\n", b"\n").startswith(FORGED_LOG.encode())


@pytest.mark.parametrize("shell", SHELLS)
def test_the_nonce_is_kept_from_the_commands(tmp_path: Path, shell: str) -> None:
    """A command that could print the nonce could forge marks: it is in no environment variable
    a command inherits (not even a PS1 that came exported), and the rc file that holds it is
    gone once the shell has read it."""
    from casefile.transcripts.live import integration, run_in_pty

    rc_dir = tmp_path / "rc"
    rc_dir.mkdir()
    environ = dict(_environment(tmp_path, shell, tmp_path), PS1="$ ")
    with integration(shutil.which(shell) or shell, rc_dir, environ) as (argv, env, nonce):
        assert nonce not in json.dumps(env)
        typed, to_shell = os.pipe()
        os.write(to_shell, b"env; exit\n")
        os.close(to_shell)
        sink = os.open(os.devnull, os.O_WRONLY)
        try:
            recorded = run_in_pty(argv, env, stdin=typed, stdout=sink)
        finally:
            os.close(typed)
            os.close(sink)
        assert list(rc_dir.iterdir()) == []
    marks = re.compile(rb"\x1b\]133;[A-D](;[^\x07]*)?\x07")
    assert b"casefile=" + nonce.encode() in recorded.output  # the shell's own marks
    assert b"CASEFILE_RECORDING=1" in recorded.output  # env ran
    assert nonce.encode() not in marks.sub(b"", recorded.output)
