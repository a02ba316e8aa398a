"""docs/cli.md is what the argument parser says: regenerated here and compared (CI runs this),
so a command or option added without its reference fails."""

from __future__ import annotations

from tests.docs.cli_reference import TARGET, reference


def test_the_cli_reference_is_generated_from_the_parser_and_current() -> None:
    expected = reference()
    assert TARGET.read_text(encoding="utf-8") == expected, (
        "docs/cli.md differs from the parser: run "
        "`.venv/bin/python -m tests.docs.cli_reference --write` and commit it"
    )


def test_every_command_has_its_section() -> None:
    text = TARGET.read_text(encoding="utf-8")
    for command in ("note", "probe", "tui", "demo", "report", "hypothesis add", "db upgrade"):
        assert f"\n## casefile {command}\n" in text
