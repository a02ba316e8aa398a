"""The options every command shares keep their defaults whatever a command sets.

``common``'s actions are shared by every subcommand parser made with ``parents=[common]``, so a
``set_defaults`` of one of them through any one subcommand changes it for all of them: the MCP
command once set ``no_pager`` that way and every command stopped paging on a terminal.
"""

from __future__ import annotations

import argparse

import pytest

from casefile.cli.main import build_parser

SHARED = ("db", "color", "no_pager", "verbose", "quiet")


def _commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found.append((*words, name))
                found.extend(_commands(child, (*words, name)))
    return found


COMMANDS = _commands(build_parser())


def test_there_are_commands_to_check() -> None:
    assert ("status",) in COMMANDS and ("mcp",) in COMMANDS and len(COMMANDS) > 20


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_no_command_changes_a_shared_option_default(words: tuple[str, ...]) -> None:
    parser = build_parser()
    child: argparse.ArgumentParser = parser
    for word in words:
        child = next(
            a for a in child._actions if isinstance(a, argparse._SubParsersAction)
        ).choices[word]
    for action in child._actions:
        if action.dest in SHARED:
            assert action.default is argparse.SUPPRESS, (words, action.dest, action.default)
