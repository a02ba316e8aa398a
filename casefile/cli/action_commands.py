"""The write commands, derived from the action table: flags from each row's options, the
action parsed from them by the same rules a TUI dialog uses, run, and its value printed.

``add_rows`` makes the subcommands of a group's rows; ``action_from`` turns parsed arguments
back into the row's action (also for the commands whose parsers are written by hand,
``report``, ``intake``, ``experiment`` and ``import``, which take more than their row). A test
holds, for every row, ``action_from(parse(argv(action))) == action``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from casefile.actions.spec import ActionSpec, Option
from casefile.actions.table import ACTIONS
from casefile.actions.text import Given, InputProblem, parse
from casefile.cli.parsing import refuse_undecodable_db, text_argument, who
from casefile.cli.terminal import say
from casefile.errors import CasefileError

Handler = Callable[[argparse.Namespace], int]


def add_rows(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    group: tuple[str, ...],
    common: argparse.ArgumentParser,
    stamp: argparse.ArgumentParser,
) -> None:
    """Every row of the table whose command sits in ``group`` (``()`` for ``casefile X``,
    ``("hypothesis",)`` for ``casefile hypothesis X``), in the table's order: a new row gets
    its command with no change here."""
    for spec in ACTIONS:
        if spec.own_parser or spec.command[:-1] != group:
            continue
        p = add_action(sub, spec, [common, stamp] if spec.stamped else [common])
        check = _CHECKS.get(spec.name)
        if check is not None:
            p.set_defaults(validate=check(p))


def _rebalance_checks(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], None]:
    def check(args: argparse.Namespace) -> None:
        if args.force and not args.rebalance:
            parser.error(
                "--force only goes with --rebalance (it lets priors change after evidence)"
            )

    return check


def _paths_only(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], None]:
    del parser
    return refuse_undecodable_db


#: checks across a command's arguments that argparse cannot express (a usage error, exit 2)
_CHECKS: dict[str, Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], None]]] = {
    "hypothesis": _rebalance_checks,
    "export": _paths_only,
}


def add_action(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    spec: ActionSpec,
    parents: Sequence[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """The row's subcommand (its last command word under ``sub``)."""
    p = sub.add_parser(spec.command[-1], parents=list(parents), help=spec.help)
    if spec.on_case:
        p.add_argument("case")
    for option in spec.options:
        _add_option(p, option)
    p.set_defaults(handler=run_action(spec))
    return p


def _add_option(p: argparse.ArgumentParser, option: Option) -> None:
    shown = option.help or None
    if option.flag is None:
        p.add_argument(option.name, metavar=option.metavar, help=shown)
    elif option.kind == "switch":
        p.add_argument(option.flag, dest=option.name, action="store_true", help=shown)
    elif option.kind in ("lines", "table", "pairs"):
        p.add_argument(
            option.flag,
            dest=option.name,
            action="append",
            required=option.required,
            metavar=option.metavar,
            help=shown,
        )
    else:
        p.add_argument(
            option.flag,
            dest=option.name,
            required=option.required,
            choices=option.choices or None,
            metavar=option.metavar,
            help=shown,
        )


def action_from(
    spec: ActionSpec, args: argparse.Namespace, dests: dict[str, str] | None = None
) -> Any:
    """The row's action from parsed arguments; bad input is one line naming the flag."""
    given: dict[str, Given | bytes] = {}
    for option in spec.options:
        raw = getattr(args, (dests or {}).get(option.name, option.name), None)
        given[option.name] = _text(option, raw)
    try:
        return parse(spec, given)
    except InputProblem as problem:
        where = problem.option.flag or problem.option.name.upper()
        raise CasefileError(f"{where}: {problem}") from None
    except ValueError as error:  # a check across options (the action's own)
        raise CasefileError(str(error)) from None


def _text(option: Option, raw: object) -> Given | bytes:
    """A parsed value back to the text the rules read (hand-written parsers convert some)."""
    if option.from_file and isinstance(raw, str):
        from casefile.cli.parsing import read_input

        return read_input(raw)  # a regular file, or stdin for ``-``
    if raw is None or isinstance(raw, (bool, str)):
        if option.kind == "note" and isinstance(raw, str):
            return text_argument(raw)  # ``-``: the note is on stdin
        return raw
    if isinstance(raw, (int, float)):
        return f"{raw:g}" if isinstance(raw, float) else str(raw)
    if isinstance(raw, Sequence):
        return [f"{item[0]}={item[1]}" if isinstance(item, tuple) else str(item) for item in raw]
    return str(raw)


def run_action(spec: ActionSpec) -> Handler:
    """The handler of a row's command: open the case (or the database), run, print the value."""

    def handler(args: argparse.Namespace) -> int:
        from casefile.app.opening import open_case, open_service

        action = action_from(spec, args)
        if not spec.on_case:
            with open_service(args.db) as service:
                outcome = action.run(service, "", who(args) if spec.stamped else _nobody())
        else:
            with open_case(args.case, args.db) as opened:
                stamp = who(args) if spec.stamped else _nobody()
                outcome = action.run(opened.service, opened.case_id, stamp)
        say(outcome.value)
        for line in outcome.notes:
            say(line, file=sys.stderr)
        return 0

    return handler


def _nobody() -> Any:
    from casefile.app.who import Who

    return Who("user")


def dests_for(parser: argparse.ArgumentParser, spec: ActionSpec) -> dict[str, str]:
    """Where a hand-written parser keeps each of a row's options (``-o`` → ``output``, the
    transcript's positional ``file`` → ``path``)."""
    dests: dict[str, str] = {}
    positionals = [
        action.dest
        for action in parser._actions
        if not action.option_strings and action.dest not in ("case", "argv")
    ]
    for option in spec.options:
        if option.flag is not None and option.flag in parser._option_string_actions:
            dests[option.name] = parser._option_string_actions[option.flag].dest
        elif option.flag is None and positionals:  # the row's positionals, in their order
            dests[option.name] = positionals.pop(0)
    return dests
