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


def test_redaction_reaches_the_case_id_in_exports_and_record_lines(
    cli: CLI, tmp_path: Path
) -> None:
    """A case named after its host and its responder: under ``--redact`` the exports' ``case``
    key and the command lines that record a missing postmortem section carry the pseudonymised
    id, as the documents do; nothing anywhere names the host or the person."""
    case = "inference-07-dave"
    assert cli("new", "slow decode", "--id", case, "--actor", "dave").code == 0
    output = tmp_path / "uname.txt"
    output.write_text("Linux inference-07 6.1.0 #1 SMP x86_64 GNU/Linux\n")
    ran = cli(
        "probe",
        case,
        "command",
        "--paste",
        str(output),
        "--host",
        "inference-07",
        "--",
        "uname",
        "-a",
    )
    assert ran.code == 0, ran.err
    assert cli("note", case, "fans on inference-07 look fine", "--actor", "dave").code == 0
    for fmt in ("md", "html", "json", *EXPORTS):
        plain, redacted = (
            _written(cli, case, fmt, tmp_path / f"{name}-{fmt}" / f"r.{fmt}", *extra)
            for name, extra in (("plain", ()), ("redacted", ("--redact",)))
        )
        assert "inference-07" not in redacted, fmt
        assert "inference-07" in plain or fmt == "facts-csv", fmt  # (a command gives no facts)
        assert "dave" not in redacted, fmt
        if fmt == "timeline-jsonl":
            ids = {json.loads(line)["case"] for line in redacted.splitlines()}
            assert ids == {"host-1-user-1"}
        if fmt == "md":
            assert "casefile postmortem section host-1-user-1 impact TEXT" in redacted


def _written(cli: CLI, case: str, fmt: str, path: Path, *extra: str) -> str:
    """A document or an export (a Markdown report writes its chart beside it)."""
    path.parent.mkdir()
    done = cli("report", case, "--format", fmt, "-o", str(path), *extra)
    assert done.code == 0, done.err
    return path.read_text(encoding="utf-8") + "".join(
        chart.read_text(encoding="utf-8") for chart in path.parent.glob("*.svg")
    )
