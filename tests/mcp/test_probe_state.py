"""The agent interface's ``probe_state``: readings a user tells the agent, recorded as the
probe's facts and read as reported evidence; a bad statement is one line and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from casefile.app.opening import open_service
from casefile.domain.kinds import STATED_RELIABILITY
from tests.mcp.client import ToolError, serve


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'casefile.db'}"


def _events(db: str, case: str) -> list[tuple[str, dict[str, object]]]:
    with open_service(db) as service:
        return [(e.type, dict(e.payload)) for e in service.store.load(case)]


async def test_a_stated_reading_is_recorded_and_read_as_reported(db: str) -> None:
    async with serve(db) as s:
        await s.call("case_new", title="slow", case_id="c1", playbook="gpu-throughput")
        stated = await s.call(
            "probe_state",
            case="c1",
            probe="nvidia-smi-q",
            facts={"pcie.link.gen.current[gpu0]": "2", "pcie.link.gen.max[gpu0]": "5"},
            load="under-load",
            host="rig",
            taken_at="2026-01-05T10:00:00Z",
        )
        (run,) = stated["runs"]
        assert run["ok"] and run["facts"] == 2 and run["evidence"]
        with pytest.raises(ToolError) as refused:
            await s.call("probe_state", case="c1", probe="nvidia-smi-q", facts={"tok_s": "8"})
    assert "gives no fact 'tok_s'" in str(refused.value) and "\n" not in str(refused.value)
    events = _events(db, "c1")
    ran = [p for t, p in events if t == "probe.ran"]
    assert len(ran) == 1 and ran[0]["source"] == "stated" and ran[0]["host"] == "rig"
    evidence = [p for t, p in events if t == "evidence.assessed" and p.get("rule")]
    assert [(e["kind"], e["reliability"]) for e in evidence] == [("reported", STATED_RELIABILITY)]


async def test_a_value_that_is_not_text_number_or_boolean_is_refused(db: str) -> None:
    async with serve(db) as s:
        await s.call("case_new", title="slow", case_id="c1", playbook="gpu-throughput")
        with pytest.raises(ToolError) as refused:
            await s.call(
                "probe_state", case="c1", probe="nvidia-smi-q",
                facts={"pcie.link.gen.current": None},
            )  # fmt: skip
        assert "None" in str(refused.value) and "\n" not in str(refused.value)
        done = await s.call(
            "probe_state", case="c1", probe="nvidia-smi-q",
            facts={"pcie.link.gen.current[gpu0]": 2, "pcie.link.gen.max[gpu0]": 5},
        )  # fmt: skip
        assert done["runs"][0]["facts"] == 2


async def test_an_agent_s_reading_on_the_wrong_scale_is_refused(db: str) -> None:
    """An agent writing 0.9 for a GPU 90 % busy (read as idle below 1 %), or 32 for a profile
    busy a third of each step (read as thirty-two times the whole): one line, nothing written;
    each on its own scale is read."""
    async with serve(db) as s:
        await s.call("case_new", title="slow", case_id="c1", playbook="gpu-throughput@3")
        for probe, facts, says in (
            ("nvidia-smi-q", {"utilization.gpu[gpu0]": 0.9}, "a percentage from 0 to 100"),
            ("nsys-stats", {"gpu.busy_share": 32}, "a fraction from 0 to 1"),
        ):
            with pytest.raises(ToolError) as refused:
                await s.call("probe_state", case="c1", probe=probe, facts=facts)
            assert says in str(refused.value) and "\n" not in str(refused.value)
        assert [t for t, _ in _events(db, "c1") if t == "probe.ran"] == []
        for probe, facts in (
            ("nvidia-smi-q", {"utilization.gpu[gpu0]": 90}),
            ("nsys-stats", {"gpu.busy_share": 0.32}),
        ):
            done = await s.call("probe_state", case="c1", probe=probe, facts=facts,
                                load="under-load")  # fmt: skip
            assert done["runs"][0]["evidence"], done
