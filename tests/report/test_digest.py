"""Each report file's digest of its own text (issue 23, R3-L1): `report verify` checked only the
``seq@hash`` references, so changing the root cause or a confidence in a report still gave
"ok". Now an edit anywhere fails; a fresh report, redacted or not, in any format, verifies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from casefile.report import ReportOptions, build_report, render, render_chart, verify_report
from casefile.report.digest import MARK
from tests.cli.conftest import CLI
from tests.report.cases import REFERENCE, REFERENCE_ID, build_case, service_with

CAUSE = "Compute-bound by kernel-launch overhead"
#: (format, what to change, into what): a claim and a number, references left alone
EDITS = [
    ("md", CAUSE, "Memory-bound by kernel-launch overhead"),
    ("md", "47.4 % at the end", "97.2 % at the end"),
    ("html", CAUSE, "Memory-bound by kernel-launch overhead"),
    ("html", "47.4 % at the end", "97.2 % at the end"),
    ("json", '"confidence": 0.4735065278109941', '"confidence": 0.9735065278109941'),
    ("svg", "compute-launch", "memory-bound"),
]


@pytest.fixture
def imported(cli: CLI) -> str:
    done = cli("import", str(REFERENCE))
    assert done.code == 0, done.err
    return REFERENCE_ID


def _write(cli: CLI, case: str, directory: Path, fmt: str, *extra: str) -> Path:
    """The report in ``fmt`` (``svg``: the chart written beside a Markdown report)."""
    out = directory / f"pm.{'md' if fmt == 'svg' else fmt}"
    done = cli("report", case, "--format", "md" if fmt == "svg" else fmt, "-o", str(out), *extra)
    assert done.code == 0, done.err
    return directory / "pm.svg" if fmt == "svg" else out


@pytest.mark.parametrize(("fmt", "before", "after"), EDITS)
def test_an_edited_claim_fails_though_every_reference_holds(
    cli: CLI, imported: str, tmp_path: Path, fmt: str, before: str, after: str
) -> None:
    out = _write(cli, imported, tmp_path, fmt)
    text = out.read_text()
    assert before in text
    out.write_text(text.replace(before, after, 1))
    done = cli("report", "verify", str(out), imported)
    assert done.code == 1
    assert "the text was changed after casefile wrote it" in done.err
    assert done.err.count("\n") == 1


@pytest.mark.parametrize("fmt", ["md", "html", "json", "svg"])
@pytest.mark.parametrize("redact", [False, True])
def test_a_fresh_report_verifies_redacted_or_not(
    cli: CLI, imported: str, tmp_path: Path, fmt: str, redact: bool
) -> None:
    out = _write(cli, imported, tmp_path, fmt, *(["--redact"] if redact else []))
    assert len(re.findall(rf'{MARK}"?: "?sha256:[0-9a-f]{{64}}', out.read_text())) == 1
    done = cli("report", "verify", str(out), imported)
    assert done.code == 0, done.err
    assert "the text is as casefile wrote it" in done.out


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="line endings"),
        pytest.param(lambda t: t + "appended\n", id="a line appended"),
        pytest.param(lambda t: re.sub(rf"{MARK}: sha256:[0-9a-f]+\n", "", t), id="no digest"),
    ],
)
def test_other_edits_fail_too(cli: CLI, imported: str, tmp_path: Path, change: object) -> None:
    out = _write(cli, imported, tmp_path, "md")
    assert callable(change)
    out.write_bytes(change(out.read_text()).encode())
    done = cli("report", "verify", str(out), imported)
    assert done.code == 1
    assert MARK in done.err


def test_a_digest_quoted_in_the_case_is_not_taken_for_the_reports_own() -> None:
    """A note may hold a digest line (someone pasted a report): the renderer's own comes last,
    so it is the one sealed and checked, in every format."""
    fake = f"{MARK}: sha256:{'ab' * 32}"
    planted = build_case([fake, f'{MARK}": "sha256:'], actor="alice", host="gpu1", argv=["uptime"])
    report = build_report(planted.service, planted.case_id, ReportOptions())
    files = {fmt: render(report, fmt) for fmt in ("md", "html", "json")}
    files["svg"] = render_chart(report)  # (its legend shortens the note: a part of it shows)
    for fmt, data in files.items():
        text = data.decode()
        assert text.count(MARK) > 1, fmt
        checked = verify_report(planted.service, planted.case_id, text)
        assert checked.problem is None, (fmt, checked.problem)
        assert fmt == "svg" or "sha256:" + "ab" * 32 in text  # the quoted one is left as it was


def test_every_format_says_how_it_is_checked() -> None:
    service, case_id = service_with(REFERENCE)
    report = build_report(service, case_id, ReportOptions())
    md = render(report, "md").decode()
    assert md.splitlines()[-1].startswith(f"{MARK}: sha256:")
    assert "an edit fails even where it leaves the references alone" in md
