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
    from casefile.cli.config import load_config
    from casefile.cli.parsing import who
    from casefile.tui import make_app
    from casefile.tui.dialogs.probe import SshOptions

    actor = who(args).actor
    config = load_config()  # the probe dialog connects as `casefile probe` would
    ssh = SshOptions(
        ssh_config=config.ssh_config,
        known_hosts=config.ssh_known_hosts,
        connect_timeout_s=config.ssh_connect_timeout or 10.0,
    )
    options = {"actor": actor, "read_only": args.read_only, "ssh": ssh}
    if args.case is None:
        app = make_app(open_service(args.db), None, **options)
    else:
        opened = open_case(args.case, args.db)
        app = make_app(opened.service, opened.case_id, **options)
    app.run()
    return app.return_code or 0
