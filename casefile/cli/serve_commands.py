"""``casefile serve CASE``: the case's TUI, read-only, in a browser on this machine (through
textual-serve, the ``serve`` extra); a teammate elsewhere reaches it through ``ssh -L``."""

from __future__ import annotations

import argparse
import sys

from casefile.cli.terminal import say

#: the default port (textual-serve's own)
PORT = 8000


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "serve",
        parents=[common],
        help="serve a case's TUI read-only to a browser on 127.0.0.1 (the serve extra)",
        description="Serve CASE's terminal UI, read-only, to a web browser at "
        "http://127.0.0.1:PORT, behind an access token printed at start. Only 127.0.0.1 is "
        "served: from another machine, forward the port, e.g. `ssh -L 8000:127.0.0.1:8000 "
        "HOST`, and open the printed URL. Needs the serve extra (pip install 'casefile[serve]').",
    )
    p.add_argument("case", help="case id or unique prefix")
    p.add_argument("--port", type=int, default=PORT, help=f"port to listen on (default {PORT})")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on: 127.0.0.1, the only one taken"
    )
    p.set_defaults(handler=cmd_serve, at=None)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from casefile.tui.serve import CaseServer, check_host, new_token, tui_command
    except ImportError as error:
        say(
            f"casefile: error: serve needs the serve extra ({error.name} is missing): "
            "pip install 'casefile[serve]'",
            file=sys.stderr,
        )
        return 2
    try:
        check_host(args.host)
    except ValueError as error:
        say(f"casefile: error: {error}", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        say(f"casefile: error: no port {args.port}", file=sys.stderr)
        return 2
    from casefile.app.opening import looks_like_path, open_case

    if looks_like_path(args.case):
        say(
            "casefile: error: serve takes a case in the database (import a directory first)",
            file=sys.stderr,
        )
        return 2
    with open_case(args.case, args.db) as opened:  # the case must exist before serving it
        case_id = opened.case_id
    server = CaseServer(
        tui_command(case_id, args.db),
        port=args.port,
        token=new_token(),
        title=f"casefile: {case_id} (read-only)",
    )
    server.serve()
    return 0
