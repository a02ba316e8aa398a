"""``casefile mcp``: a Model Context Protocol server over stdio, on the official ``mcp`` SDK.

One service over the database stays open for the server's life, so a case's session stays
folded between calls (a status on a big case folds only what is new). Service calls run one at
a time: on the event loop's thread, except a probe that runs a command, which runs on a worker
thread so that a cancelled request can stop it. Stdout carries
protocol messages only; logs go to stderr, one line each, never a traceback.

Every write is stamped with the actor: the client's name and version from the initialize
handshake (or ``--actor``), followed by ``via mcp``, so the log, the replay and the report
say that an agent wrote it and through which door.
"""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casefile import __version__
from casefile.app.probing import SshOptions
from casefile.app.who import Who
from casefile.errors import CasefileError
from casefile.mcp import reads
from casefile.mcp.schemas import check_arguments
from casefile.mcp.tools import TOOLS, ToolSpec
from casefile.mcp.writes import Caller

if TYPE_CHECKING:
    from collections.abc import Callable

    import mcp.types as types
    from mcp.server.context import ServerRequestContext

    from casefile.app.probing import CancelToken
    from casefile.app.service import CaseService

log = logging.getLogger("casefile.mcp")

#: what every actor this server stamps ends with: the door the event came through
CHANNEL = "via mcp"
#: the URI scheme of a case's resources: casefile://CASE/log, casefile://CASE/report.md
SCHEME = "casefile://"
_RESOURCES = {"log": "text/plain", "report.md": "text/markdown"}
#: the protocol's error code for a resource that does not exist
RESOURCE_NOT_FOUND = -32002

INSTRUCTIONS = (
    "casefile keeps an investigation's log and tells you what you have not measured. Record "
    "what you do (note, act), what you suspect (hypothesis_add) and what you see "
    "(probe_paste, evidence_add); read status before you believe anything, and measure a "
    "'never measured' leader before you build on it. conclude is refused while the root cause "
    "is unmeasured or the runner-up is within a factor of two."
)


def actor_of(client: Any, given: str | None) -> str:
    """``NAME/VERSION via mcp`` from the handshake's client info, or ``GIVEN via mcp``."""
    if given:
        name = given
    elif client is not None and getattr(client, "name", None):
        version = getattr(client, "version", "") or ""
        name = f"{client.name}/{version}" if version else str(client.name)
    else:
        name = "mcp-client"
    name = "".join(ch if ch.isprintable() else "?" for ch in name)[:200]
    return f"{name} {CHANNEL}"


def one_line(error: BaseException) -> str:
    """An error as the one line a tool result carries (a remedy named as the argument)."""
    text = " ".join(str(error).split()) or type(error).__name__
    remedy = getattr(error, "remedy", None)
    if remedy is not None and remedy.option:
        text += f"; {remedy.option}: true {remedy.does}"
    elif remedy is not None and remedy.place == "cases":
        text += "; list_cases shows the cases"
    return text


class Casefile:
    """The server's state: the service, whose turn it is, what the caller may do."""

    def __init__(
        self,
        open_service: Callable[[], CaseService],
        actor: str | None,
        allow_run: bool,
        ssh: SshOptions | None = None,
        output_dir: Path | None = None,
    ):
        self._open = open_service
        #: where report and export may write: the working directory the server started in
        self.output_dir = (output_dir or Path.cwd()).resolve()
        self.ssh = ssh or SshOptions()
        self._service: CaseService | None = None
        self.actor = actor
        self.allow_run = allow_run
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="casefile-mcp")
        self.running: set[CancelToken] = set()
        self.turn = asyncio.Lock()

    def service(self) -> CaseService:
        if self._service is None:
            self._service = self._open()
        return self._service

    async def run(self, work: Callable[[], Any], *, away: bool = False) -> Any:
        """``work`` on the service, one call at a time: here on the loop's thread (a read or
        a write that runs nothing: milliseconds, and no thread to hand over to), or ``away``
        on the worker thread (a command that may run for minutes, which a cancelled request
        must still reach). The turn passes on only when the work is done, even if the
        request that asked for it was cancelled."""
        await self.turn.acquire()
        if not away:
            try:
                return work()
            finally:
                self.turn.release()
        future = asyncio.get_running_loop().run_in_executor(self.worker, work)
        future.add_done_callback(self._done)
        return await asyncio.shield(future)

    def _done(self, future: asyncio.Future[Any]) -> None:
        self.turn.release()
        if not future.cancelled():
            future.exception()  # a cancelled request's outcome is read here, not left unread

    def close(self) -> None:
        for token in list(self.running):
            token.cancel()
        self.worker.submit(self._close).result()
        self.worker.shutdown(wait=True)

    def _close(self) -> None:
        if self._service is not None:
            self._service.close()

    async def call(
        self, ctx: ServerRequestContext[Any], name: str, arguments: dict[str, Any]
    ) -> Any:
        tool = TOOLS.get(name)
        if tool is None:
            raise CasefileError(f"no tool {name!r}")
        check_arguments(tool.schema, arguments)
        client = ctx.session.client_params
        who = Who(actor_of(None if client is None else client.client_info, self.actor))
        return await self._answer(tool, who, arguments)

    async def _answer(self, tool: ToolSpec, who: Who, arguments: dict[str, Any]) -> Any:
        from casefile.app.probing import CancelToken

        cancel = CancelToken() if tool.runs_commands else None
        if cancel is not None:
            self.running.add(cancel)

        def work() -> Any:
            caller = Caller(self.service(), who, self.allow_run, cancel, self.ssh, self.output_dir)
            try:
                return tool.answer(caller, arguments)
            finally:
                caller.service.flush()

        try:
            return await self.run(work, away=tool.runs_commands)
        except asyncio.CancelledError:
            if cancel is not None:
                cancel.cancel()  # a command still running stops within about a second
            raise
        finally:
            if cancel is not None:
                self.running.discard(cancel)


def build_server(state: Casefile) -> Any:
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
    from mcp.types.jsonrpc import INTERNAL_ERROR

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(spec) for spec in TOOLS.values()])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            answer = await state.call(ctx, params.name, dict(params.arguments or {}))
        except CasefileError as error:
            log.info("%s: %s", params.name, one_line(error))
            return _error(one_line(error))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug: one line for the agent, one on stderr
            log.error("%s failed: %s: %s", params.name, type(error).__name__, one_line(error))
            return _error(f"internal error: {type(error).__name__}: {one_line(error)}")
        text = reads.cap(json.dumps(answer, ensure_ascii=False, default=str))
        return types.CallToolResult(content=[types.TextContent(text=text)])

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        rows = await _protocol(lambda: state.service().library.cases())
        resources = [
            types.Resource(uri=f"{SCHEME}{row.id}/{part}", name=f"{row.id} {part}", mime_type=mime)
            for row in rows
            for part, mime in _RESOURCES.items()
        ]
        return types.ListResourcesResult(resources=resources)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=f"{SCHEME}{{case}}/{part}", name=f"case {part}", mime_type=mime
                )
                for part, mime in _RESOURCES.items()
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        reference, _, part = uri.removeprefix(SCHEME).partition("/")
        if not uri.startswith(SCHEME) or part not in _RESOURCES:
            raise MCPError(
                RESOURCE_NOT_FOUND,
                f"no resource {uri!r}: casefile://CASE/log or casefile://CASE/report.md",
            )

        def read() -> str:
            service = state.service()
            case_id = service.library.resolve(reference)
            if part == "log":
                return reads.log_text(service, case_id)
            return reads.report_markdown(service, case_id)

        text = await _protocol(read)
        mime = _RESOURCES[part]
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    async def _protocol(work: Callable[[], Any]) -> Any:
        """``work`` on the service's thread; its failure as a protocol error of one line."""
        try:
            return await state.run(work)
        except CasefileError as error:
            raise MCPError(RESOURCE_NOT_FOUND, one_line(error)) from None
        except Exception as error:  # a bug: one line for the client, one on stderr
            log.error("resource failed: %s: %s", type(error).__name__, one_line(error))
            raise MCPError(INTERNAL_ERROR, f"internal error: {one_line(error)}") from None

    server = Server(
        "casefile",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )
    server.middleware.clear()  # no tracing spans per message: nothing here exports them
    return server


def _tool(spec: ToolSpec) -> types.Tool:
    import mcp.types as types

    annotations = types.ToolAnnotations(
        title=spec.title,
        read_only_hint=spec.read_only,
        destructive_hint=None if spec.read_only else False,
        open_world_hint=spec.runs_commands,
    )
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.schema,
        annotations=annotations,
    )


def _error(text: str) -> types.CallToolResult:
    import mcp.types as types

    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def serve(
    open_service: Callable[[], CaseService],
    actor: str | None,
    allow_run: bool,
    ssh: SshOptions | None = None,
    output_dir: Path | None = None,
) -> int:
    """Serve one client over stdin/stdout until it goes away."""
    from mcp.server.stdio import stdio_server

    state = Casefile(open_service, actor, allow_run, ssh, output_dir)
    server = build_server(state)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        asyncio.run(main())
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    except Exception as error:  # the transport failed (a client gone mid-message)
        log.warning("the client went away: %s", one_line(error))
    finally:
        state.close()
    return 0
