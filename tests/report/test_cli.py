"""`casefile report` and `casefile report verify` from the command line (issue 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.conftest import CLI
from tests.report.cases import REFERENCE, REFERENCE_ID

REF = re.compile(r"(\d+)@([0-9a-f]{12})")


@pytest.fixture
def imported(cli: CLI) -> str:
    done = cli("import", str(REFERENCE))
    assert done.code == 0, done.err
    return REFERENCE_ID


def test_markdown_file_with_its_chart_beside_it(cli: CLI, imported: str, tmp_path: Path) -> None:
    out = tmp_path / "pm.md"
    done = cli("report", imported, "-o", str(out))
    assert done.code == 0, done.err
    assert (tmp_path / "pm.svg").read_bytes().startswith(b"<svg")
    assert "![Confidence trajectory](pm.svg)" in out.read_text()
    assert done.out == ""


def test_markdown_to_stdout_writes_no_chart_and_says_so(
    cli: CLI, imported: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    done = cli("report", imported, "-o", "-")
    assert done.code == 0, done.err
    assert done.out.startswith("# Postmortem: Slow GLM-5")
    assert "no chart file written" in done.err
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("fmt", ["html", "json"])
def test_other_formats(cli: CLI, imported: str, tmp_path: Path, fmt: str) -> None:
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / f"pm.{fmt}"
    done = cli("report", imported, "--format", fmt, "-o", str(out))
    assert done.code == 0, done.err
    assert list(out.parent.iterdir()) == [out]
    assert "68@36409887439e" in out.read_text()


def test_verify_passes_on_a_fresh_report(cli: CLI, imported: str, tmp_path: Path) -> None:
    for fmt in ("md", "html", "json"):
        out = tmp_path / f"pm.{fmt}"
        assert cli("report", imported, "--format", fmt, "-o", str(out)).code == 0
        done = cli("report", "verify", str(out), imported)
        assert done.code == 0, (fmt, done.err)
        assert re.match(r"ok: \d+ references", done.out)


def test_verify_fails_naming_an_edited_reference(cli: CLI, imported: str, tmp_path: Path) -> None:
    out = tmp_path / "pm.md"
    assert cli("report", imported, "-o", str(out)).code == 0
    text = out.read_text()
    seq, digits = REF.findall(text)[5]
    edited = ("0" if digits[0] != "0" else "1") + digits[1:]
    out.write_text(text.replace(f"{seq}@{digits}", f"{seq}@{edited}", 1))
    done = cli("report", "verify", str(out), imported)
    assert done.code == 1
    assert f"{seq}@{edited}" in done.err and "has hash" in done.err
    assert done.err.count("\n") == 1


def test_verify_fails_on_a_seq_the_case_lacks(cli: CLI, imported: str, tmp_path: Path) -> None:
    out = tmp_path / "pm.md"
    out.write_text("claim at `2@b15682c64541`, then `99@b15682c64541`\n")
    done = cli("report", "verify", str(out), imported)
    assert done.code == 1 and "99@b15682c64541: case glm5-pcie-pivot has no event 99" in done.err
    out.write_text("no reference at all\n")
    assert cli("report", "verify", str(out), imported).code == 1


def test_a_redacted_report_still_verifies(cli: CLI, imported: str, tmp_path: Path) -> None:
    out = tmp_path / "pm.html"
    done = cli("report", imported, "--format", "html", "-o", str(out), "--redact")
    assert done.code == 0, done.err
    assert "inference-vm" not in out.read_text()
    assert cli("report", "verify", str(out), imported).code == 0


def test_report_as_of_a_seq(cli: CLI, imported: str, tmp_path: Path) -> None:
    out = tmp_path / "pm.json"
    assert cli("report", imported, "--format", "json", "--to", "30", "-o", str(out)).code == 0
    assert '"events": 30' in out.read_text()
    done = cli("report", imported, "--to", "99", "-o", str(tmp_path / "x.md"))
    assert done.code == 1 and "no event 99" in done.err
    assert not (tmp_path / "x.md").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["verify", "only-one"], "verify REPORT CASE"),
        (["verify", "a", "b", "--redact"], "takes no --redact"),
        (["C", "extra"], "unexpected argument"),
        (["C", "--redact-map", "m.json"], "need --redact"),
        (["C", "--redact", "--redact-pattern", "("], "not a valid regex"),
        (["C", "--format", "pdf"], "invalid choice"),
    ],
)
def test_usage_errors(cli: CLI, tmp_path: Path, args: list[str], message: str) -> None:
    done = cli("report", *args)
    assert done.code == 2
    assert message in done.err


def test_unknown_case_writes_nothing(cli: CLI, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    done = cli("report", "nope", "-o", str(tmp_path / "out" / "r.md"))
    assert done.code == 1 and "nope" in done.err
    assert list((tmp_path / "out").iterdir()) == []


def test_unwritable_output_is_one_line(cli: CLI, imported: str, tmp_path: Path) -> None:
    done = cli("report", imported, "-o", str(tmp_path / "missing" / "r.md"))
    assert done.code == 1
    assert done.err.startswith("casefile: error: cannot write") and done.err.count("\n") == 1


def test_formats_agree_with_the_package() -> None:
    from casefile.cli.report_commands import REPORT_FORMATS
    from casefile.report import FORMATS

    assert REPORT_FORMATS == FORMATS


@pytest.mark.parametrize(
    ("name", "starts"), [("r.html", b"<!DOCTYPE html>"), ("r.json", b"{"), ("r.md", b"# ")]
)
def test_the_format_follows_the_file_name_as_the_dialog_does(
    cli: CLI, imported: str, tmp_path: Path, name: str, starts: bytes
) -> None:
    """``-o r.html`` without ``--format`` is HTML, as the TUI's report dialog reads the same
    name (it wrote Markdown into r.html); an unknown suffix stays Markdown."""
    out = tmp_path / name
    done = cli("report", imported, "-o", str(out))
    assert done.code == 0, done.err
    assert out.read_bytes().lstrip().startswith(starts)
    other = tmp_path / "r.txt"
    assert cli("report", imported, "-o", str(other)).code == 0
    assert other.read_bytes().startswith(b"# ")
