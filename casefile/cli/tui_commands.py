"""``casefile tui [CASE]``: the terminal UI, opened on a case or on the case list; and
``casefile demo``: the bundled reference case, imported if need be, opened in it."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from casefile.cli.terminal import say

if TYPE_CHECKING:
    from casefile.app.service import CaseService


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("tui", parents=[common], help="the terminal UI (a case, or the case list)")
    p.add_argument("case", nargs="?", help="case id, unique prefix, or case directory")
    _tui_options(p)
    p.set_defaults(handler=cmd_tui, at=None)

    p = sub.add_parser(
        "demo",
        parents=[common],
        help="open the bundled reference case in the terminal UI (imported first if missing)",
        description=(
            "Import the bundled reference case (glm5-pcie-pivot: an 8-GPU server believed "
            "PCIe-bound until one measurement showed the link nearly idle) into the database "
            "casefile uses (--db, CASEFILE_DB, the config file, else the data directory) when "
            "it is not there, and open it in the terminal UI. An identical copy already there "
            "is just opened; a different case under that id is left as it is and opened."
        ),
    )
    p.add_argument(
        "--no-tui",
        action="store_true",
        help="only import (or find) the case and print its id; no terminal needed",
    )
    _tui_options(p)
    p.set_defaults(handler=cmd_demo, at=None)


def _tui_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--read-only", action="store_true", help="watch: every write action disabled")
    p.add_argument("--actor", default=None, help="who the TUI's events are recorded as")


#: Textual's driver for a TUI served to a browser (textual-serve sets it for the process)
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def _refuse_without_terminal(hint: str = "") -> bool:
    """Say so and return True unless stdin, stdout and stderr are all a terminal, or the TUI
    is to speak Textual's web protocol over pipes (``casefile serve`` runs it so)."""
    if sys.stdin.isatty() and sys.stdout.isatty() and sys.stderr.isatty():
        return False
    if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER:
        return False
    # (Textual draws on stderr: redirected, the screen would go into the file)
    say(
        "casefile: error: the terminal UI needs a terminal "
        f"(stdin, stdout and stderr must all be one){hint}",
        file=sys.stderr,
    )
    return True


def cmd_tui(args: argparse.Namespace) -> int:
    if _refuse_without_terminal():
        return 2
    from casefile.app.opening import open_case, open_service

    if args.case is None:
        return _run_tui(args, open_service(args.db), None)
    opened = open_case(args.case, args.db)
    return _run_tui(args, opened.service, opened.case_id)


def cmd_demo(args: argparse.Namespace) -> int:
    if not args.no_tui and _refuse_without_terminal("; --no-tui imports the case only"):
        return 2
    from casefile.app.opening import open_service
    from casefile.app.reference import install_reference_case

    service = open_service(args.db)
    try:
        reference = install_reference_case(service)
    except BaseException:
        service.close()
        raise
    remark = reference.remark(service.library.location())
    if remark is not None:
        say(f"casefile: {remark}", file=sys.stderr)
    if args.no_tui:
        service.close()
        say(reference.case_id)
        return 0
    return _run_tui(args, service, reference.case_id)


def _run_tui(args: argparse.Namespace, service: CaseService, case_id: str | None) -> int:
    from casefile.app.probing import SshOptions
    from casefile.cli.config import load_config
    from casefile.cli.parsing import who
    from casefile.tui import make_app

    actor = who(args).actor
    config = load_config()  # the probe dialog connects as `casefile probe` would
    ssh = SshOptions(
        ssh_config=config.ssh_config,
        known_hosts=config.ssh_known_hosts,
        connect_timeout_s=config.ssh_connect_timeout or 10.0,
    )
    app = make_app(service, case_id, actor=actor, read_only=args.read_only, ssh=ssh)
    app.run()
    return app.return_code or 0
