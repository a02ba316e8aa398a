"""A program in a real terminal, driven as a person would: tmux with send-keys and
capture-pane. One private tmux server per :class:`Terminal`, killed when it closes."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping

from tests.waiting import WAIT_S, wait_until

#: tmux starts a whole terminal and the program its interpreter: a loaded machine is slow.
SCREEN_S = WAIT_S


class Terminal:
    """One tmux session, ``width`` × ``height``, running ``command`` (a string tmux hands to
    the shell: build it with :func:`shlex.join`)."""

    def __init__(self, name: str) -> None:
        self.session = name
        self.tmux = ["tmux", "-L", f"casefile-test-{os.getpid()}-{name}", "-f", os.devnull]

    def start(
        self, command: str, env: Mapping[str, str], *, width: int = 160, height: int = 45
    ) -> None:
        subprocess.run(
            [
                *self.tmux,
                "new-session",
                "-d",
                "-s",
                self.session,
                *self._size(width, height),
                command,
            ],
            env=dict(env),
            check=True,
            timeout=WAIT_S,
        )

    @staticmethod
    def _size(width: int, height: int) -> list[str]:
        return ["-x", str(width), "-y", str(height)]

    def screen(self) -> str:
        return subprocess.run(
            [*self.tmux, "capture-pane", "-p", "-t", self.session],
            capture_output=True,
            text=True,
            check=False,
            timeout=WAIT_S,
        ).stdout

    def wait_for(self, text: str, timeout: float = SCREEN_S) -> str:
        """The screen once it shows ``text``; fails with the screen as it was at the end."""
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{shown}")

    def keys(self, *sent: str) -> None:
        subprocess.run(
            [*self.tmux, "send-keys", "-t", self.session, *sent], check=True, timeout=WAIT_S
        )

    def running(self) -> bool:
        alive = subprocess.run(
            [*self.tmux, "has-session", "-t", self.session],
            capture_output=True,
            check=False,
            timeout=WAIT_S,
        )
        return alive.returncode == 0

    def wait_gone(self, timeout: float = SCREEN_S) -> None:
        """Until the program has ended (and with it the session)."""
        wait_until(lambda: not self.running(), timeout, interval=0.2, what="the program ending")

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, check=False, timeout=60)
