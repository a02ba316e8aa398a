"""The founding story through MCP, on SQLite and on PostgreSQL.

A scripted client replays the seed investigation's steps as tool calls. Where the seed's
assistant concluded "PCIe-bound" (after the calculations, before any link was measured) the
guard refuses and names the PCIe link reading under load; after the ``nvidia-smi -q`` paste
under load the leader changes; at the end a conclusion on compute-launch is refused while
collective-latency is within a factor of two (47.4 % against 34.9 %), then accepted with the
acknowledgement, which the report shows. The case verifies and its report names the actor.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from casefile.app.opening import open_service
from tests.mcp import story
from tests.mcp.client import ToolError, serve
from tests.store.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)

ACTOR = "scripted-agent/1.0 via mcp"
REASON = "no bare-metal host to compare against this week; the VM's collectives stay open"


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "postgres":
        yield str(request.getfixturevalue("postgres_url"))
    else:
        yield f"sqlite:///{tmp_path / 'casefile.db'}"


def leader(status: dict[str, object]) -> tuple[str, float, float]:
    question = status["questions"][0]  # type: ignore[index]
    return (
        question["leader"],
        question["leader_confidence"],
        question["runner_up_confidence"],
    )


async def test_the_founding_story(db: str) -> None:
    async with serve(db) as s:
        await story.opening(s)
        before = await s.call("status", case=story.CASE)
        assert before["warnings"][0].startswith("NEVER MEASURED: 'PCIe-bound")
        assert leader(before)[0] == "pcie-bound"
        seqs = before["events"]

        # where the seed's assistant concluded "PCIe-bound"
        with pytest.raises(ToolError) as refused:
            await s.call("conclude", case=story.CASE, summary="PCIe-bound", root_cause="pcie-bound")
        message = str(refused.value)
        assert "never measured" in message
        assert "rule pcie-link-busy under load with nvidia-smi-q" in message
        assert (await s.call("status", case=story.CASE))["events"] == seqs  # nothing written

        await story.measuring(s)
        after_paste = await s.call("status", case=story.CASE)
        assert leader(after_paste)[0] != "pcie-bound"
        assert not any(w.startswith("NEVER MEASURED") for w in after_paste["warnings"])

        await story.checking(s)
        end = await s.call("status", case=story.CASE)
        name, confidence, runner_up = leader(end)
        assert (name, f"{confidence:.1%}", f"{runner_up:.1%}") == (
            "compute-launch",
            "47.4%",
            "34.9%",
        )
        assert end["questions"][0]["runner_up"] == "collective-latency"

        with pytest.raises(ToolError) as refused:
            await s.call("conclude", **story.CONCLUSION)
        message = str(refused.value)
        assert "collective-latency (34.9%) is within a factor of 2 of compute-launch (47.4%)" in (
            message
        )
        assert "separates compute-launch against collective-latency" in message
        assert "acknowledge" in message

        concluded = await s.call("conclude", **story.CONCLUSION, acknowledge=REASON)
        assert concluded["acknowledged"] == REASON
        report = (await s.session.read_resource(f"casefile://{story.CASE}/report.md")).contents
        text = report[0].text  # type: ignore[union-attr]
    assert s.stderr == ""
    assert f"{ACTOR} (" in text  # who took part
    assert f"acknowledged: {REASON}" in text
    with open_service(db) as service:
        verified = service.library.verify(story.CASE)
        events = service.reader.events(story.CASE)
    assert verified.ok, verified.message
    assert {event.actor for event in events} == {ACTOR}
    assert events[-1].payload["acknowledged"] == REASON
    assert events[-1].payload["root_cause"] == "compute-launch"
