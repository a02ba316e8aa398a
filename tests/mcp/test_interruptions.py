"""A cancelled request and a client that goes away mid-call: the server stops the command,
writes nothing partial, says nothing but one line on stderr (never a traceback) and nothing but
protocol on stdout; without the SDK installed, ``casefile mcp`` says so in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from casefile.app.opening import open_service
from tests.mcp.client import CASEFILE, serve
from tests.waiting import PROCESS_S, WAIT_S, wait_until


def probe_events(db: str) -> list[str]:
    with open_service(db) as service:
        return [event.type for event in service.reader.events("c1", after=1)]


async def until(condition: object, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "still not so"
        await anyio.sleep(0.05)


def slow_command(mark: Path) -> list[str]:
    return ["sh", "-c", f"touch {mark}; sleep 60"]


async def test_a_cancelled_request_stops_the_command_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'casefile.db'}"
    mark = tmp_path / "started"
    async with serve(db, "--allow-run") as s:
        await s.call("case_new", title="Slow decode", case_id="c1")
        scope = anyio.CancelScope()
        started = time.monotonic()

        async def call() -> None:
            with scope:
                await s.session.call_tool(
                    "probe_run", {"case": "c1", "probe": "command", "command": slow_command(mark)}
                )

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await until(mark.exists)
            scope.cancel()
        # the command stops (it would sleep a minute); the run is recorded whole, as cancelled
        await until(lambda: probe_events(db) != [])
        assert time.monotonic() - started < 50
        assert (await s.call("status", case="c1"))["case"] == "c1"
    kinds = probe_events(db)
    assert kinds[0] == "probe.ran" and "probe.ran" not in kinds[1:]
    with open_service(db) as service:
        run = service.reader.events("c1", after=1)[0]
    assert run.payload.get("cancelled") or run.payload.get("error"), run.payload
    assert "Traceback" not in s.stderr


def test_a_client_gone_mid_call_leaves_no_traceback(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'casefile.db'}"
    mark = tmp_path / "started"
    with open_service(db) as service:
        service.writer.new_case("Slow decode", case_id="c1")
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LATEST_HANDSHAKE_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "gone-agent", "version": "0.1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "probe_run",
                "arguments": {"case": "c1", "probe": "command", "command": slow_command(mark)},
            },
        },
    ]
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    server = subprocess.Popen(
        [CASEFILE, "mcp", "--db", db, "--allow-run"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    for message in messages:
        server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()
    wait_until(mark.exists, what="the probe's command started")
    server.stdin.close()  # the client goes away mid-call
    server.stdin = None
    try:
        out, err = server.communicate(timeout=PROCESS_S)
    finally:
        server.kill()
    assert server.returncode == 0, err
    assert b"Traceback" not in err, err
    for line in out.decode().splitlines():  # stdout: protocol messages only
        assert json.loads(line)["jsonrpc"] == "2.0"
    kinds = probe_events(db)
    assert kinds.count("probe.ran") <= 1  # nothing partial: no run, or one whole


def test_without_the_sdk_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    (blocker / "mcp").mkdir(parents=True)
    (blocker / "mcp" / "__init__.py").write_text("raise ImportError('no mcp here')\n")
    env = {**os.environ, "PYTHONPATH": str(blocker), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "casefile", "mcp", "--db", f"sqlite:///{tmp_path / 'x.db'}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=PROCESS_S,
        check=False,
    )
    assert done.returncode == 1
    assert (
        done.stderr
        == "casefile: error: casefile mcp needs the MCP SDK: pip install 'casefile[mcp]'\n"
    )
    assert done.stdout == ""
