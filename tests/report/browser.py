"""A real Chromium, headless, driven over the DevTools protocol on a pipe (no port, no extra
Python package): load a file, record every network request and console message, screenshot
it, print it to PDF and measure its layout. Chromium is started so that it makes no request
of its own (a temporary profile, background networking and component updates off, every host
name unresolvable).

Also a tiny PNG reader (zlib only) for the screenshots.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")

QUIET_FLAGS = (
    "--headless",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
    "--metrics-recording-only",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--disable-gpu",
    "--hide-scrollbars",
    "--mute-audio",
    "--enable-logging=stderr",
    "--v=0",
)


def find_chromium() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class Page:
    """What one load of a page did: its requests, console and log messages."""

    requests: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # errors and warnings, with their source


class DevTools:
    """One Chromium process and one page, spoken to over ``--remote-debugging-pipe``."""

    def __init__(self, binary: str, profile: Path) -> None:
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()
        flags = [*QUIET_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe"]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")  # Chromium refuses to start its sandbox as root
        # the protocol is on fds 3 (commands in) and 4 (replies out) of the browser
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_child} 4>&{from_child}', binary, *flags],
            pass_fds=(to_child, from_child),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None
        self.stderr = ""

    def _send(self, method: str, params: dict[str, Any] | None, session: str | None) -> int:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        return self._next

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False
    ) -> dict[str, Any]:
        ident = self._send(method, params, None if browser else self.session)
        deadline = time.monotonic() + 60
        while True:
            message = self._receive(deadline)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def wait_for(self, method: str, timeout: float = 60) -> dict[str, Any]:
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline)
            if message.get("method") == method:
                return message
            if "method" in message:
                self.events.append(message)

    def open_page(self) -> None:
        target = self.call("Target.createTarget", {"url": "about:blank"}, browser=True)
        attached = self.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, browser=True
        )
        self.session = attached["sessionId"]
        for domain in ("Network", "Log", "Runtime", "Page"):
            self.call(f"{domain}.enable")

    def close(self) -> None:
        with suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close", browser=True)
        try:
            _, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        os.close(self._write)
        os.close(self._read)
        self.stderr = err.decode("utf-8", "replace")

    def page_record(self) -> Page:
        page = Page()
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                page.requests.append(params["request"]["url"])
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                page.console.append(f"log: {params['entry'].get('text')}")
            elif method == "Runtime.consoleAPICalled":
                page.console.append(f"console.{params.get('type')}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                page.console.append(f"exception: {params.get('exceptionDetails')}")
        return page

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page (the test's own code, never the report's)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate failed: {result['exceptionDetails']}")
        return result["result"].get("value")


@contextmanager
def chromium(binary: str) -> Iterator[DevTools]:
    with tempfile.TemporaryDirectory(prefix="casefile-chromium-") as profile:
        tools = DevTools(binary, Path(profile))
        try:
            tools.open_page()
            yield tools
        finally:
            tools.close()


def screenshot(
    tools: DevTools, x: float, y: float, width: float, height: float, scale: float
) -> bytes:
    shot = tools.call(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": x, "y": y, "width": width, "height": height, "scale": scale},
        },
    )
    return base64.b64decode(shot["data"])


# --- PNG ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    channels: int
    rows: list[bytes]

    def pixels(self) -> Iterator[tuple[int, ...]]:
        c = self.channels
        for row in self.rows:
            for i in range(0, len(row), c):
                yield tuple(row[i : i + c])


def read_png(data: bytes) -> Image:
    """8-bit RGB or RGBA PNGs (what Chromium writes), decoded with zlib alone."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytes(stride)
    for r in range(height):
        start = r * (stride + 1)
        filter_type = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        if filter_type == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif filter_type == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous, strict=True))
        elif filter_type == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif filter_type == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xFF
        previous = bytes(line)
        rows.append(previous)
    return Image(width, height, channels, rows)
