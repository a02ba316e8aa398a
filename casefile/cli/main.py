"""Entry point: build the parser, dispatch, and turn errors into one line and an exit code."""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

from casefile import __version__
from casefile.cli.terminal import fit, is_unicode, say, terminal_safe
from casefile.errors import CasefileError, did_you_mean

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class Parser(argparse.ArgumentParser):
    """argparse, with what it prints (usage errors quote the words given) made terminal-safe;
    its subcommand parsers are of the same class."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        stream = sys.stderr if file is None else file
        safe = terminal_safe(message)
        super()._print_message(fit(safe, stream), file)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # a misspelt command or choice: the name it likely meant, first (built from the
        # choices themselves: argparse's own words for them differ between Python versions)
        choices = action.choices
        if choices is not None and value not in choices:
            known = [str(choice) for choice in choices]
            raise argparse.ArgumentError(
                action,
                f"invalid choice: {value!r}{did_you_mean(str(value), known)} "
                f"(choose from {', '.join(map(repr, known))})",
            )

    def error(self, message: str) -> NoReturn:
        # a value that starts with a dash ("--change --disable-custom-all-reduce") reads to
        # argparse as the next option: say how to give it
        if message.endswith("expected one argument") and message.startswith("argument --"):
            option = message.split()[1].rstrip(":").split("/")[0]
            message += f" (a value that starts with '-' is given as {option}=VALUE)"
        # one line, not argparse's usage block above it: the help is one option away
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help shows how)\n")


def build_parser() -> argparse.ArgumentParser:
    from casefile.cli import (
        case_commands,
        completion,
        db_commands,
        ingest_commands,
        mcp_commands,
        probe_commands,
        reasoning_commands,
        record_commands,
        report_commands,
        serve_commands,
        triage_commands,
        tui_commands,
    )

    common = Parser(add_help=False)
    common.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="URL",
        help="database URL or SQLite path (default: $CASEFILE_DB, else the config file's, "
        "else a file in your data dir)",
    )
    _output_options(common, default=argparse.SUPPRESS)
    parser = Parser(
        prog="casefile",
        description="An event-sourced investigation log and hypothesis tracker.",
    )
    parser.add_argument("--version", action="version", version=f"casefile {__version__}")
    parser.add_argument("--db", default=None, metavar="URL", help=argparse.SUPPRESS)
    _output_options(parser, default=None)
    # (the subcommand parsers are Parsers too: argparse makes them of the parent's class)
    sub = cast(
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command", required=True, metavar="COMMAND"),
    )
    case_commands.register(sub, common)
    reasoning_commands.register(sub, common)
    probe_commands.register(sub, common)
    tui_commands.register(sub, common)
    serve_commands.register(sub, common)
    report_commands.register(sub, common)
    ingest_commands.register(sub, common)
    record_commands.register(sub, common)
    triage_commands.register(sub, common)
    db_commands.register(sub, common)
    mcp_commands.register(sub, common)
    completion.register(sub)
    _everywhere(parser)
    return parser


def _everywhere(parser: argparse.ArgumentParser) -> None:
    """Give every command (those made without ``common`` too: plugins, parse, completion)
    ``--color`` and ``--no-pager``, so they work after any command as before it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                if any(isinstance(a, argparse._SubParsersAction) for a in child._actions):
                    _everywhere(child)
                elif "--color" not in child._option_string_actions:
                    _output_options(child, default=argparse.SUPPRESS)


def _output_options(parser: argparse.ArgumentParser, default: object) -> None:
    """``--color`` and ``--no-pager``, taken before the command or after it (the command's
    copy has no default of its own, so it never undoes one given before)."""
    from casefile.cli.colour import MODES

    parser.add_argument(
        "--color",
        "--colour",
        dest="color",
        choices=MODES,
        default=default,
        help="colour the output: auto (on a terminal, unless NO_COLOR is set), always, never",
    )
    parser.add_argument(
        "--no-pager",
        action="store_true",
        default=default if default is not None else False,
        help="never send long output through the pager",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=default if default is not None else 0,
        help="say more on stderr: what casefile and SSH do (the handshake); -vv: debugging",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=default if default is not None else False,
        help="say only errors on stderr (no warnings)",
    )


#: the commands that may run for minutes or hours, the cyclic collector on throughout:
#: the front ends and servers, a live recording, and the runs on a host (SSH sessions)
_LONG_LIVED = frozenset({"tui", "demo", "serve", "mcp", "record", "probe", "experiment"})

#: top-level options that take the next word as their value
_VALUED = frozenset({"--db", "--color", "--colour"})


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser | None = action.choices.get(name)
            return found
    return None


def _apply_config(parser: argparse.ArgumentParser) -> None:
    """The config file's defaults for ``probe``'s SSH options (a flag given still wins)."""
    from casefile.cli.config import load_config, ssh_defaults

    probe = _subparser(parser, "probe")
    defaults = ssh_defaults(load_config())
    if probe is not None and defaults:
        probe.set_defaults(**defaults)


def _settle(args: argparse.Namespace) -> None:
    """What the config file and the environment decide once the words are parsed: the
    database (``--db`` > ``CASEFILE_DB`` > the config file > the default), and the echo of
    each time given without a zone."""
    from casefile.cli.config import load_config
    from casefile.cli.parsing import assumed_local_times
    from casefile.cli.render.text import LOCAL, timestamp

    if args.db is None and not os.environ.get("CASEFILE_DB"):
        args.db = load_config().db
    for flag, value in assumed_local_times(args):
        say(
            f"casefile: {flag} {value.given} has no zone: taken as local time, "
            f"{timestamp(value, LOCAL, seconds=True)} "
            f"({timestamp(value, seconds=True)})",
            file=sys.stderr,
        )


def _subcommand(words: Sequence[str]) -> str | None:
    """The first positional word (the subcommand), skipping the top-level options."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _VALUED:
            skip = True  # its value is the next word
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word
    return None


def parse_words(parser: argparse.ArgumentParser, words: Sequence[str]) -> argparse.Namespace:
    """The command's arguments. For `casefile probe` and `casefile experiment`, everything
    after the first bare `--` is the command line to run (casefile probe C P -- ARGV…,
    casefile experiment C --run P -- ARGV…), passed through untouched: never re-parsed, never
    joined into a shell string. Every other command leaves `--` to argparse, where it ends the
    options as usual (casefile note C -- "-5 °C reading")."""
    words = list(words)
    command: list[str] | None = None
    if _subcommand(words) in ("probe", "experiment") and "--" in words:
        cut = words.index("--")
        words, command = words[:cut], words[cut + 1 :]
    args, unread = parser.parse_known_args(words)
    take = getattr(args, "take_unread", None)
    if unread and take is not None:  # a command whose positionals may follow its options
        unread = take(args, unread)
    if unread:  # said by the command's own parser, which names the command
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(unread)}")
    if command:
        args.argv = command
    return args


def _command_parser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the command ``args`` chose, down through its subcommands
    (``casefile playbook show``), so an error names the command as it was typed."""
    found = parser
    while True:
        sub = next((a for a in found._actions if isinstance(a, argparse._SubParsersAction)), None)
        name = getattr(args, sub.dest, None) if sub is not None else None
        if sub is None or name not in sub.choices:
            return found
        found = sub.choices[name]


def main(argv: Sequence[str] | None = None, *, exiting: bool = False) -> int:
    """The command ``argv`` names (default: ``sys.argv``), run; its exit code. ``exiting``:
    the process ends when this returns (the executable), so a one-shot command's heap is
    frozen rather than collected once more at the end."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["__complete"]:
        # the completion helper: answered before any parser is built, to stay fast
        from casefile.cli.completion import helper

        return helper(words[1:])
    parser = build_parser()
    if _subcommand(words) == "probe":
        try:
            _apply_config(parser)
        except CasefileError as error:
            say(f"casefile: error: {error}", file=sys.stderr)
            return 1
    args = parse_words(parser, words)
    validate = getattr(args, "validate", None)
    if validate is not None:
        validate(args)
    if not hasattr(args, "db"):
        args.db = None
    from casefile.cli.parsing import refuse_undecodable_db

    refuse_undecodable_db(args)  # every command: a --db that is not UTF-8 is a usage error
    # not for a follower, a front end, a server or a run on a host: they may run for
    # minutes or hours, and their SSH sessions and widgets make cycles to collect
    if getattr(args, "follow", False) or args.command in _LONG_LIVED:
        return _run(args)
    # A one-shot command builds a fold of long-lived objects that form no cycles and then
    # exits: the cyclic collector would only rescan them (a tenth of a second on a big
    # case). Reference counting frees everything else.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if exiting:
            # Everything allocated while paused (the modules imported, the fold) sits in
            # the youngest generation: switching the collector back on would make the next
            # allocation scan it all (55 ms after `status` of the 81-event reference case).
            # The process is ending, so that heap is frozen instead: out of reach of every
            # collection, the interpreter's last one included.
            gc.freeze()
        if collecting:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    from casefile.cli.config import load_config
    from casefile.cli.logs import logging_to_stderr
    from casefile.cli.output import session

    try:
        _settle(args)
        config = load_config()
        with (
            logging_to_stderr(args.verbose, args.quiet),
            session(args, configured_color=config.color, configured_pager=config.pager),
        ):
            return _handle(args)
    except CasefileError as error:  # the config file's, a pager setting's
        from casefile.cli.errors import error_line

        say(f"casefile: error: {error_line(error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if getattr(args, "follow", False):
            return 0  # Ctrl-C is how a follower ends, even before it began to follow
        say("casefile: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _handle(args: argparse.Namespace) -> int:
    """The command, its error as one line, printed while the output session lasts (so in
    colour on a terminal)."""
    try:
        code: int = args.handler(args)
    except CasefileError as error:
        from casefile.cli.errors import error_line

        say(f"casefile: error: {error_line(error)}", file=sys.stderr)
        return 1
    return code


def program() -> int:
    """The ``casefile`` executable: :func:`main`, then the heap frozen out of the collector's
    reach, so the interpreter's collection at shutdown does not walk a fold about to be
    thrown away (a tenth of a second on a big case)."""
    for stream in (sys.stdout, sys.stderr):
        # Whatever prints outside casefile's own functions (which fit their text to the
        # encoding) must not crash on a terminal that is not UTF-8 (LANG=C): `?` instead.
        if isinstance(stream, io.TextIOWrapper) and not is_unicode(stream.encoding):
            stream.reconfigure(errors="replace")
    try:
        code = main(exiting=True)
    except KeyboardInterrupt:  # before a command began (parsing, imports): nothing to close
        say("casefile: interrupted", file=sys.stderr)
        code = 130
    finally:  # `--version`, `--help` and a usage error leave by SystemExit: frozen too
        gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(program())
