"""`casefile probe` and SIGTERM (sent by ``timeout``, systemd, a CI that cancels a job): the
probe's command is ended with its whole process group, the run is recorded as cancelled with
the output it had, and casefile exits 143, as Ctrl-C does with 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from tests.signals import default_signals
from tests.waiting import PROCESS_S, WAIT_S, process_running, wait_until

CASEFILE = Path(sys.executable).with_name("casefile")


def _env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CASEFILE_DB"}
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
