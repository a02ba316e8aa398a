"""`casefile probe` and Ctrl-C, hung hosts and runaway output, driven as a real process.

The installed ``casefile`` runs as a subprocess against a real sshd on loopback (a healthy host),
a paramiko server that opens sessions and never answers exec, and a listener that never speaks.
Ctrl-C (SIGINT) must end it with status 130 within a second, keep what finished, record the rest
as cancelled failed runs, say so, and print no traceback; SIGTERM the same, with status 143,
the command's whole process group ended and its partial output kept. ``probe --json`` gives
each host's seqs and truncated byte counts; raw output is stored as the exact bytes printed.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CLI
from tests.runners.hung_exec import HungExecServer
from tests.runners.sshd import SSHD, SilentListener, SshdCluster, start_cluster
from tests.signals import default_signals
from tests.waiting import PROCESS_S, WAIT_S, process_running, wait_until

CASEFILE = Path(sys.executable).with_name("casefile")
#: Ctrl-C must be answered within a second; the rest is the process's exit on a loaded machine.
#: Measured from the signal to the exit: 0.1-0.2 s at rest, up to 0.5 s over SSH with both cores
#: busy; a Ctrl-C that waited for the hung hosts would take 13 s, or 60.
SLACK_S = 2.0


def _env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CASEFILE_DB", "SSH_AUTH_SOCK")}
    env.update(CASEFILE_DB=f"sqlite:///{db}", PYTHONIOENCODING="utf-8")
    return env


def _casefile(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CASEFILE), *args],
        capture_output=True,
        text=True,
        env=_env(db),
        timeout=PROCESS_S,
        check=False,
    )


def _probe_runs(db: Path, case: str) -> list[dict[str, Any]]:
    done = _casefile(db, "log", case, "--json")
    assert done.returncode == 0, done.stderr
    return [e["payload"] for e in json.loads(done.stdout) if e["type"] == "probe.ran"]


class _Probe:
    """A running `casefile probe`, its stdout read line by line on a thread (reads never block
    the test without a deadline)."""

    def __init__(self, db: Path, *args: str) -> None:
        assert CASEFILE.exists(), f"the casefile CLI is not installed at {CASEFILE}"
        self.proc = subprocess.Popen(
            [str(CASEFILE), "probe", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(db),
            preexec_fn=default_signals,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def next_line(self) -> str:
        line = self.lines.get(timeout=WAIT_S)
        self.out.append(line)
        return line

    def interrupt(self) -> tuple[int, float, str]:
        """SIGINT; the exit status, seconds until it exited, and stderr."""
        sent = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=WAIT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        took = time.monotonic() - sent
        assert self.proc.stderr is not None
        err = self.proc.stderr.read()
        while not self.lines.empty():
            self.out.append(self.lines.get())
        return self.proc.returncode, took, err


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "probe.db"


def _new_case(db: Path) -> str:
    done = _casefile(db, "new", "Ctrl-C")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


# --- over SSH ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sshd_one(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshdCluster]:
    if not SSHD.exists():
        message = f"{SSHD} is not installed (apt-get install openssh-server)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the SSH tests: {message}")
        pytest.skip(message)
    cluster = start_cluster(tmp_path_factory.mktemp("sshd-interrupt"), 1)
    yield cluster
    cluster.stop()


@dataclass
class Fleet:
    """An ssh_config and a known_hosts naming three hosts, and the two servers that hang."""

    ssh_config: Path
    known_hosts: Path
    hung: HungExecServer  # stuck-exec: opens the session, never answers exec
    silent: SilentListener  # dead: accepts the connection, never says a word


@pytest.fixture
def fleet(sshd_one: SshdCluster, tmp_path: Path) -> Iterator[Fleet]:
    """Three hosts: healthy, stuck-exec and dead. The healthy one gets a connect timeout of its
    own, generous: it is not the one under test, and its handshake must not lose to a loaded
    machine whatever --connect-timeout a test gives the hung ones."""
    hung = HungExecServer(sshd_one.host_key)
    silent = SilentListener()
    ssh_config = tmp_path / "ssh_config"
    ports = {"healthy": sshd_one.ports[0], "stuck-exec": hung.port, "dead": silent.port}
    ssh_config.write_text(
        "".join(
            f"Host {alias}\n    HostName 127.0.0.1\n    Port {port}\n    User {sshd_one.user}\n"
            f"    IdentityFile {sshd_one.user_key_path}\n    IdentitiesOnly yes\n"
            + (f"    ConnectTimeout {WAIT_S:g}\n" if alias == "healthy" else "")
            for alias, port in ports.items()
        )
    )
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(sshd_one.known_hosts_path.read_text() + hung.known_hosts_line())
    yield Fleet(ssh_config, known_hosts, hung, silent)
    hung.close()
    silent.close()


@pytest.mark.ssh
def test_ctrl_c_over_ssh_keeps_what_finished_and_records_the_rest_as_cancelled(
    db: Path, fleet: Fleet
) -> None:
    case = _new_case(db)
    probe = _Probe(
        db, case, "command",
        "--host", "healthy", "--host", "stuck-exec", "--host", "dead",
        "--ssh-config", str(fleet.ssh_config), "--known-hosts", str(fleet.known_hosts),
        "--connect-timeout", "13", "--timeout", "60",
        "--", "echo", "ok",
    )  # fmt: skip
    first = probe.next_line()
    assert "on healthy" in first, first
    # the other two are hung: one waiting for its exec reply, one in the banner wait
    wait_until(lambda: fleet.hung.interface.exec_requests >= 1, what="stuck-exec asked to exec")
    wait_until(lambda: fleet.silent.accepted >= 1, what="dead was dialled")
    code, took, err = probe.interrupt()
    assert code == 130, err
    assert took < 1.0 + SLACK_S, f"took {took:.2f}s to answer Ctrl-C"
    assert "Traceback" not in err, err
    assert "interrupted: 1 finished run(s) recorded; 2 cancelled" in err, err
    assert "stuck-exec: cancelled" in err and "dead: cancelled" in err, err
    runs = {run["host"]: run for run in _probe_runs(db, case)}
    assert set(runs) == {"healthy", "stuck-exec", "dead"}
    assert runs["healthy"]["exit_status"] == 0 and "error" not in runs["healthy"]
    for host in ("stuck-exec", "dead"):
        assert "cancelled (Ctrl-C)" in runs[host]["error"], runs[host]
        assert runs[host].get("exit_status") is None
    assert len(probe.out) == 3  # a record line for each host, the cancelled ones included


@pytest.mark.ssh
def test_a_host_that_never_answers_exec_no_longer_hangs_the_probe(db: Path, fleet: Fleet) -> None:
    case = _new_case(db)
    start = time.monotonic()
    done = _casefile(
        db, "probe", case, "command", "--json",
        "--host", "healthy", "--host", "stuck-exec",
        "--ssh-config", str(fleet.ssh_config), "--known-hosts", str(fleet.known_hosts),
        "--connect-timeout", "2", "--timeout", "90",
        "--", "echo", "ok",
    )  # fmt: skip
    # ~3.5 s with the interpreter's start: bounded by the 2 s connect timeout, not the 90 s
    assert time.monotonic() - start < 30
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    by_host = {line["host"]: line for line in lines}
    assert by_host["healthy"]["ok"] is True and by_host["healthy"]["status"] == "ok"
    assert by_host["stuck-exec"]["ok"] is False and by_host["stuck-exec"]["status"] == "failed"
    assert by_host["stuck-exec"]["error_kind"] == "exec_timeout"
    assert lines[0]["host"] == "healthy"  # recorded as it landed, before the hung host's
    runs = {run["host"]: run for run in _probe_runs(db, case)}
    assert "did not start the command" in runs["stuck-exec"]["error"]


# --- locally ----------------------------------------------------------------------------------


def test_ctrl_c_locally_records_the_run_as_cancelled_and_says_so(db: Path, tmp_path: Path) -> None:
    case = _new_case(db)
    started = tmp_path / "started"
    probe = _Probe(
        db, case, "command", "--", "sh", "-c", f"echo partial; touch {started}; exec sleep 60"
    )
    wait_until(started.exists, what="the probe started")
    code, took, err = probe.interrupt()
    assert code == 130, err
    assert took < 1.0 + SLACK_S, f"took {took:.2f}s to answer Ctrl-C"
    assert "Traceback" not in err
    assert "localhost: cancelled (Ctrl-C)" in err, err
    assert "interrupted: 0 finished run(s) recorded; 1 cancelled" in err, err
    (run,) = _probe_runs(db, case)
    assert "cancelled (Ctrl-C)" in run["error"]
    export = tmp_path / "export"
    assert _casefile(db, "export", case, str(export)).returncode == 0
    assert (export / "artifacts" / run["stdout_artifact"]).read_bytes() == b"partial\n"


# --- probe --json, exact bytes, truncation ------------------------------------------------------


def test_probe_json_gives_each_hosts_seqs_and_the_raw_bytes_are_kept(
    cli: CLI, tmp_path: Path
) -> None:
    case = cli("new", "bytes").out.strip()
    result = cli("probe", case, "command", "--json", "--", "printf", "caf\\303\\251 \\377\\n")
    assert result.code == 0, result.err
    (line,) = [json.loads(text) for text in result.out.splitlines()]
    assert line["host"] == "localhost" and line["ok"] is True and line["status"] == "ok"
    assert line["seqs"][:2] == [line["probe_run_seq"], line["observation_seq"]]
    assert line["truncated"] == []
    events = json.loads(cli("log", case, "--json").out)
    ran = events[line["probe_run_seq"] - 1]
    assert ran["type"] == "probe.ran"
    assert [e["seq"] for e in events[1:]] == line["seqs"]
    raw = b"caf\xc3\xa9 \xff\n"
    assert ran["payload"]["stdout_artifact"] == hashlib.sha256(raw).hexdigest()
    exported = tmp_path / "exported"
    assert cli("export", case, str(exported)).code == 0
    assert (exported / "artifacts" / ran["payload"]["stdout_artifact"]).read_bytes() == raw


def test_a_runaway_probe_is_recorded_with_its_truncated_byte_counts(cli: CLI) -> None:
    case = cli("new", "runaway").out.strip()
    result = cli("probe", case, "command", "--json", "--timeout", "1", "--", "yes")
    assert result.code == 1  # timed out: a failed run, recorded
    (line,) = [json.loads(text) for text in result.out.splitlines()]
    assert line["timed_out"] is True and line["status"] == "failed"
    (cut,) = line["truncated"]
    assert cut["stream"] == "stdout" and cut["total_bytes"] > 4 * 1024 * 1024
    assert cut["head_bytes"] + cut["tail_bytes"] == 4 * 1024 * 1024
    assert cut["omitted_bytes"] == cut["total_bytes"] - 4 * 1024 * 1024
    assert "stdout truncated: printed" in result.err
    events = json.loads(cli("log", case, "--json").out)
    observation = events[line["observation_seq"] - 1]["payload"]
    assert any("stdout truncated" in problem for problem in observation["problems"])


# -- SIGTERM (timeout, systemd, a CI that cancels a job) ends it as Ctrl-C does, exit 143 ----


def _pids_with(marker: str) -> list[int]:
    """Processes whose command line holds ``marker`` (Linux's /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and process_running(int(entry)):
            found.append(int(entry))
    return found


def test_sigterm_ends_the_command_and_records_it_cancelled_with_its_output(
    tmp_path: Path,
) -> None:
    db = tmp_path / "term.db"
    made = _casefile(db, "new", "SIGTERM")
    assert made.returncode == 0, made.stderr
    case = made.stdout.strip()
    marker = f"casefile-sigterm-{uuid.uuid4().hex}"
    # the command starts a grandchild too: the whole group must go (it prints first, so that
    # once both are seen running the output is already in casefile's pipe)
    script = (
        "import subprocess, sys, time\n"
        "print('partial output before the end', flush=True)\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', '{marker}'])\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [str(CASEFILE), "probe", case, "command", "--", sys.executable, "-c", script, marker],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(db),
        preexec_fn=default_signals,
    )
    try:
        wait_until(lambda: len(_pids_with(marker)) >= 2, what="the command and its child")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.returncode != 143:  # the old way left the command running: do not leak it
            for pid in _pids_with(marker):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert "terminated (SIGTERM): 0 finished run(s) recorded; 1 cancelled" in err, err
    wait_until(lambda: not _pids_with(marker), what="the command's process group ending")
    log = _casefile(db, "log", case, "--json")
    events: list[dict[str, Any]] = json.loads(log.stdout)
    runs = [e["payload"] for e in events if e["type"] == "probe.ran"]
    assert len(runs) == 1, out
    run = runs[0]
    assert "cancelled (SIGTERM)" in json.dumps(run), run
    shown = _casefile(
        db, "show", case, str(next(e["seq"] for e in events if e["type"] == "probe.ran"))
    )
    assert "partial output before the end" in shown.stdout, shown.stdout
