"""Entry point: build the parser, dispatch, and turn errors into one line and an exit code."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from casefile import __version__
from casefile.cli.terminal import say, terminal_safe
from casefile.errors import CasefileError

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class Parser(argparse.ArgumentParser):
    """argparse, with what it prints (usage errors quote the words given) made terminal-safe;
    its subcommand parsers are of the same class."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        super()._print_message(terminal_safe(message), file)


def build_parser() -> argparse.ArgumentParser:
    from casefile.cli import case_commands, probe_commands, reasoning_commands

    common = Parser(add_help=False)
    common.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="URL",
        help="database URL or SQLite path (default: $CASEFILE_DB, else a file in your data dir)",
    )
    parser = Parser(
        prog="casefile",
        description="An event-sourced investigation log and hypothesis tracker.",
    )
    parser.add_argument("--version", action="version", version=f"casefile {__version__}")
    parser.add_argument("--db", default=None, metavar="URL", help=argparse.SUPPRESS)
    # (the subcommand parsers are Parsers too: argparse makes them of the parent's class)
    sub = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command", required=True, metavar="COMMAND"),
    )
    case_commands.register(sub, common)
    reasoning_commands.register(sub, common)
    probe_commands.register(sub, common)
    return parser


def _subcommand(words: Sequence[str]) -> str | None:
    """The first positional word (the subcommand), skipping the top-level options."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--db":
            skip = True  # its value is the next word
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    # For `casefile probe`, everything after the first bare `--` is the command line to run
    # (casefile probe C P -- ARGV…), passed through untouched: never re-parsed, never joined
    # into a shell string. Every other command leaves `--` to argparse, where it ends the
    # options as usual (casefile note C -- "-5 °C reading").
    command: list[str] | None = None
    if _subcommand(words) == "probe" and "--" in words:
        cut = words.index("--")
        words, command = words[:cut], words[cut + 1 :]
    parser = build_parser()
    args = parser.parse_args(words)
    if command:
        args.argv = command
    validate = getattr(args, "validate", None)
    if validate is not None:
        validate(args)
    if not hasattr(args, "db"):
        args.db = None
    collecting = gc.isenabled()
    # not for a follower or a probe: both may run for minutes, and SSH sessions make cycles
    if collecting and not getattr(args, "follow", False) and args.command != "probe":
        # A one-shot command builds a fold of long-lived objects that form no cycles and then
        # exits: the cyclic collector would only rescan them (a tenth of a second on a big
        # case). Reference counting frees everything else.
        gc.disable()
    try:
        return _run(args)
    finally:
        if collecting:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    try:
        code: int = args.handler(args)
        return code
    except CasefileError as error:
        say(f"casefile: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        say("casefile: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def program() -> int:
    """The ``casefile`` executable: :func:`main`, then the heap frozen out of the collector's
    reach, so the interpreter's collection at shutdown does not walk a fold about to be
    thrown away (a tenth of a second on a big case)."""
    code = main()
    gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(program())
