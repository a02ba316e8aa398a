"""The installed ``casefile tui`` in a real terminal (tmux), driven as a person would: open the
reference case, step back past the pivot and see pcie-bound lead, add a note, quit; the note is
then in ``casefile log``. Also: without a terminal, ``casefile tui`` says so and exits 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tmux import Terminal
from tests.tui.conftest import CASE, REFERENCE

CASEFILE = Path(sys.executable).with_name("casefile")

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def run(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[tuple[Terminal, dict[str, str]]]:
    env = {
        **os.environ,
        "CASEFILE_DB": f"sqlite:///{tmp_path / 'tmux.db'}",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "CASEFILE_ACTOR": "tmux-user",
        "TERM": "xterm-256color",
        "TZ": "UTC",
    }
    assert run(str(CASEFILE), "import", str(REFERENCE), env=env).returncode == 0
    tui = Terminal("tui")
    yield tui, env
    tui.close()


def test_a_person_replays_past_the_pivot_and_adds_a_note(
    terminal: tuple[Terminal, dict[str, str]],
) -> None:
    tui, env = terminal
    tui.start(f"{CASEFILE} tui {CASE}", env)
    shown = tui.wait_for("★ leader compute-launch")
    assert "LIVE" in shown
    tui.keys(":")
    tui.wait_for("Jump to a step")
    tui.keys("28", "Enter")
    tui.wait_for("REPLAY at #28")
    shown = tui.wait_for("★ leader pcie-bound")  # the frame lands just after the status bar
    assert "never measured" in shown
    tui.keys("l")
    tui.wait_for("REPLAY at #29")
    tui.keys("Escape")
    tui.wait_for("LIVE")
    tui.keys("n")
    tui.wait_for("Add a note")
    tui.keys("-l", "typed in tmux: link idle under load")
    tui.wait_for("$ casefile note")
    tui.keys("C-s")
    tui.wait_for("note recorded as event 82")
    tui.keys("q")
    tui.wait_gone()
    log = run(str(CASEFILE), "log", CASE, env=env)
    assert "typed in tmux: link idle under load" in log.stdout
    assert "tmux-user" in log.stdout


def test_without_a_terminal_it_says_so_and_exits_2(
    terminal: tuple[Terminal, dict[str, str]],
) -> None:
    _tui, env = terminal
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
