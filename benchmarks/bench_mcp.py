"""Benchmark the MCP server's ``status`` tool against the service call it answers with.

status   the ``status`` tool on a 10,000-event case (``bench_engine.synthetic_case``, resealed
         as in ``bench_commands.py``), timed at the client: the SDK's ``ClientSession`` over
         stdio to a ``casefile mcp`` subprocess, vs ``CaseService.reader.status(case)`` called in
         this process on a service opened the same way (``open_service``), each warmed by one
         call first. Rounds alternate the two, so noise on a shared machine hits both alike.
         Target: median(client) ≤ 1.5 × median(in process) + 5 ms, over 50 rounds. It holds
         only if the server keeps its case session folded between calls.

Run: ``.venv/bin/python benchmarks/bench_mcp.py [--rounds 50] [--events 10000]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.siblings import sibling

CASE = "bench-mcp"


def bench_commands() -> ModuleType:
    """``benchmarks/commands_harness.py``, the command benchmarks' case-building helpers."""
    return sibling("commands_harness")


def build(url: str, events: int) -> None:
    from casefile.domain.events import sha256_hex
    from casefile.store.sql import SqlEventStore

    commands = bench_commands()
    digest = sha256_hex(commands.ARTIFACT)
    store = SqlEventStore(url)
    try:
        store.import_case(commands.sealed_case(CASE, events, digest), {digest: commands.ARTIFACT})
    finally:
        store.close()


async def measure(url: str, rounds: int) -> tuple[list[float], list[float]]:
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from casefile.app.opening import open_service

    casefile = str(Path(sys.executable).with_name("casefile"))
    params = StdioServerParameters(command=casefile, args=["mcp", "--db", url])
    service = open_service(url)
    client: list[float] = []
    local: list[float] = []
    try:
        async with stdio_client(params) as (read, write):
            info = types.Implementation(name="bench", version="1")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()

                async def call() -> Any:
                    result = await session.call_tool("status", {"case": CASE})
                    assert not result.is_error, result.content
                    return result

                await call()
                service.reader.status(CASE)
                for _ in range(rounds):
                    start = time.perf_counter()
                    await call()
                    client.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    service.reader.status(CASE)
                    local.append(time.perf_counter() - start)
    finally:
        service.close()
    return client, local


def main() -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--events", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="casefile-bench-mcp-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        start = time.perf_counter()
        build(url, args.events)
        print(f"built a {args.events}-event case in {time.perf_counter() - start:.1f} s")
        client, local = anyio.run(measure, url, args.rounds)
    over_stdio = statistics.median(client) * 1000
    in_process = statistics.median(local) * 1000
    limit = 1.5 * in_process + 5
    verdict = "ok" if over_stdio <= limit else "OVER"
    print(
        f"status, {args.events} events, median of {args.rounds}: client over stdio "
        f"{over_stdio:.1f} ms, in process {in_process:.1f} ms "
        f"({over_stdio / in_process:.2f}×; target ≤ 1.5× + 5 ms = {limit:.1f} ms): {verdict}"
    )
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
