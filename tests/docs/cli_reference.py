"""docs/cli.md, the CLI reference, generated from the argument parser (its one home): every
command and subcommand, its arguments and options with their help, choices and defaults.

Rendered from the parser's actions rather than argparse's own help text, whose wrapping
follows the terminal's width and changes between Python versions. Regenerate with
``.venv/bin/python -m tests.docs.cli_reference --write``; ``test_cli_reference.py`` fails while
the file differs from what this prints.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from casefile.cli.main import build_parser

TARGET = Path(__file__).resolve().parents[2] / "docs" / "cli.md"

HEADER = """# CLI reference

Generated from casefile's argument parser by `tests/docs/cli_reference.py` (a test fails when
this file and the parser disagree: regenerate it with
`.venv/bin/python -m tests.docs.cli_reference --write`). `casefile COMMAND --help` prints the
same. Options every command takes, left out below: `--db URL` (the database; default
`$CASEFILE_DB`, else the config file's, else a file in your data directory), `-v`/`-vv`/`-q`,
`--color auto|always|never` and `--no-pager`. How the commands fit together:
[user-guide.md](user-guide.md).
"""


#: the options every command takes (said once, in the header)
COMMON = frozenset({"--db", "--color", "--no-pager", "--verbose", "--quiet"})


def _subparsers(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    sub = _subparsers(parser)
    if sub is None:
        return
    helps = {choice.dest: choice.help or "" for choice in sub._choices_actions}
    for name, child in sub.choices.items():
        if name not in helps:  # an alias
            continue
        yield (*words, name), child, helps[name]
        yield from _commands(child, (*words, name))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _names(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    metavar = ""
    if action.nargs != 0:
        if isinstance(action.metavar, str):
            metavar = f" {action.metavar}"
        elif action.choices is not None:
            metavar = " {" + ",".join(str(c) for c in action.choices) + "}"
        else:
            metavar = f" {action.dest.upper()}"
    return ", ".join(f"`{option}{metavar}`" for option in action.option_strings)


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        values = {**vars(action), "prog": "casefile"}
        with contextlib.suppress(KeyError, TypeError, ValueError):
            text = text % values
    if action.choices is not None and not action.option_strings:
        text += f" (one of: {', '.join(str(c) for c in action.choices)})"
    return _cell(text)


def reference() -> str:
    parser = build_parser()
    out = [HEADER]
    for words, command, summary in _commands(parser, ()):
        out.append(f"## casefile {' '.join(words)}\n")
        if summary:
            out.append(
                f"{_cell(summary)}.\n" if not summary.endswith(".") else f"{_cell(summary)}\n"
            )
        if command.usage:
            out.append(f"`{_cell(command.usage)}`\n")
        if command.description and command.description != summary:
            out.append(f"{_cell(command.description)}\n")
        rows = [
            (_names(action), _help(action))
            for action in command._actions
            if action.help != argparse.SUPPRESS
            and not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
            and not COMMON.intersection(action.option_strings)
        ]
        sub = _subparsers(command)
        if sub is not None:
            subcommands = ", ".join(f"`{name}`" for name in sub.choices)
            out.append(f"Subcommands: {subcommands}.\n")
        if rows:
            out.append("| argument | meaning |\n|---|---|")
            out.extend(f"| {names} | {meaning} |" for names, meaning in rows)
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    text = reference()
    if "--write" in sys.argv[1:]:
        TARGET.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
