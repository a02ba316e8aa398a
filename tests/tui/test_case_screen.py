"""The case screen under Pilot: the reference case live, replayed across its pivot, and the
panes agreeing with the headless views."""

from __future__ import annotations

import pytest

from casefile.app.service import CaseService
from casefile.domain.event_types import label
from casefile.store.sql import SqlEventStore
from casefile.tui.screens.case import CaseScreen
from casefile.tui.widgets.hypotheses import HypothesisTree
from casefile.tui.widgets.status_bar import StatusBar
from casefile.tui.widgets.timeline import Timeline
from tests.cli.conftest import builtin_registry
from tests.tui.conftest import CASE, build_app
from tests.tui.helpers import case_ready, settle


def screen_of(app: object) -> CaseScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, CaseScreen)
    return screen


def leader(screen: CaseScreen) -> str | None:
    assert screen.frame is not None
    return screen.frame.questions[0].leader


async def test_opens_the_reference_case_live_at_its_head(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        screen = screen_of(app)
        await settle(pilot, lambda: "verifies" in screen.query_one(StatusBar).status.chain)
        timeline = screen.query_one(Timeline)
        assert timeline.row_count() == 81
        assert timeline.chosen_seq() == 81  # live follows the newest event
        assert leader(screen) == "compute-launch"
        assert screen.query_one(StatusBar).status.focus is None
        assert "LIVE" in screen.query_one(StatusBar).status.text()


async def test_replay_before_at_and_after_the_pivot_matches_status_to(db_url: str) -> None:
    app = build_app(db_url)
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        expected = {seq: service.reader.status(CASE, upto=seq) for seq in (28, 29, 30)}
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        screen = screen_of(app)
        await pilot.press("colon")
        await pilot.press(*"28", "enter")
        await settle(pilot, lambda: screen.frame is not None and screen.frame.seq == 28)
        for seq in (28, 29, 30):
            if seq > 28:
                await pilot.press("l")
                await settle(
                    pilot, lambda s=seq: screen.frame is not None and screen.frame.seq == s
                )
            frame = screen.frame
            assert frame is not None
            status = expected[seq]
            assert frame.questions[0].leader == status.questions[0].leader
            shown = {r.id: r.confidence for r in frame.tree}
            for row in status.hypotheses:
                assert shown[row.id] == row.confidence  # the same numbers, to the last digit
        assert screen.query_one(StatusBar).status.focus == 30
        assert screen.query_one(Timeline).focus_seq == 30


async def test_the_pivot_keys_and_the_never_measured_warning(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        screen = screen_of(app)
        await pilot.press("ctrl+home")
        await settle(pilot, lambda: screen.frame is not None and screen.frame.seq == 1)
        await pilot.press("right_square_bracket")
        await settle(pilot, lambda: screen.frame is not None and screen.frame.seq == 29)
        assert screen.frame is not None and screen.frame.pivot
        await pilot.press("h")
        await settle(pilot, lambda: screen.frame is not None and screen.frame.seq == 28)
        assert leader(screen) == "pcie-bound"
        assert screen.frame is not None and screen.frame.questions[0].never_measured
        tree = screen.query_one(HypothesisTree)
        assert any(
            "never measured" in str(line.question.never_measured) or line.summary
            for line in tree.lines
        )
        await pilot.press("escape")
        await settle(
            pilot,
            lambda: (
                screen.focus_seq is None and screen.frame is not None and screen.frame.seq == 81
            ),
        )
        assert leader(screen) == "compute-launch"


async def test_narrow_terminal_stacks_the_panes(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        assert app.screen.has_class("narrow")


async def test_read_only_refuses_every_write(db_url: str) -> None:
    app = build_app(db_url, read_only=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        for key in ("n", "e", "a", "p", "c"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, CaseScreen), f"{key} opened a dialog in read-only mode"
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        assert service.reader.head(CASE)[0] == 81


async def test_filter_hides_rows_that_do_not_match(db_url: str) -> None:
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        screen = screen_of(app)
        await pilot.press("slash", *"set aside", "enter")
        await pilot.pause()
        timeline = screen.query_one(Timeline)
        assert 0 < timeline.row_count() < 68
        # by the type column's "set aside" (the summary beside it does not repeat it) or by text
        rows = [timeline.row_at(i) for i in range(timeline.row_count())]
        assert all(
            label(row.type) == "set aside" or "set aside" in row.summary.lower()
            for row in rows
            if row is not None
        )
        assert sum(label(row.type) == "set aside" for row in rows if row is not None) == 10


async def test_escape_sequences_in_case_text_reach_the_screen_as_text(tmp_path: object) -> None:
    from pathlib import Path

    from casefile.app.who import Who
    from tests.tui.conftest import build_app as build

    assert isinstance(tmp_path, Path)
    url = f"sqlite:///{tmp_path / 'hostile.db'}"
    hostile = "\x1b]0;owned\x07\x1b[2Jtitle"
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        case_id = service.writer.new_case(hostile, symptom="\x9b31m red", playbook="gpu-throughput")
        service.writer.note(case_id, "line one\x1b[1A\nline two", Who("eve"))
    app = build(url, case_id)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        timeline = app.screen.query_one(Timeline)
        drawn = [
            "".join(seg.text for seg in timeline.row_segments(i, 160, timeline.rich_style))
            for i in range(timeline.row_count())
        ]
        text = "\n".join(drawn)
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
        assert "\\x1b]0;owned\\x07" in text
        assert "\\x0a" in text  # a note's newline cannot pose as another row


async def test_a_long_case_opens_with_a_glance_then_its_history(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import casefile.app.board as board_module
    from casefile.tui.messages import BoardReady

    monkeypatch.setattr(board_module, "GLANCE_AFTER", 10)  # the reference case counts as long
    monkeypatch.setattr(board_module, "GLANCE_ROWS", 5)
    seen: list[bool] = []
    original = CaseScreen.on_board_ready

    def spy(self: CaseScreen, message: BoardReady) -> None:
        seen.append(message.state.partial)
        original(self, message)

    monkeypatch.setattr(CaseScreen, "on_board_ready", spy)
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, lambda: case_ready(app)() and seen[-1:] == [False])
        screen = screen_of(app)
        assert seen[0] is True  # the glance came first
        assert screen.query_one(Timeline).row_count() == 81
        assert screen.query_one(Timeline).chosen_seq() == 81
        assert leader(screen) == "compute-launch"


async def test_why_this_confidence_in_replay_is_hypothesis_show_to(db_url: str) -> None:
    with CaseService(SqlEventStore(db_url), builtin_registry()) as service:
        expected = service.reader.hypothesis_detail(CASE, "pcie-bound", upto=30)
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        screen = screen_of(app)
        backend = app.backend
        shown = await backend.call(lambda: backend.board(CASE).hypothesis_detail("pcie-bound", 30))
        await pilot.pause()
    assert shown == expected
    assert screen is not None


async def test_markup_in_case_text_is_drawn_as_text(tmp_path: object) -> None:
    from pathlib import Path

    from textual.widgets import Static

    from casefile.tui.screens.case_list import CaseListScreen
    from tests.tui.conftest import build_app as build

    assert isinstance(tmp_path, Path)
    url = f"sqlite:///{tmp_path / 'markup.db'}"
    with CaseService(SqlEventStore(url), builtin_registry()) as service:
        case_id = service.writer.new_case(
            "[bold]title[/]", symptom="[/] oops", playbook="gpu-throughput"
        )
        service.writer.note(case_id, "bad [/] markup [link=x]y[/link]")
    app = build(url, case_id)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        body = app.screen.query_one("#detail-body", Static)
        # the detail pane draws the selected note (once the cursor has rested on it)
        await settle(pilot, lambda: "Choose an event" not in str(body.content))
        assert isinstance(app.screen, CaseScreen)  # still up: nothing crashed
        await pilot.press("b")  # the case list, with the same title
        await settle(
            pilot, lambda: isinstance(app.screen, CaseListScreen) and bool(app.screen.rows)
        )
    assert app.return_code in (None, 0)


async def test_a_chain_that_does_not_verify_says_why(db_url: str) -> None:
    import sqlite3

    path = db_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE events SET payload = replace(payload, 'Yeah', 'Nope') "
            "WHERE case_id = ? AND seq = 21",
            (CASE,),
        )
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot, case_ready(app))
        bar = app.screen.query_one(StatusBar)
        await settle(
            pilot, lambda: "chain" in bar.status.chain and "checking" not in bar.status.chain
        )
        assert bar.status.chain.startswith("✗ chain:")
        assert "21" in bar.status.chain
