"""Entry point: build the parser, dispatch, and turn errors into one line and an exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from casefile import __version__
from casefile.errors import CasefileError


def build_parser() -> argparse.ArgumentParser:
    from casefile.cli import case_commands, probe_commands, reasoning_commands

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="URL",
        help="database URL or SQLite path (default: $CASEFILE_DB, else a file in your data dir)",
    )
    parser = argparse.ArgumentParser(
        prog="casefile",
        description="An event-sourced investigation log and hypothesis tracker.",
    )
    parser.add_argument("--version", action="version", version=f"casefile {__version__}")
    parser.add_argument("--db", default=None, metavar="URL", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    case_commands.register(sub, common)
    reasoning_commands.register(sub, common)
    probe_commands.register(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # Everything after a bare `--` is a command line to run (casefile probe C P -- ARGV…),
    # passed through untouched: never re-parsed, never joined into a shell string.
    command: list[str] = []
    if "--" in words:
        cut = words.index("--")
        words, command = words[:cut], words[cut + 1 :]
    parser = build_parser()
    args = parser.parse_args(words)
    if command:
        if not hasattr(args, "argv"):
            parser.error("only `casefile probe` takes a command after --")
        args.argv = command
    if not hasattr(args, "db"):
        args.db = None
    try:
        code: int = args.handler(args)
        return code
    except CasefileError as error:
        print(f"casefile: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("casefile: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
