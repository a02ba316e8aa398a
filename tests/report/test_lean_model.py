"""A report is built without what its output does not show: the facts rows (a million on a
100,000-event case, the largest part of the model) only for the facts export and redaction, and
the trajectory's confidences read from the fold's snapshots when asked for, not copied onto
every step. The documents come out the same bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.views.report_sources import build_report_sources
from casefile.domain.beliefs import project
from casefile.report import (
    EXPORTS,
    FORMATS,
    ReportOptions,
    build_report,
    needs_facts,
    redact_report,
    render,
)
from casefile.report import build as build_module
from tests.cli.conftest import CLI
from tests.report.cases import REFERENCE, REFERENCE_ID, service_with


def test_a_report_without_its_facts_renders_the_same_documents() -> None:
    service, case_id = service_with(REFERENCE)
    whole = build_report(service, case_id, ReportOptions())
    lean = build_report(service, case_id, ReportOptions(facts=False))
    assert whole.facts and lean.facts is None
    for fmt in (*FORMATS, "timeline-csv", "timeline-jsonl"):
        assert render(lean, fmt) == render(whole, fmt), fmt
    with pytest.raises(ValueError, match="facts"):
        render(lean, "facts-csv")
    with pytest.raises(ValueError, match="facts"):
        redact_report(lean)
    # redaction learns names from the facts: asked for, they are built whatever the option
    redacted = build_report(service, case_id, ReportOptions(redact=True, facts=False))
    assert render(redacted, "md") == render(redact_report(whole)[0], "md")


def test_only_the_facts_export_and_redaction_need_the_facts() -> None:
    assert [fmt for fmt in (*FORMATS, *EXPORTS) if needs_facts(fmt, redact=False)] == ["facts-csv"]
    assert all(needs_facts(fmt, redact=True) for fmt in (*FORMATS, *EXPORTS))


def test_the_cli_builds_the_facts_only_where_they_are_read(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("import", str(REFERENCE)).code == 0
    built: list[str] = []
    original = build_module.build_facts

    def spy(src: object) -> object:
        built.append("facts")
        return original(src)  # type: ignore[arg-type]

    monkeypatch.setattr(build_module, "build_facts", spy)
    for args, facts in (
        (("-o", str(tmp_path / "r.md")), 0),
        (("-o", str(tmp_path / "r.html")), 0),
        (("--format", "timeline-csv", "-o", str(tmp_path / "t.csv")), 0),
        (("--format", "facts-csv", "-o", str(tmp_path / "f.csv")), 1),
        (("--redact", "-o", str(tmp_path / "redacted.md")), 1),
    ):
        built.clear()
        done = cli("report", REFERENCE_ID, *args)
        assert done.code == 0, done.err
        assert len(built) == facts, args


def test_the_trajectory_leaves_the_folds_snapshots_as_they_were() -> None:
    """Reading every step's confidences computes them from the step's snapshot and keeps no
    copy on it (one per snapshot was about 80 MB at 100,000 events)."""
    service, case_id = service_with(REFERENCE)
    projection = project(service.reader.events(case_id))
    steps = projection.trajectory
    # the snapshots the fold itself asked for (the leaders' paths) keep what they kept
    cached = {id(s) for step in steps for s in step.snapshots.values() if s._confidences}
    sources = build_report_sources(case_id, projection, (), None)
    for view, step in zip(sources.trajectory, steps, strict=True):
        for qid, snap in step.snapshots.items():
            assert view.confidences[qid] == snap.structure.node_confidences(
                [w / snap.total for w in snap.weights]
            )
    after = {id(s) for step in steps for s in step.snapshots.values() if s._confidences}
    assert after == cached
