"""A report as the files it is written to: rendered whole in memory, every name checked, then
each file replaced in one rename, so a failure leaves no half-written report, chart or map, and
a name that is not a regular file is refused before any file is written (see
:mod:`casefile.app.files`). Shared by ``casefile report`` and the TUI's export."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.app.files import writable_mode, write_regular_file

if TYPE_CHECKING:
    from casefile.report.model import Report


def chart_name(output: Path) -> Path:
    """Where a Markdown report's chart goes: beside it, named after it."""
    stem = output.stem if output.suffix.lower() != ".svg" else f"{output.stem}-chart"
    return output.with_name(f"{stem}.svg")


def write_report_files(
    files: Sequence[tuple[Path, bytes]], redact_map: tuple[Path, bytes] | None = None
) -> None:
    """Write a report's files, and the redaction map readable by its owner only (it maps every
    pseudonym back to the host, user or address it hides).

    Every name is checked before the first file is written: a refused chart or map must not
    leave the other files written. Each is then written by
    :func:`~casefile.app.files.write_regular_file`, which checks its name again.
    """
    named = [(path, data, False) for path, data in files]
    if redact_map is not None:
        named.insert(0, (*redact_map, True))
    for path, _, _ in named:
        writable_mode(path)
    for path, data, private in named:
        write_regular_file(path, data, private=private)


def report_files(report: Report, fmt: str, target: Path | None) -> list[tuple[Path | None, bytes]]:
    """(path, bytes) for everything to write, all rendered before anything is written; a
    ``None`` path (and ``target``) is standard output, which gets no chart file."""
    from casefile.report import render, render_chart

    chart = chart_name(target) if fmt == "md" and target is not None else None
    files: list[tuple[Path | None, bytes]] = []
    if chart is not None:
        files.append((chart, render_chart(report)))
    files.append((target, render(report, fmt, chart_file=None if chart is None else chart.name)))
    return files
