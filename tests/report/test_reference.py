"""The reference case's report (issue 10): golden bytes, the same bytes every run and under any
TZ, every shipped case renders, and each section says what the seed story says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from casefile.report import FORMATS, Report, ReportOptions, build_report, render, render_chart
from tests.report.cases import REFERENCE, REFERENCE_ID, case_dirs, service_with

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "report"
UPDATE = os.environ.get("CASEFILE_UPDATE_GOLDEN") == "1"
CHART = "glm5-pcie-pivot.svg"


@pytest.fixture(scope="module")
def report() -> Report:
    service, case_id = service_with(REFERENCE)
    return build_report(service, case_id, ReportOptions())


def outputs(report: Report) -> dict[str, bytes]:
    return {
        "glm5-pcie-pivot.md": render(report, "md", chart_file=CHART),
        "glm5-pcie-pivot.html": render(report, "html"),
        CHART: render_chart(report),
    }


@pytest.mark.parametrize("name", ["glm5-pcie-pivot.md", "glm5-pcie-pivot.html", CHART])
def test_golden(report: Report, name: str) -> None:
    """Set CASEFILE_UPDATE_GOLDEN=1 to rewrite a golden after a deliberate change (and read
    the diff: it is the report every user of the reference case will see)."""
    data = outputs(report)[name]
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    assert path.read_bytes() == data, f"{name} differs from tests/golden/report/{name}"


def test_two_builds_give_the_same_bytes(report: Report) -> None:
    service, case_id = service_with(REFERENCE)
    again = build_report(service, case_id, ReportOptions())
    assert outputs(again) == outputs(report)
    assert render(again, "json") == render(report, "json")


def _cli_report(directory: Path, zone: str) -> tuple[bytes, bytes]:
    """The installed command's Markdown report and chart, in a process whose local zone is
    ``zone``, on the case directory."""
    out = directory / "glm5-pcie-pivot.md"
    env = {**os.environ, "TZ": zone, "CASEFILE_DB": f"sqlite:///{directory / 'x.db'}"}
    done = subprocess.run(
        [sys.executable, "-m", "casefile.cli.main", "report", str(REFERENCE), "-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out.read_bytes(), (directory / CHART).read_bytes()


@pytest.fixture(scope="module")
def in_utc(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    return _cli_report(tmp_path_factory.mktemp("utc"), "UTC")


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata"])
def test_same_bytes_under_any_tz(tmp_path: Path, zone: str, in_utc: tuple[bytes, bytes]) -> None:
    """(Compared with the command run under UTC rather than with the golden: the command
    discovers the installed plugins, the goldens use the built-in ones.)"""
    assert _cli_report(tmp_path, zone) == in_utc
    assert b"2026-03-02 09:51:00" in in_utc[0]  # the reference case's times, in UTC


@pytest.mark.parametrize("directory", case_dirs(), ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_shipped_case_renders(directory: Path, fmt: str) -> None:
    service, case_id = service_with(directory)
    made = build_report(service, case_id, ReportOptions())
    data = render(made, fmt, chart_file="chart.svg")
    assert data and made.integrity.events == len(service.reader.events(case_id))
    from casefile.report import verify_report

    assert verify_report(service, case_id, data.decode()).problem is None


def test_summary(report: Report) -> None:
    s = report.summary
    assert s.case_id == REFERENCE_ID
    assert s.symptom is not None and "~11 output tok/s" in s.symptom
    assert ("gpus", "8× NVIDIA RTX PRO 6000 Blackwell, 96 GB each, PCIe Gen5 x16, no NVLink") in (
        s.environment
    )
    (cause,) = s.root_causes
    assert cause.concluded and cause.hypothesis == "compute-launch"
    assert 0.4 < cause.confidence < 0.6
    assert {support.evidence for support in cause.rests_on} >= {"e12", "e1"}
    assert s.duration == "1 h 21 min" and s.zone == "UTC"
    assert [p.actor for p in s.participants] == ["user", "assistant"]


def test_pivots_and_the_trajectory(report: Report) -> None:
    top = [(p.ref.seq, p.before, p.after) for p in report.pivots if p.parent is None]
    assert top == [
        (29, "pcie-bound", "collective-latency"),
        (66, "collective-latency", "compute-launch"),
    ]
    first = next(p for p in report.pivots if p.ref.seq == 29)
    assert first.reading.startswith("rule pcie-link-busy v1 → idle")
    assert first.reading_ref is not None and first.reading_ref.seq == 28
    assert first.surprise_bits is not None and first.surprise_bits > 1.0
    (chart,) = report.charts
    assert {p.ref.seq for p in chart.points if p.pivot} == {29, 66}
    series = {s.hypothesis for s in chart.series}
    assert {"pcie-bound", "collective-latency", "compute-launch", "throughput/catch-all"} <= series
    assert [n.ref.seq for n in chart.pivots] == [29, 66]


def test_ruled_out_and_the_alternative(report: Report) -> None:
    ruled = {r.hypothesis: r for r in report.ruled_out}
    assert {"link-degraded", "pcie-bandwidth", "power-thermal", "host-side"} <= set(ruled)
    assert ruled["pcie-bandwidth"].ref is not None and ruled["pcie-bandwidth"].ref.seq == 29
    assert "compute-launch" not in ruled and "collective-latency" not in ruled
    (alt,) = report.alternatives
    assert alt.hypothesis == "collective-latency" and alt.against == "compute-launch"
    assert alt.probe is not None and alt.gain_bits is not None and alt.gain_bits > 0


def test_evidence_set_aside_and_health(report: Report) -> None:
    bits = [e.bits for e in report.evidence if e.bits is not None]
    assert bits == sorted(bits, reverse=True)
    assert report.evidence[0].evidence == "e1"
    e1 = report.evidence[0]
    assert e1.kind == "measured" and e1.rule == "pcie-link-busy" and e1.rule_version == 1
    assert e1.artifact is not None and e1.conditions == "host=inference-vm, load=under-load"
    assert len(report.set_aside) == 10
    assert {r.observation.seq for r in report.set_aside if r.observation} == {40, 53}
    assert all("load=idle" in (r.conditions or "") for r in report.set_aside)
    (span,) = report.health.unmeasured
    assert (span.leader, span.start.seq, span.end and span.end.seq) == ("pcie-bound", 18, 29)
    assert report.health.first_measurement is not None
    assert [a.pivot.seq for a in report.health.advice] == [29, 66]
    first = report.health.advice[0]
    assert (first.probe, first.load, first.taken) == ("nvidia-smi-q", "under-load", None)
    assert first.otherwise is not None and first.otherwise.seq == 39  # run, but at idle
    assert report.integrity.events == 81 and report.integrity.head.seq == 81


def test_as_of_an_earlier_event() -> None:
    service, case_id = service_with(REFERENCE)
    early = build_report(service, case_id, ReportOptions(upto=28))
    assert early.integrity.events == 28 and early.integrity.upto == 28
    assert not early.pivots
    (cause,) = early.summary.root_causes
    assert not cause.concluded and cause.hypothesis == "pcie-bound"
    assert early.health.unmeasured[0].end is None


def test_every_link_of_the_html_has_its_target(report: Report) -> None:
    import re

    html = render(report, "html").decode()
    ids = set(re.findall(r' id="([^"]+)"', html))
    links = re.findall(r'href="#([^"]+)"', html)
    assert links and set(links) <= ids, set(links) - ids
    chart = re.search(r"<svg.*?</svg>", html, flags=re.S)
    assert chart is not None and len(re.findall(r'href="#ev-\d+"', chart.group())) == len(
        report.charts[0].points
    )


def _first_68(tmp_path: Path) -> Path:
    """The reference case as it was concluded: its first 68 events, without the postmortem."""
    import shutil

    target = tmp_path / "glm5-first-68"
    shutil.copytree(REFERENCE / "artifacts", target / "artifacts")
    lines = (REFERENCE / "events.jsonl").read_bytes().splitlines(keepends=True)[:68]
    (target / "events.jsonl").write_bytes(b"".join(lines))
    last = __import__("json").loads(lines[-1])
    (target / "events.head").write_text(f"68@{last['hash']}\n")
    return target


def test_the_postmortem_comes_after_the_conclusion_and_changes_nothing_before(
    tmp_path: Path,
) -> None:
    """The reference case's postmortem is appended after its conclusion (events 69 on): the
    first 68 events are the case as concluded (their hash is pinned in tests/cases), and their
    replay and ``report --to 68`` are the same bytes as those of the 68 events alone."""
    service, case_id = service_with(REFERENCE)
    events = service.reader.events(case_id)
    assert events[67].type == "case.concluded" and events[67].hash.startswith("36409887439e")
    assert {e.type for e in events[68:]} == {
        "postmortem.section",
        "postmortem.item",
        "postmortem.about",
    }
    alone, alone_id = service_with(_first_68(tmp_path))
    assert len(alone.reader.events(alone_id)) == 68
    to_68 = build_report(service, case_id, ReportOptions(upto=68))
    assert render(to_68, "md") == render(
        build_report(alone, alone_id, ReportOptions(upto=68)), "md"
    )
    replayed, replayed_alone = (
        service.reader.replay(case_id, upto=68).to_json(),
        alone.reader.replay(alone_id).to_json(),
    )
    del replayed["case"], replayed_alone["case"]  # the case's header counts all its events
    assert replayed == replayed_alone
    full = build_report(service, case_id, ReportOptions())
    assert full.postmortem is not None and full.postmortem.header.status == "complete"
    assert [i.id for i in full.postmortem.items] == ["a1", "a2", "a3"]
    assert full.postmortem.items[2].status == "done"  # amended by a later event
    assert full.summary.last.seq == 68  # the incident ends at the conclusion
