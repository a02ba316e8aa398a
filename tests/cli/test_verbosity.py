"""``-v``/``-q``: what casefile logs reaches stderr as one terminal-safe line per record, at
the level asked for, and only while the command runs."""

from __future__ import annotations

import logging

import pytest

from casefile.cli.logs import level_for, logging_to_stderr

LOG = logging.getLogger("casefile.test")


def test_warnings_by_default_info_with_v_errors_only_with_q(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for verbose, quiet, shown in ((0, False, {"w"}), (1, False, {"i", "w"}), (0, True, set())):
        with logging_to_stderr(verbose, quiet):
            LOG.info("i")
            LOG.warning("w")
        err = capsys.readouterr().err
        assert {line.rsplit(" ", 1)[-1] for line in err.splitlines()} == shown, (verbose, quiet)
    assert level_for(2, False) == logging.DEBUG and level_for(3, True) == logging.ERROR


def test_a_logged_escape_sequence_is_shown_as_text_on_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with logging_to_stderr(1, False):
        LOG.info("banner \x1b]0;owned\x07 line one\nline two")
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and err.count("\n") == 1
    assert err.startswith("casefile: casefile.test: banner ")


def test_the_handler_and_level_go_when_the_command_ends(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = logging.getLogger("casefile").level, list(logging.getLogger("casefile").handlers)
    with logging_to_stderr(2, False):
        pass
    after = logging.getLogger("casefile").level, list(logging.getLogger("casefile").handlers)
    assert after == before
    assert logging.getLogger("paramiko").level == logging.NOTSET
