"""``casefile mcp``: serve the database to an MCP client (a coding agent) over stdio.

The database is the one every command uses (``--db``, ``CASEFILE_DB``, the config file),
settled by the CLI before the server starts. The server itself lives in :mod:`casefile.mcp`
and needs the optional ``mcp`` extra.
"""

from __future__ import annotations

import argparse
import gc
from pathlib import Path

from casefile.cli.parsing import refuse_undecodable
from casefile.errors import CasefileError

#: what to install when the SDK is missing
EXTRA = "pip install 'casefile[mcp]'"


def cmd_mcp(args: argparse.Namespace) -> int:
    refuse_undecodable(args)
    try:
        import mcp.server.lowlevel  # noqa: F401
    except ImportError:
        raise CasefileError(f"casefile mcp needs the MCP SDK: {EXTRA}") from None
    from casefile.app.opening import open_service
    from casefile.app.probing import SshOptions
    from casefile.cli.config import load_config
    from casefile.mcp.server import serve

    if args.actor is not None:
        from casefile.domain.ids import actor_problem

        problem = actor_problem(args.actor)
        if problem is not None:
            raise CasefileError(f"--actor: the actor {problem}")
    gc.enable()  # a server lives long: the collector the one-shot commands pause runs here
    config = load_config()  # an agent's SSH probe connects as `casefile probe` would
    ssh = SshOptions(
        known_hosts=config.ssh_known_hosts,
        ssh_config=config.ssh_config,
        connect_timeout_s=config.ssh_connect_timeout or 10.0,
    )
    db = args.db
    output_dir = Path(args.output_dir) if args.output_dir else None
    if output_dir is not None and not output_dir.is_dir():
        raise CasefileError(f"--output-dir: {args.output_dir} is not a directory")
    return serve(lambda: open_service(db), args.actor, args.allow_run, ssh, output_dir)


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "mcp",
        parents=[common],
        help="serve the cases to an AI agent over the Model Context Protocol (stdio)",
    )
    p.add_argument(
        "--actor",
        help="who the agent's events name (default: the client's name and version); "
        "'via mcp' is added",
    )
    p.add_argument(
        "--allow-run",
        action="store_true",
        help="let the agent run probes here or over SSH (pasted output is always allowed)",
    )
    p.add_argument(
        "--output-dir",
        metavar="DIR",
        help="the only directory the agent's report and export tools write under "
        "(default: the directory the server starts in)",
    )
    # no set_defaults of a shared option here: ``common``'s actions are every command's, so a
    # default set through this parser would change it for all of them (it turned paging off)
    p.set_defaults(handler=cmd_mcp)
