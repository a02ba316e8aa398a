"""A person watching the case in the TUI sees the agent's steps arrive live through the
change feed, named as the agent, while the MCP client writes."""

from __future__ import annotations

from casefile.app.opening import open_service
from casefile.tui.screens.case import CaseScreen
from casefile.tui.widgets.status_bar import StatusBar
from casefile.tui.widgets.timeline import Timeline
from tests.mcp.client import serve
from tests.tui.conftest import CASE, build_app, db_url  # noqa: F401 (fixture)
from tests.tui.helpers import settle


async def test_the_tui_shows_what_the_agent_writes(db_url: str) -> None:  # noqa: F811
    app = build_app(db_url)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, CaseScreen) and app.screen.frame is not None
        )
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        timeline = screen.query_one(Timeline)
        rows = timeline.row_count()
        async with serve(db_url, client=("claude-code", "2.1.4")) as agent:
            await agent.call("note", case=CASE, text="the agent measures the link next")
            await agent.call(
                "act", case=CASE, text="ran nvidia-smi -q under load", outcome="1 GB/s"
            )
        await settle(pilot, lambda: timeline.row_count() == rows + 2)
        with open_service(db_url) as service:
            assert timeline.chosen_seq() == service.reader.head(CASE)[0]  # live follows the newest
        summaries = [timeline.row_at(i).summary for i in range(rows, rows + 2)]  # type: ignore[union-attr]
        assert "the agent measures the link next" in summaries[0]
        assert "ran nvidia-smi -q under load" in summaries[1]
        assert screen.query_one(StatusBar).status.writers == ("claude-code/2.1.4 via mcp",)
