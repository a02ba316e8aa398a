"""``-v`` and ``-q``: how much of what casefile and its libraries log reaches stderr.

By default casefile's warnings do (a change feed that lost its server, say) and the SSH
library stays silent. ``-v`` adds what casefile and the SSH library say as they work (which
host key was checked, the SSH handshake: "Connected (version 2.0, client OpenSSH_9.6)",
"Authentication (publickey) successful!"); ``-vv`` their debugging detail; ``-q`` keeps only
errors. Each record is one line, prefixed ``casefile:`` and made terminal-safe: a server's
banner is data, never an escape sequence. The handler lasts as long as the command.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from casefile.cli.terminal import terminal_safe


class _SafeFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = " ".join(record.getMessage().split())  # one line, whatever the library wrote
        return terminal_safe(f"casefile: {record.name}: {text}")


def level_for(verbose: int, quiet: bool) -> int | None:
    """The level ``-v``/``-q`` ask for; None: the default (warnings and above)."""
    if quiet:
        return logging.ERROR
    if verbose >= 2:
        return logging.DEBUG
    return logging.INFO if verbose == 1 else None


@contextmanager
def logging_to_stderr(verbose: int, quiet: bool) -> Iterator[None]:
    """For one command: casefile's loggers (and with ``-v`` paramiko's) write to stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_SafeFormatter())
    level = level_for(verbose, quiet)
    names = ["casefile"] + (["paramiko"] if verbose else [])
    saved = []
    for name in names:
        logger = logging.getLogger(name)
        saved.append((logger, logger.level))
        logger.addHandler(handler)
        if level is not None:
            logger.setLevel(level)
    try:
        yield
    finally:
        for logger, before in saved:
            logger.removeHandler(handler)
            logger.setLevel(before)
