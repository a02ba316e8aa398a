"""The README a newcomer reads in two minutes, and the docs/ pages it links: short, its two
commands exactly as .ci/run and the tests rely on them, every link landing, the picture of the
TUI the tests' own snapshot, and the TUI keys page holding every key the case screen binds."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: the TUI's picture: the snapshot test of the live reference case, copied
SNAPSHOT = (
    ROOT / "tests/tui/__snapshots__/test_snapshots/TestCaseScreen.test_live_reference_case.svg"
)
PICTURE = DOCS / "tui.svg"

SET_UP_AND_OPEN = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/casefile demo"
SET_UP_AND_TEST = "bash .ci/run"

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)


def test_the_readme_is_short_and_opens_with_its_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    blocks = _blocks(text)
    assert blocks[0].strip() == SET_UP_AND_OPEN
    assert blocks[1].strip() == SET_UP_AND_TEST
    # .ci/run runs "the README's test command"
    command = ".venv/bin/python -m pytest -q -n auto"
    assert f"`{command}`" in text
    assert f"\n{command}\n" in (ROOT / ".ci/run").read_text(encoding="utf-8")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for a Markdown page's headings."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


@pytest.mark.parametrize(
    "page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_every_relative_link_lands(page: Path) -> None:
    for target in _LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # http:, mailto: …
        path, _, anchor = target.partition("#")
        landing = (page.parent / path).resolve() if path else page
        assert landing.exists(), f"{page.name}: {target} does not exist"
        if anchor and landing.suffix == ".md":
            assert anchor in _anchors(landing), f"{page.name}: no heading for {target}"


def test_the_readme_links_every_docs_page_it_promises() -> None:
    text = README.read_text(encoding="utf-8")
    for name in (
        "user-guide",
        "tui",
        "cli",
        "playbooks",
        "probes",
        "teams",
        "reports",
        "security",
    ):
        assert f"(docs/{name}.md)" in text, name
    assert "(docs/tui.svg)" in text


def test_the_tui_picture_is_the_current_snapshot() -> None:
    """docs/tui.svg is the snapshot the TUI tests draw; CASEFILE_UPDATE_DOCS=1 copies it."""
    if os.environ.get("CASEFILE_UPDATE_DOCS") == "1":
        shutil.copyfile(SNAPSHOT, PICTURE)
    assert PICTURE.read_bytes() == SNAPSHOT.read_bytes(), (
        "docs/tui.svg is stale: run `CASEFILE_UPDATE_DOCS=1 .venv/bin/pytest tests/docs`"
    )


def test_the_tui_keys_page_names_every_key_of_the_case_screen() -> None:
    from casefile.tui.screens.case import CaseScreen

    names = {"left": "←", "right": "→", "colon": ":", "slash": "/", "plus": "+", "minus": "-"}
    names |= {"question_mark": "?", "f1": "F1", "escape": "esc", "space": "space"}
    text = (DOCS / "tui.md").read_text(encoding="utf-8")
    keys_section = text[text.index("## Keys on the case screen") :]
    for binding in CaseScreen.BINDINGS:
        for key in binding.key.split(","):  # type: ignore[union-attr]
            shown = names.get(key, key)
            assert f"`{shown}`" in keys_section, f"docs/tui.md does not name the key {shown}"
