"""``casefile serve``: the case's TUI, read-only, in headless Chromium through textual-serve on
127.0.0.1, behind the token printed at start; the page loads nothing from elsewhere, and any
other address is refused with one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.report import browser
from tests.report.browser import chromium, find_chromium
from tests.waiting import WAIT_S, wait_until

pytest.importorskip("textual_serve")
BINARY = find_chromium()
needs_chromium = pytest.mark.skipif(BINARY is None, reason="Chromium is not installed")

#: collects what the page's terminal is sent, as text (escape sequences blanked): the page
#: draws the terminal on a canvas, so its text is read where it arrives
CAPTURE = """
(() => {
  const Native = window.WebSocket;
  window.__terminalText = "";
  window.WebSocket = function (url, protocols) {
    const socket = new Native(url, protocols);
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") return;
      const text = new TextDecoder().decode(new Uint8Array(event.data));
      window.__terminalText += text.replace(/\\x1b\\[[0-9;?<>=]*[ -\\/]*[@-~]/g, " ");
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
})();
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


@pytest.fixture
def served(db_url: str, tmp_path: Path) -> Iterator[tuple[str, int]]:
    """``casefile serve`` on the reference case: (the URL it printed, its port). It runs in an
    empty directory, which it leaves empty (it writes no file: no log, no download)."""
    port = free_port()
    here = tmp_path / "served-from"
    here.mkdir()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TZ": "UTC"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "casefile",
            "serve",
            "glm5-pcie-pivot",
            "--db",
            db_url,
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=here,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "http://127.0.0.1:" in line, line
        url = line[line.index("http://") :].split()[0]
        wait_until(lambda: _listening(port), what="casefile serve never listened")
        yield url, port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert list(here.iterdir()) == []


@needs_chromium
def test_the_browser_shows_the_hypothesis_tree_read_only(
    served: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, port = served
    # every name still resolves to nothing, but the loopback address is reachable
    flags = tuple(
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
        if flag.startswith("--host-resolver-rules=")
        else flag
        for flag in browser.QUIET_FLAGS
    )
    monkeypatch.setattr(browser, "QUIET_FLAGS", flags)
    assert "token=" in url
    assert BINARY is not None
    with chromium(BINARY) as tools:
        tools.call("Page.addScriptToEvaluateOnNewDocument", {"source": CAPTURE})
        tools.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + WAIT_S
        text = ""
        while "compute-launch" not in text or "What limits throughput?" not in text:
            if time.monotonic() > deadline:
                record = tools.page_record()
                raise AssertionError(
                    f"no hypothesis tree in the page's terminal: {text[-2000:]!r} "
                    f"requests {[r[:80] for r in record.requests]} console {record.console}"
                )
            time.sleep(0.25)
            text = tools.evaluate("window.__terminalText") or ""
        assert "READ-ONLY" in text.upper() or "read-only" in text
        requests = tools.page_record().requests
    assert requests, "the page requested nothing"
    local = (f"http://127.0.0.1:{port}/", f"ws://127.0.0.1:{port}/")
    assert [r for r in requests if not r.startswith(local) and not r.startswith("data:")] == []


def test_without_the_token_nothing_is_served(served: tuple[str, int]) -> None:
    _url, port = served
    for path in ("/", "/ws", "/static/js/textual.js", "/?token=wrong"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=WAIT_S)
        assert refused.value.code == 403


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1", "localhost"])
def test_any_other_address_is_refused_with_one_line(db_url: str, host: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "casefile",
            "serve",
            "glm5-pcie-pivot",
            "--db",
            db_url,
            "--host",
            host,
        ],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "127.0.0.1 only" in done.stderr and "ssh -L" in done.stderr
