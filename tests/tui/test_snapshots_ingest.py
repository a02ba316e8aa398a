"""How the ingest review looks: SVG snapshots at a fixed size over a fixed transcript.

The transcript's times are its own, the database label is fixed, and the file is given by a
name relative to the test's directory (the working directory meanwhile), so no temporary path
shows. Refresh with ``pytest tests/tui/test_snapshots_ingest.py --snapshot-update``
and look at every changed SVG before committing it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from casefile.tui.dialogs.form import FormDialog
from casefile.tui.screens.ingest_review import IngestReviewScreen
from tests.ingest.samples import MARKDOWN, typescript
from tests.tui.conftest import build_app
from tests.tui.helpers import case_ready, settle
from tests.tui.test_snapshots import WIDE

#: a filtered command and a secret on its command line: the review marks both
MARKED = """
[bash] nvidia-smi -q | grep -i 'power draw'
        Power Draw                        : 328.10 W
[bash] curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789' http://127.0.0.1:9400/m
DCGM_FI_DEV_POWER_USAGE 328.1
"""


@pytest.fixture(autouse=True)
def no_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FormDialog, "BLINK", False)


def reviewing(name: str, *keys: str, **values: str) -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        from tests.tui.test_actions import fill

        app = pilot.app
        await settle(pilot, case_ready(app))
        await pilot.press("t")
        await settle(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"path": name, **values})
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: isinstance(app.screen, IngestReviewScreen))
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.pause(0.1)

    return run_before


class TestIngestReview:
    def test_a_typescript_all_picked(
        self, snap_compare: Any, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        data, timing = typescript()
        (tmp_path / "session.typescript").write_bytes(data)
        (tmp_path / "session.timing").write_bytes(timing)
        monkeypatch.chdir(tmp_path)  # a relative name: the same title in every run
        run = reviewing("session.typescript", timing="session.timing", load="under-load")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)

    def test_a_markdown_story_with_a_subset_picked(
        self, snap_compare: Any, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tmp_path / "story.md").write_text(MARKDOWN + MARKED)
        monkeypatch.chdir(tmp_path)
        # unpick the title note, move onto the filtered run: its output shows under the table
        run = reviewing("story.md", "space", *["down"] * 7, format="markdown")
        assert snap_compare(build_app(db_url), terminal_size=WIDE, run_before=run)
