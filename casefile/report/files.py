"""A report as the files it is written to: rendered whole in memory, every name checked, then
each file replaced in one rename, so a failure leaves no half-written report, chart or map, and
a name that is not a regular file is refused before any file is written (see
:mod:`casefile.app.files`). Shared by ``casefile report`` and the TUI's export."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.app.files import writable_mode, write_regular_file
from casefile.errors import CasefileError
from casefile.report.digest import MARK

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
    _refuse_one_name_twice([path for path, _, _ in named])
    charts = {chart_name(path) for path, _ in files}
    for path, _, _ in named:
        writable_mode(path)
        if path in charts:
            _refuse_clobbering(path)
    for path, data, private in named:
        write_regular_file(path, data, private=private)


def _refuse_one_name_twice(paths: Sequence[Path]) -> None:
    """The report, its chart and the map are different files: one written over another would
    lose it (``-o r.md --redact-map r.svg`` lost the map to the chart)."""
    seen: dict[str, Path] = {}
    for path in paths:
        key = os.path.realpath(path)
        if key in seen:
            raise CasefileError(
                f"cannot write {path}: two of the report, its chart and the redaction map "
                "would be that one file; name another"
            )
        seen[key] = path


#: What marks an SVG file as a chart casefile wrote: the digest every report file now ends
#: with, or, before it, the chart's opening element.
_OURS = (MARK.encode("ascii"), b'<svg xmlns="http://www.w3.org/2000/svg" class="trajectory"')
_CHART_LIMIT = 16 * 1024 * 1024


def _refuse_clobbering(chart: Path) -> None:
    """A Markdown report's chart is written beside it under a name the user did not give: an
    existing file there is replaced only if it is a chart casefile wrote (an earlier run of the
    same report), never a file of the user's (``-o keep.md`` beside their ``keep.svg``)."""
    try:
        with chart.open("rb") as existing:
            head = existing.read(_CHART_LIMIT + 1)
    except FileNotFoundError:
        return
    except OSError as error:
        raise CasefileError(f"cannot write {chart}: {error.strerror or error}") from None
    if len(head) <= _CHART_LIMIT and any(mark in head for mark in _OURS):
        return
    raise CasefileError(
        f"refusing to write the chart {chart}: a file that casefile did not write is there "
        "(move it, or give -o another name)"
    )


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
