"""Where one command's output goes: colour on or off per stream, and a pager when it is long.

:func:`session` wraps the run of one command. Colour is decided first, on the real streams
(:func:`casefile.cli.colour.wanted`), then the pager (if any) takes ``sys.stdout`` over, so
that what a command prints reaches it unchanged and in colour when the terminal would have had
colour.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TextIO

from casefile.cli import colour
from casefile.cli.pager import Pager, pager_argv

#: commands whose output may be long enough to page (as they read, without options)
PAGED_COMMANDS = frozenset({"log", "cases", "status", "replay", "show", "graph", "plugins"})
#: (command, action) pairs likewise
PAGED_ACTIONS = frozenset({("hypothesis", "show"), ("hypothesis", "list"), ("question", "list")})


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def wants_pager(args: argparse.Namespace, stream: TextIO) -> bool:
    """Whether this command's output is paged: a command that can print a lot, to a terminal,
    not following a case and not run with ``--no-pager``."""
    command = (getattr(args, "command", None), getattr(args, "action", None))
    if command[0] not in PAGED_COMMANDS and command not in PAGED_ACTIONS:
        return False
    if getattr(args, "no_pager", False) or getattr(args, "follow", False):
        return False
    return _isatty(stream)


@contextmanager
def session(
    args: argparse.Namespace,
    *,
    configured_color: str | None = None,
    configured_pager: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Iterator[None]:
    """Run one command's printing with colour and paging set up, and undone afterwards."""
    env = os.environ if environ is None else environ
    out, err = sys.stdout, sys.stderr
    flag = getattr(args, "color", None)
    colour_out = colour.wanted(flag, configured_color, env, out)
    colour_err = colour.wanted(flag, configured_color, env, err)
    pager = None
    if wants_pager(args, out):
        argv = pager_argv(env, configured_pager)
        if argv is not None:
            pager = Pager.start(argv, out, env)
    if pager is not None:
        sys.stdout = pager.stream
    coloured = [sys.stdout] if colour_out else []
    colour.enable([*coloured, *([err] if colour_err else [])])
    try:
        yield
    finally:
        colour.enable([])
        if pager is not None:
            sys.stdout = out
            pager.finish()
