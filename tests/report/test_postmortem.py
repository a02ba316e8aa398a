"""The postmortem as events and as the report's opening (issue 25, "What to build" 2): each
section, action item and header line is an event recorded through the action table's rows, a
later one amends an earlier one, and the report opens with them; what is missing says so, with
the command that records it, and the status reads "draft" until nothing is."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from casefile.actions.postmortem_actions import record_hint
from casefile.domain.postmortem_terms import SECTIONS
from casefile.report import ReportOptions, build_report, render
from tests.cli.conftest import CLI
from tests.report.cases import CASES, REFERENCE, service_with

CASE = "pm1"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def case(cli: CLI) -> str:
    done = cli("new", "Slow decode", "--id", CASE, "--symptom", "11 tok/s")
    assert done.code == 0, done.err
    return CASE


def _report(cli: CLI, tmp_path: Path, *extra: str) -> str:
    out = tmp_path / "pm.md"
    done = cli("report", CASE, "-o", str(out), *extra)
    assert done.code == 0, done.err
    return out.read_text()


def test_a_fresh_postmortem_is_a_draft_that_names_each_command(
    cli: CLI, case: str, tmp_path: Path
) -> None:
    text = _report(cli, tmp_path)
    opening = text.split("## 2. Root cause")[0]
    assert "**draft**" in opening
    for key in SECTIONS:
        line = record_hint(case)(key)  # the row's own command line
        assert f"not recorded — record it: `{line}`" in opening
    assert "casefile postmortem item pm1 --text WHAT --owner OWNER --priority P2" in opening
    assert "casefile postmortem about pm1 --author NAME --review-date YYYY-MM-DD" in opening


def test_each_hint_is_a_command_the_cli_runs(cli: CLI, case: str) -> None:
    import shlex

    hint = record_hint(case)
    for key in (*SECTIONS, "item", "about"):
        words = shlex.split(hint(key).replace("YYYY-MM-DD", "2026-03-09"))
        done = cli(*words[1:])
        assert done.code == 0, (key, done.err)
    done = cli(*shlex.split(hint("amend").replace("ID", "a1"))[1:])
    assert done.code == 0, done.err


def test_recorded_amended_and_complete(cli: CLI, case: str, tmp_path: Path) -> None:
    for n, key in enumerate(SECTIONS):
        assert cli("postmortem", "section", case, key, f"first {key} text {n}").code == 0
    done = cli("postmortem", "section", case, "impact", f"decode at 11 tok/s; token {TOKEN}")
    assert done.code == 0, done.err
    done = cli("postmortem", "item", case, "--text", "alert on tok/s", "--owner", "ana")
    assert done.code == 1 and "needs its priority" in done.err  # one line, nothing recorded
    done = cli(
        "postmortem", "item", case, "--text", "alert on tok/s", "--owner", "ana",
        "--priority", "P1",
    )  # fmt: skip
    assert (done.code, done.out.strip()) == (0, "a1")
    assert cli("postmortem", "item", case, "--id", "a1", "--status", "done").code == 0
    assert cli("postmortem", "item", case, "--id", "a1", "--ticket", "OPS-7").code == 0
    draft = _report(cli, tmp_path)
    assert "**draft**" in draft and "no authors" in draft
    done = cli("postmortem", "about", case, "--review-date", "2026-3-9")
    assert done.code == 1 and "YYYY-MM-DD" in done.err
    done = cli(
        "postmortem", "about", case, "--title", "Decode at 11 tok/s", "--author", "ana",
        "--author", "bo", "--review-date", "2026-03-09",
    )  # fmt: skip
    assert done.code == 0, done.err
    text = _report(cli, tmp_path)
    opening = text.split("## 2. Root cause")[0]
    assert text.startswith("# Postmortem: Decode at 11 tok/s\n")
    assert "**complete**" in opening and "not recorded" not in opening
    assert "ana, bo" in opening and "2026-03-09" in opening
    assert "first impact text" not in opening and "decode at 11 tok/s" in opening  # amended
    assert TOKEN not in text, [line for line in text.splitlines() if TOKEN in line]
    assert "token \\[scrubbed\\]" in opening  # scrubbed as a note is
    (row,) = [line for line in opening.splitlines() if line.startswith("| **a1**")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:6] == ["alert on tok/s", "ana", "P1", "done", "OPS-7"]
    assert len(re.findall(r"`\d+@[0-9a-f]{12}`", cells[6])) == 3  # every event that shaped it
    verify = cli("report", "verify", str(tmp_path / "pm.md"), case)
    assert verify.code == 0, verify.err


def test_redaction_and_json_carry_the_postmortem(cli: CLI, case: str, tmp_path: Path) -> None:
    assert cli("postmortem", "section", case, "trigger", "a deploy on gpu-node-7.corp").code == 0
    assert cli("postmortem", "about", case, "--author", "mallory.kowalski").code == 0
    out = tmp_path / "pm.json"
    done = cli("report", case, "-o", str(out), "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(out.read_text())
    sections = {s["key"]: s for s in data["postmortem"]["sections"]}
    assert sections["trigger"]["text"] == "a deploy on gpu-node-7.corp"
    assert sections["impact"]["text"] is None and sections["impact"]["record"]
    assert data["postmortem"]["header"]["status"] == "draft"
    redacted = tmp_path / "r.md"
    done = cli("report", case, "-o", str(redacted), "--redact")
    assert done.code == 0, done.err
    shown = redacted.read_text()
    assert "gpu-node-7.corp" not in shown and "mallory.kowalski" not in shown


def test_the_root_cause_says_probable_unconfirmed() -> None:
    """The reference case concludes compute-launch at 47.4 % with collective-latency at 34.9 %:
    within a factor of two, so the report does not call it settled."""
    service, case_id = service_with(REFERENCE)
    report = build_report(service, case_id, ReportOptions())
    (cause,) = report.summary.root_causes
    assert cause.unconfirmed and cause.runner_up == "collective-latency" and cause.measured
    text = render(report, "md").decode()
    section = text.split("## 2. Root cause")[1].split("## 3.")[0]
    assert "Root cause (probable, unconfirmed):" in section
    assert "the runner-up is within a factor of two" in section
    assert "## 3. Key moments" in text and "## 4. What the case teaches" in text
    moments = {m.ref.seq: m for m in report.moments}
    assert moments[29].kind == "pivot" and "nvidia-smi-q" in (moments[29].suggested or "")
    assert moments[68].kind == "conclusion"
    lessons = " ".join(lesson.text for lesson in report.lessons)
    assert "pcie-bound led throughput for" in lessons and "readings were set aside" in lessons


def test_the_audit_trail_is_an_appendix_collapsed_in_html() -> None:
    service, case_id = service_with(REFERENCE)
    html = render(build_report(service, case_id, ReportOptions()), "html").decode()
    start = html.index('<h2 id="timeline">Appendix: the full audit trail</h2>')
    assert "<details><summary>The timeline, " in html[start:]
    assert "<details open" not in html
    # the nine hypotheses proposed one after another are one row, and each is still a target
    assert "9 hypotheses proposed: pcie-bound under throughput (prior 0.32); " in html
    assert all(f'id="ev-{seq}"' in html for seq in range(9, 18))
    assert html.index('<h2 id="postmortem">') < html.index('<h2 id="summary">') < start


def test_a_count_of_one_event_is_said_in_the_singular() -> None:
    """gephi-2704's misconfiguration led for one event: the lesson said "for 1 events"."""
    service, case_id = service_with(
        CASES / "dev" / "gephi-2704-xps15-optimus-intel-uhd-instead-of-1650ti"
    )
    report = build_report(service, case_id, ReportOptions())
    lessons = [lesson.text for lesson in report.lessons]
    assert any(" led throughput for 1 event (" in text for text in lessons), lessons
    text = render(report, "md").decode()
    assert "1 events" not in text and ": 1 event," in text
