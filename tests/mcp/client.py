"""A scripted MCP client for the tests: the SDK's own client spawning ``casefile mcp``.

:func:`session` starts the server over stdio with the SDK's ``stdio_client`` and yields an
initialized ``ClientSession``; :func:`call` returns a tool's answer as JSON, or its one-line
error as :class:`ToolError`; what the server wrote on stderr is kept for the tests to read.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

CASEFILE = str(Path(sys.executable).with_name("casefile"))
#: generous: a loaded 2-core machine, five times over
TIMEOUT_S = 120.0


class ToolError(Exception):
    """A tool answered with is_error: its one line."""


class Server:
    """The client side of one ``casefile mcp`` process, and its stderr."""

    def __init__(self, session: ClientSession, stderr: Path, home: str) -> None:
        self.session = session
        self.stderr_path = stderr
        #: the server's HOME (and XDG folders)
        self.home = Path(home)
        #: what the server wrote on stderr, kept once it has stopped (its file is removed)
        self.kept: str | None = None

    @property
    def stderr(self) -> str:
        if self.kept is not None:
            return self.kept
        return self.stderr_path.read_text(errors="replace")

    async def call(self, name: str, **arguments: Any) -> Any:
        result = await self.session.call_tool(name, arguments, read_timeout_seconds=TIMEOUT_S)
        text = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
        if result.is_error:
            raise ToolError(text)
        return json.loads(text)


@asynccontextmanager
async def serve(
    db: str | None,
    *args: str,
    client: tuple[str, str] = ("scripted-agent", "1.0"),
    env: dict[str, str] | None = None,
    home: str | None = None,
) -> AsyncIterator[Server]:
    """``casefile mcp --db DB ARGS…`` (no ``--db`` for None) with the SDK's client,
    initialized as ``client``; ``home`` is its HOME and XDG config and data directory."""
    made = None if home else tempfile.mkdtemp(prefix="casefile-mcp-home-")
    home = home or made
    assert home is not None
    environment = {
        "HOME": home,
        "XDG_CONFIG_HOME": home,
        "XDG_DATA_HOME": home,
        "PATH": os.environ.get("PATH", ""),
        **(env or {}),
    }
    params = StdioServerParameters(
        command=CASEFILE,
        args=["mcp", *(["--db", db] if db is not None else []), *args],
        env=environment,
    )
    server: Server | None = None
    with tempfile.NamedTemporaryFile("w+", suffix=".stderr", delete=False) as errlog:
        stderr = Path(errlog.name)
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                info = types.Implementation(name=client[0], version=client[1])
                async with ClientSession(read, write, client_info=info) as session:
                    await session.initialize()
                    server = Server(session, stderr, home)
                    yield server
        finally:
            # the server has stopped: what it wrote is kept for the test to read after the
            # block, and nothing of it is left in the temporary folder (a run of the tests
            # left about thirty homes and as many stderr files there)
            if server is not None:
                server.kept = stderr.read_text(errors="replace")
            stderr.unlink(missing_ok=True)
            if made is not None:
                shutil.rmtree(made, ignore_errors=True)
