"""A report as the files it is written to: rendered whole in memory, then each file replaced
in one rename, so a failure leaves no half-written report, chart or map. Shared by
``casefile report`` and the TUI's export."""

from __future__ import annotations

import os
import secrets
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from casefile.errors import CasefileError

if TYPE_CHECKING:
    from casefile.report.model import Report


def chart_name(output: Path) -> Path:
    """Where a Markdown report's chart goes: beside it, named after it."""
    stem = output.stem if output.suffix.lower() != ".svg" else f"{output.stem}-chart"
    return output.with_name(f"{stem}.svg")


def write_whole(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that no reader (or failure) sees half a file."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        with open(temporary, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        with suppress(OSError):
            os.unlink(temporary)
        raise CasefileError(f"cannot write {path}: {error.strerror or error}") from None


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
