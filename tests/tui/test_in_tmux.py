"""The installed ``casefile tui`` in a real terminal (tmux), driven as a person would: open the
reference case, step back past the pivot and see pcie-bound lead, add a note, quit; the note is
then in ``casefile log``. Also: without a terminal, ``casefile tui`` says so and exits 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.conftest import CASE, REFERENCE

CASEFILE = Path(sys.executable).with_name("casefile")
#: Generous: the machine is shared, and tmux starts a whole terminal.
SLACK_S = 30.0

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def run(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[tuple[list[str], dict[str, str]]]:
    env = {
        **os.environ,
        "CASEFILE_DB": f"sqlite:///{tmp_path / 'tmux.db'}",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "CASEFILE_ACTOR": "tmux-user",
        "TERM": "xterm-256color",
        "TZ": "UTC",
    }
    assert run(str(CASEFILE), "import", str(REFERENCE), env=env).returncode == 0
    tmux = ["tmux", "-L", f"casefile-test-{os.getpid()}", "-f", os.devnull]
    yield tmux, env
    subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)


def screen(tmux: list[str]) -> str:
    return subprocess.run(
        [*tmux, "capture-pane", "-p", "-t", "tui"], capture_output=True, text=True, check=False
    ).stdout


def wait_for(tmux: list[str], text: str) -> str:
    deadline = time.monotonic() + SLACK_S
    shown = ""
    while time.monotonic() < deadline:
        shown = screen(tmux)
        if text in shown:
            return shown
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{shown}")


def keys(tmux: list[str], *sent: str) -> None:
    subprocess.run([*tmux, "send-keys", "-t", "tui", *sent], check=True)


def test_a_person_replays_past_the_pivot_and_adds_a_note(
    terminal: tuple[list[str], dict[str, str]],
) -> None:
    tmux, env = terminal
    command = f"{CASEFILE} tui {CASE}"
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "tui", "-x", "160", "-y", "45", command],
        env=env,
        check=True,
    )
    shown = wait_for(tmux, "★ leader compute-launch")
    assert "LIVE" in shown
    keys(tmux, ":")
    wait_for(tmux, "Jump to a step")
    keys(tmux, "28", "Enter")
    wait_for(tmux, "REPLAY at #28")
    shown = wait_for(tmux, "★ leader pcie-bound")  # the frame lands just after the status bar
    assert "never measured" in shown
    keys(tmux, "l")
    wait_for(tmux, "REPLAY at #29")
    keys(tmux, "Escape")
    wait_for(tmux, "LIVE")
    keys(tmux, "n")
    wait_for(tmux, "Add a note")
    keys(tmux, "-l", "typed in tmux: link idle under load")
    wait_for(tmux, "$ casefile note")
    keys(tmux, "C-s")
    wait_for(tmux, "note recorded as event 69")
    keys(tmux, "q")
    deadline = time.monotonic() + SLACK_S
    while time.monotonic() < deadline:
        alive = subprocess.run(
            [*tmux, "has-session", "-t", "tui"], capture_output=True, check=False
        )
        if alive.returncode != 0:
            break
        time.sleep(0.2)
    log = run(str(CASEFILE), "log", CASE, env=env)
    assert "typed in tmux: link idle under load" in log.stdout
    assert "tmux-user" in log.stdout


def test_without_a_terminal_it_says_so_and_exits_2(
    terminal: tuple[list[str], dict[str, str]],
) -> None:
    _tmux, env = terminal
    done = subprocess.run(
        [str(CASEFILE), "tui", CASE],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "needs a terminal" in done.stderr
