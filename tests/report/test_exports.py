"""Exports a team uses elsewhere (issue 25, "What to build" 3): the timeline as CSV and as JSON
Lines in Timesketch's import shape, the facts as CSV, each parsed back here; ``--redact``
applies to them as to the report."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path

import pytest

from casefile.report import EXPORTS, ReportOptions, build_report
from tests.cli.conftest import CLI
from tests.report.cases import REFERENCE, REFERENCE_ID, service_with

HOST = "inference-vm"  # the reference case's host


@pytest.fixture
def imported(cli: CLI) -> str:
    done = cli("import", str(REFERENCE))
    assert done.code == 0, done.err
    return REFERENCE_ID


def _export(cli: CLI, case: str, fmt: str, path: Path, *extra: str) -> str:
    done = cli("report", case, "--format", fmt, "-o", str(path), *extra)
    assert done.code == 0, done.err
    assert not path.with_suffix(".svg").exists()  # no chart beside an export
    return path.read_bytes().decode("utf-8")


def test_the_timeline_as_csv(cli: CLI, imported: str, tmp_path: Path) -> None:
    text = _export(cli, imported, "timeline-csv", tmp_path / "t.csv")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    service, case_id = service_with(REFERENCE)
    report = build_report(service, case_id, ReportOptions())
    assert len(rows) == len(report.timeline) and rows
    assert [r["event"] for r in rows] == [t.ref.label for t in report.timeline]
    pivot = next(r for r in rows if r["seq"] == "29")
    assert "pivot" in pivot["message"]
    assert pivot["datetime"] == "2026-03-02T09:51:00.000000+00:00"
    assert "casefile-report-digest" not in text  # a CSV reader would take it for a row


def test_the_timeline_in_timesketchs_shape(cli: CLI, imported: str, tmp_path: Path) -> None:
    text = _export(cli, imported, "timeline-jsonl", tmp_path / "t.jsonl")
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines and all(line.keys() >= {"message", "datetime", "timestamp_desc"} for line in lines)
    for line in lines:
        assert datetime.fromisoformat(line["datetime"]).utcoffset() is not None
        assert line["message"] and line["case"] == imported
    assert [line["seq"] for line in lines] == sorted(line["seq"] for line in lines)


def test_the_facts_as_csv(cli: CLI, imported: str, tmp_path: Path) -> None:
    text = _export(cli, imported, "facts-csv", tmp_path / "f.csv")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    service, case_id = service_with(REFERENCE)
    folded = service.reader.report_sources(case_id).fold.observations
    assert len(rows) == sum(len(o.get("facts", ())) for o in folded.values()) > 0
    first = rows[0]
    assert (first["seq"], first["name"], first["value"]) == ("28", "driver_version", "590.44.01")
    assert first["host"] == HOST and "load=under-load" in first["conditions"]


@pytest.mark.parametrize("fmt", EXPORTS)
def test_redact_applies_to_every_export(cli: CLI, imported: str, tmp_path: Path, fmt: str) -> None:
    plain = _export(cli, imported, fmt, tmp_path / "plain.out")
    assert HOST in plain
    redacted = _export(cli, imported, fmt, tmp_path / "r.out", "--redact")
    assert HOST not in redacted


def test_a_cell_a_spreadsheet_would_run_is_made_text(cli: CLI, tmp_path: Path) -> None:
    assert cli("new", "x", "--id", "c1").code == 0
    assert cli("note", "c1", '=HYPERLINK("http://127.0.0.1/","x")').code == 0
    assert cli("note", "c1", "-3.5").code == 0
    text = _export(cli, "c1", "timeline-csv", tmp_path / "t.csv")
    messages = [r["message"] for r in csv.DictReader(io.StringIO(text, newline=""))]
    assert '\'=HYPERLINK("http://127.0.0.1/","x")' in messages
    assert "-3.5" in messages  # a number stays a number


def test_the_tui_export_takes_a_jsonl_name(tmp_path: Path) -> None:
    from casefile.actions.output_actions import WriteReport

    assert WriteReport(str(tmp_path / "t.jsonl")).fmt == "timeline-jsonl"
    assert WriteReport(str(tmp_path / "t.csv"), "facts-csv").fmt == "facts-csv"
    with pytest.raises(ValueError, match="timeline-csv"):
        WriteReport(str(tmp_path / "t.csv"))
