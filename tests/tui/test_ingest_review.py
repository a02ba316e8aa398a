"""The ingest review from the case screen: what the TUI appends equals, event for event, what
``casefile ingest`` appends on a copy of the same case (everything, and a subset answered at
the CLI's prompt); bad transcripts, a repeat, Esc and read-only append nothing."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

from casefile.app.service import CaseService
from casefile.app.who import Who
from casefile.cli.main import main
from casefile.store.sql import SqlEventStore
from casefile.tui.app import CasefileApp
from casefile.tui.dialogs.form import FormDialog
from casefile.tui.dialogs.ingest import IngestDialog, build_ingest, ranges
from casefile.tui.screens.case import CaseScreen
from casefile.tui.screens.ingest_review import CHECKED, UNCHECKED, IngestReviewScreen
from tests.cli.conftest import builtin_registry
from tests.ingest.samples import MARKDOWN, asciicast, typescript
from tests.tui.conftest import CASE, build_app
from tests.tui.helpers import case_ready, recorded, settle
from tests.tui.test_actions import events_after, fill

#: the reference case's last seq: everything after it was appended by the test
HEAD = 81


def _twin(db_url: str, tmp_path: Path) -> str:
    twin = tmp_path / "twin.db"
    shutil.copy(db_url.removeprefix("sqlite:///"), twin)
    return f"sqlite:///{twin}"


async def _review(pilot: Pilot[None], values: dict[str, str]) -> IngestReviewScreen:
    """From the case screen: `t`, the dialog filled and confirmed, the review up."""
    app = pilot.app
    await settle(pilot, case_ready(app))
    await pilot.press("t")
    await settle(pilot, lambda: isinstance(app.screen, IngestDialog))
    dialog = app.screen
    assert isinstance(dialog, IngestDialog)
    fill(dialog, values)
    assert dialog.problem is None, dialog.problem
    await pilot.press("ctrl+s")
    await settle(pilot, lambda: isinstance(app.screen, IngestReviewScreen))
    review = app.screen
    assert isinstance(review, IngestReviewScreen)
    return review


def _checks(review: IngestReviewScreen) -> list[str]:
    from textual.widgets import DataTable

    table: DataTable[object] = review.query_one(DataTable)
    return [str(table.get_cell(str(item.index), "keep")) for item in review.proposal.items]


async def test_accepting_everything_appends_what_ingest_yes_appends(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "story.md"
    source.write_text(MARKDOWN)
    twin = _twin(db_url, tmp_path)
    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        review = await _review(pilot, {"path": str(source), "load": "under-load"})
        assert set(_checks(review)) == {CHECKED}  # all picked to start with, as --yes
        await pilot.press("enter")
        await settle(pilot, recorded(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        command = screen.commands[-1]
    tui = events_after(db_url, HEAD)
    assert [t for t, _p, _a in tui].count("probe.ran") == 2
    assert "note.added" in [t for t, _p, _a in tui]
    monkeypatch.setenv("CASEFILE_DB", twin)
    argv = ["ingest", CASE, str(source), "--load", "under-load", "--yes", "--actor", "alice"]
    assert main(argv) == 0
    assert tui == events_after(twin, HEAD)
    assert command == f"casefile ingest {CASE} {source} --load under-load --yes --actor alice"


async def test_the_proposal_is_built_off_the_ui_thread(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from casefile.actions.ingest_actions import IngestTranscript

    source = tmp_path / "story.md"
    source.write_text(MARKDOWN)
    threads: list[str] = []
    propose = IngestTranscript.propose

    def spy(self: IngestTranscript, service: CaseService) -> object:
        threads.append(threading.current_thread().name)
        return propose(self, service)

    monkeypatch.setattr(IngestTranscript, "propose", spy)
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await _review(pilot, {"path": str(source)})
        ui = threading.current_thread().name
    assert threads and ui not in threads


class _Terminal(io.StringIO):
    """stdin as a terminal that answers the CLI's review prompt."""

    def isatty(self) -> bool:
        return True


async def test_a_subset_appends_what_the_cli_appends_for_that_answer(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, timing = typescript()
    source, timing_file = tmp_path / "session.typescript", tmp_path / "session.timing"
    source.write_bytes(data)
    timing_file.write_bytes(timing)
    twin = _twin(db_url, tmp_path)
    app = build_app(db_url, actor="alice")
    async with app.run_test(size=(160, 45)) as pilot:
        review = await _review(pilot, {"path": str(source), "timing": str(timing_file)})
        count = len(review.proposal.items)
        assert count >= 3
        await pilot.press("n")  # none, then the first and the last
        assert set(_checks(review)) == {UNCHECKED}
        await pilot.press("space")
        for _ in range(count - 1):
            await pilot.press("down")
        await pilot.press("space")
        await pilot.pause()
        assert _checks(review) == [CHECKED] + [UNCHECKED] * (count - 2) + [CHECKED]
        shown = str(review.query_one("#review-command").render())
        assert f"answer 1,{count} at its prompt" in shown
        await pilot.press("enter")
        await settle(pilot, recorded(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        command = screen.commands[-1]
    tui = events_after(db_url, HEAD)
    assert [t for t, _p, _a in tui].count("probe.ran") == 2
    monkeypatch.setenv("CASEFILE_DB", twin)
    monkeypatch.setattr("sys.stdin", _Terminal(f"1,{count}\n"))
    assert (
        main(["ingest", CASE, str(source), "--timing", str(timing_file), "--actor", "alice"]) == 0
    )
    assert tui == events_after(twin, HEAD)
    assert command.startswith(f"casefile ingest {CASE} {source} --timing {timing_file} --actor")
    assert "--yes" not in command.split("#")[0]
    assert f"# answer 1,{count} at its prompt" in command


def _damaged_cast() -> bytes:
    good = asciicast().decode().splitlines()
    return ("\n".join(good[:3]) + '\n[1.0, "o", "unterminated\n').encode()


@pytest.mark.parametrize(
    ("name", "content", "fmt", "problem"),
    [
        ("missing.md", None, "auto", "cannot read"),
        ("damaged.cast", _damaged_cast(), "asciicast", "truncated or damaged"),
        ("prose.md", b"# Only words\n\nNo command was run here.\n", "markdown", "no recognisable"),
    ],
)
async def test_a_bad_transcript_is_a_titled_notification_and_appends_nothing(
    name: str, content: bytes | None, fmt: str, problem: str, db_url: str, tmp_path: Path
) -> None:
    source = tmp_path / name
    if content is not None:
        source.write_bytes(content)
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        await pilot.press("t")
        await settle(pilot, lambda: isinstance(app.screen, IngestDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        fill(dialog, {"path": str(source), "format": fmt})
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: bool(app._notifications))
        assert isinstance(app.screen, CaseScreen)  # no review opened
        notes = list(app._notifications)
    assert [n.title for n in notes] == ["Ingest: nothing appended"]
    assert problem in notes[0].message
    assert events_after(db_url, HEAD) == []


async def test_a_transcript_ingested_already_is_refused_and_appends_nothing(
    db_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "story.md"
    source.write_text(MARKDOWN)
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        service.probing.ingest(
            CASE, service.probing.propose_ingest(MARKDOWN.encode()), None, Who("bob")
        )
        head = service.reader.head(CASE)[0]
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await _review(pilot, {"path": str(source)})
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, CaseScreen) and bool(app._notifications))
        titles = [n.title for n in app._notifications]
        screen = app.screen
        assert isinstance(screen, CaseScreen) and not screen.commands
    assert titles == ["Ingest not recorded"]
    assert events_after(db_url, head) == []


async def test_escape_and_an_empty_pick_append_nothing(db_url: str, tmp_path: Path) -> None:
    source = tmp_path / "story.md"
    source.write_text(MARKDOWN)
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        review = await _review(pilot, {"path": str(source)})
        await pilot.press("n", "enter")  # nothing picked: Enter says so and stays
        await pilot.pause()
        assert app.screen is review and app._notifications
        await pilot.press("a")
        assert set(_checks(review)) == {CHECKED}
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, CaseScreen))
        screen = app.screen
        assert isinstance(screen, CaseScreen) and not screen.commands
    assert events_after(db_url, HEAD) == []


async def test_read_only_offers_no_ingest(db_url: str, tmp_path: Path) -> None:
    app: CasefileApp = build_app(db_url, read_only=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        await pilot.press("t")
        await pilot.pause()
        assert app.screen is screen  # the key is not bound in a read-only view
        titles = [command.title for command in app.get_system_commands(screen)]
        assert "Ingest transcript" not in titles and "Note" not in titles
        screen.action_ingest()  # reached another way, it refuses
        await pilot.pause()
        assert app.screen is screen
        assert [n.title for n in app._notifications] == ["Not recorded"]
    assert events_after(db_url, HEAD) == []


async def test_the_palette_and_the_help_offer_ingest(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        titles = [command.title for command in app.get_system_commands(app.screen)]
        # the help panel lists the screen's active bindings
        keys = {
            active.binding.key: active.binding.description
            for active in app.screen.active_bindings.values()
            if active.binding.action == "write('ingest')"
        }
    assert "Ingest transcript" in titles
    assert keys == {"t": "ingest transcript"}


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"path": " "}, "empty"),
        ({"path": "x.cast", "format": "mp4"}, "format 'mp4' is not one of auto, typescript"),
        ({"path": "x.cast", "load": "busy"}, "load 'busy' is not one of idle"),
        ({"path": "x.cast", "format": "asciicast", "timing": "t"}, "goes with a typescript"),
    ],
)
def test_the_dialog_refuses_what_the_cli_refuses(values: dict[str, str], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        build_ingest(values)


def test_the_request_alone_appends_what_ingest_yes_appends(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run without a review (as any request can be), it is ``--yes``."""
    from dataclasses import replace

    from casefile.actions.ingest_actions import INGEST, IngestTranscript
    from casefile.actions.spec import argv

    source = tmp_path / "cast.cast"
    source.write_bytes(asciicast())
    twin = _twin(db_url, tmp_path)
    request = IngestTranscript(str(source), "asciicast")
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        said = request.run(service, CASE, Who("alice"))
    assert said.said == "appended 2 run(s) and 0 note(s) (asciicast)"
    monkeypatch.setenv("CASEFILE_DB", twin)
    assert main([*argv(INGEST, replace(request, yes=True), CASE), "--actor", "alice"]) == 0
    assert events_after(db_url, HEAD) == events_after(twin, HEAD)


def test_ranges_are_what_the_cli_prompt_reads() -> None:
    assert ranges([0, 2, 3, 4]) == "1,3-5"
    assert ranges([6]) == "7"
    assert ranges([1, 0]) == "1-2"
