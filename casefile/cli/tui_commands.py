"""``casefile tui [CASE]``: the terminal UI, opened on a case or on the case list."""

from __future__ import annotations

import argparse
import sys

from casefile.cli.terminal import say


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("tui", parents=[common], help="the terminal UI (a case, or the case list)")
    p.add_argument("case", nargs="?", help="case id, unique prefix, or case directory")
    p.add_argument("--read-only", action="store_true", help="watch: every write action disabled")
    p.add_argument("--actor", default=None, help="who the TUI's events are recorded as")
    p.set_defaults(handler=cmd_tui, at=None)


def cmd_tui(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty() and sys.stderr.isatty()):
        # (Textual draws on stderr: redirected, the screen would go into the file)
        say(
            "casefile: error: tui needs a terminal (stdin, stdout and stderr must all be one)",
            file=sys.stderr,
        )
        return 2
    from casefile.app.opening import open_case, open_service
    from casefile.cli.parsing import who
    from casefile.tui import make_app

    actor = who(args).actor
    if args.case is None:
        service = open_service(args.db)
        app = make_app(service, None, actor=actor, read_only=args.read_only)
    else:
        opened = open_case(args.case, args.db)
        app = make_app(opened.service, opened.case_id, actor=actor, read_only=args.read_only)
    app.run()
    return app.return_code or 0
