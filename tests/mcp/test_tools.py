"""`casefile mcp` through the SDK's own client: the tool list and schemas, each tool once, the
resources, the actor, and each kind of bad input (one line, nothing partial written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casefile.actions.table import ACTIONS, IMPORT, INGEST, PROBE
from casefile.app.opening import open_service
from casefile.mcp.tools import tool_name
from tests.mcp.client import Server, ToolError, serve

READ_ONLY = {
    "list_cases",
    "status",
    "next_steps",
    "why",
    "replay_summary",
    "show_event",
    "intake_questions",
}


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'casefile.db'}"


def head(db: str, case_id: str) -> int:
    with open_service(db) as service:
        return service.reader.head(case_id)[0]


async def new_case(s: Server, case_id: str = "c1", **more: object) -> str:
    made = await s.call("case_new", title="Slow decode", case_id=case_id, **more)
    return str(made["value"])


async def test_tools_are_the_action_table_rows_and_the_reads(db: str) -> None:
    async with serve(db) as s:
        listed = {tool.name: tool for tool in (await s.session.list_tools()).tools}
    rows = {tool_name(spec) for spec in ACTIONS if spec not in (IMPORT, INGEST, PROBE)}
    assert rows <= set(listed)
    assert "probe" not in listed  # the probe row is probe_paste and the gated probe_run
    assert READ_ONLY | {"probe_paste", "probe_run", "ingest"} <= set(listed)
    for name, tool in listed.items():
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
    evidence = listed["evidence_add"].input_schema
    assert evidence["properties"]["likelihoods"]["type"] == "object"
    assert evidence["properties"]["kind"]["enum"][0] == "measured"
    assert evidence["properties"]["probe_run_seq"]["type"] == "integer"
    assert set(evidence["required"]) == {"case", "likelihoods", "because"}
    prior = listed["hypothesis_add"].input_schema["properties"]["prior"]
    assert (prior["type"], prior["exclusiveMinimum"], prior["exclusiveMaximum"]) == ("number", 0, 1)
    assert listed["hypothesis_add"].input_schema["properties"]["rebalance"]["type"] == "boolean"
    assert listed["conclude"].input_schema["properties"]["recommendations"]["type"] == "array"
    assert "acknowledge" in listed["conclude"].input_schema["properties"]
    assert listed["probe_run"].annotations.open_world_hint is True


async def test_each_tool_once(db: str, tmp_path: Path) -> None:
    async with serve(db, "--allow-run", "--output-dir", str(tmp_path)) as s:
        cid = await new_case(s, symptom="10 tok/s", environment={"gpus": "8x H100"})
        assert (await s.call("list_cases"))["cases"][0]["id"] == cid
        await s.call("note", case=cid, text="first note")
        await s.call("act", case=cid, text="restarted the server", outcome="no change")
        qid = (await s.call("question_add", case=cid, text="Is it the disk?", question_id="disk"))[
            "value"
        ]
        hid = (await s.call("hypothesis_add", case=cid, text="Slow NVMe", under=qid, prior=0.3))[
            "value"
        ]
        await s.call("hypothesis_refine", case=cid, hypothesis_id=hid, text="NVMe throttles")
        await s.call("hypothesis_prior", case=cid, hypothesis_id=hid, prior=0.4)
        await s.call("hypothesis_retire", case=cid, hypothesis_id=hid, because="SMART is clean")
        await s.call("hypothesis_reinstate", case=cid, hypothesis_id=hid)
        added = await s.call(
            "evidence_add", case=cid, likelihoods={hid: 0.8}, because="iostat shows 100% util"
        )
        assert added["value"].startswith("e")
        await s.call("playbook_open", case=cid, playbook="gpu-throughput")
        questions = (await s.call("intake_questions", case=cid))["questions"]
        first = questions[0]
        answered = await s.call(
            "intake_answer", case=cid, answers={first["id"]: first["answers"][0]}
        )
        assert first["id"] in answered["said"]
        pasted = await s.call(
            "probe_paste",
            case=cid,
            probe="command",
            command="uptime",
            output="load average: 0.1\n" * 2000,
            taken_at="2026-01-02T11:00:00+01:00",
        )
        seq = pasted["runs"][0]["probe_run_seq"]
        ran = await s.call("probe_run", case=cid, probe="command", command=["echo", "hello"])
        assert ran["runs"][0]["ok"] is True
        transcript = "$ echo hi\nhi\n"
        await s.call("ingest", case=cid, transcript=transcript, format="shell-log")
        status = await s.call("status", case=cid)
        assert status["questions"] and "next_steps" in status
        steps = (await s.call("next_steps", case=cid))["next_steps"]
        assert all(step["reason"] for step in steps)
        ranked = [step["ranked_bits"] for step in steps]
        assert ranked == sorted(ranked, reverse=True)  # in the order they are ranked by
        why = await s.call("why", case=cid, hypothesis=hid)
        assert why["id"] == hid and why["contributions"]
        assert "pivots" in await s.call("replay_summary", case=cid)
        shown = await s.call("show_event", case=cid, seq=seq)
        assert shown["occurred_at"] == "2026-01-02T10:00:00.000000Z"
        text = shown["probe_run"]["stdout"]["text"]
        assert "characters of stdout left out" in text and f"seq={seq}" in text
        page = await s.call("show_event", case=cid, seq=seq, stream="stdout", offset=0)
        assert page["text"].startswith("load average") and page["next_offset"] is not None
        with pytest.raises(ToolError, match="is not a probe run"):
            await s.call("experiment", case=cid, change="NCCL_P2P_DISABLE=1", baseline=3, variant=4)
        await s.call("conclude", case=cid, summary="the disk", acknowledge="a smoke test")
        exported = await s.call("export", case=cid, directory="export")
        assert (tmp_path / "export" / "events.jsonl").is_file(), exported
        await s.call("report", case=cid, path=str(tmp_path / "r.md"))
        assert (tmp_path / "r.md").is_file()
        await s.call("report", case=cid, path="sub/../r2.md")
        assert (tmp_path / "r2.md").is_file()
        resources = {str(r.uri) for r in (await s.session.list_resources()).resources}
        assert {f"casefile://{cid}/log", f"casefile://{cid}/report.md"} <= resources
        log = (await s.session.read_resource(f"casefile://{cid}/log")).contents[0]
        assert "scripted-agent/1.0 via mcp" in log.text  # type: ignore[union-attr]
        report = (await s.session.read_resource(f"casefile://{cid}/report.md")).contents[0]
        assert "# " in report.text  # type: ignore[union-attr]
        assert s.stderr == ""


async def test_events_name_the_client_and_the_channel(db: str) -> None:
    async with serve(db, client=("claude-code", "2.1.4")) as s:
        cid = await new_case(s)
        await s.call("note", case=cid, text="hello")
    async with serve(db, "--actor", "alice") as s:
        await s.call("note", case=cid, text="again")
    with open_service(db) as service:
        actors = [event.actor for event in service.reader.events(cid)]
    assert actors[0] == "claude-code/2.1.4 via mcp"
    assert actors[-2:] == ["claude-code/2.1.4 via mcp", "alice via mcp"]


async def test_read_tools_append_nothing(db: str) -> None:
    async with serve(db) as s:
        cid = await new_case(s)
        before = head(db, cid)
        for name in ("status", "next_steps", "replay_summary", "intake_questions"):
            await s.call(name, case=cid)
        await s.call("show_event", case=cid, seq=1)
        await s.call("list_cases")
    assert head(db, cid) == before


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("note", {"case": "c1"}, "'text' is a required property"),
        ("hypothesis_add", {"case": "c1", "text": "x", "under": "throughput", "prior": 2}, "prior"),
        ("note", {"case": "c1", "text": "x", "colour": "red"}, "colour"),
        ("evidence_add", {"case": "c1", "likelihoods": {"x": "high"}, "because": "b"}, "likel"),
        ("note", {"case": "nope", "text": "x"}, "no case 'nope'"),
        ("why", {"case": "c1", "hypothesis": "nope"}, "nope"),
        ("hypothesis_retire", {"case": "c1", "hypothesis_id": "nope", "because": "b"}, "nope"),
        ("probe_paste", {"case": "c1", "probe": "no-such-probe", "output": "x"}, "no-such"),
        ("probe_run", {"case": "c1", "probe": "command", "command": ["true"]}, "--allow-run"),
        ("no_such_tool", {}, "no tool"),
        (
            "probe_paste",
            {"case": "c1", "probe": "command", "output": "x", "taken_at": "noon"},
            "ISO",
        ),
        (
            "probe_paste",
            {"case": "c1", "probe": "command", "output": "x", "taken_at": "2026-01-02T10:00:00"},
            "no zone",
        ),
    ],
)
async def test_bad_input_is_one_line_and_writes_nothing(
    db: str, tool: str, arguments: dict[str, object], says: str
) -> None:
    async with serve(db) as s:
        await new_case(s, playbook="gpu-throughput")
        before = head(db, "c1")
        with pytest.raises(ToolError) as refused:
            await s.call(tool, **arguments)
        assert await s.call("status", case="c1")  # the server still answers
    message = str(refused.value)
    assert says in message and "\n" not in message and "Traceback" not in message
    assert head(db, "c1") == before
    assert "Traceback" not in s.stderr


@pytest.mark.parametrize(
    ("command", "timeout", "says"),
    [(["false"], None, "exit"), (["sleep", "30"], 0.5, "timed out")],
)
async def test_a_failing_or_timed_out_probe_is_one_line(
    db: str, command: list[str], timeout: float | None, says: str
) -> None:
    async with serve(db, "--allow-run") as s:
        await new_case(s)
        arguments: dict[str, object] = {"case": "c1", "probe": "command", "command": command}
        if timeout is not None:
            arguments["timeout_s"] = timeout
        with pytest.raises(ToolError) as refused:
            await s.call("probe_run", **arguments)
    message = str(refused.value)
    assert says in message and "\n" not in message, message
    assert "Traceback" not in s.stderr
    with open_service(db) as service:
        runs = [e for e in service.reader.events("c1") if e.type == "probe.ran"]
    # the failed run is recorded whole, as the CLI records it (a failure is data)
    assert len(runs) == 1 and json.dumps(runs[0].payload)


async def test_the_guard_lets_a_measured_clear_leader_through(db: str) -> None:
    async with serve(db) as s:
        cid = await new_case(s)
        await s.call("question_add", case=cid, text="Is it the disk?", question_id="disk")
        for hid in ("nvme", "network"):
            await s.call(
                "hypothesis_add", case=cid, text=hid, under="disk", prior=0.45, hypothesis_id=hid
            )
        await s.call(
            "evidence_add",
            case=cid,
            likelihoods={"nvme": 0.9, "network": 0.05},
            because="iostat: 100% util on nvme0 during the run",
        )
        with pytest.raises(ToolError, match=r"acknowledge: .* non-empty"):
            await s.call("conclude", case=cid, summary="x", root_cause="network", acknowledge="")
        with pytest.raises(ToolError, match="runner-up nvme"):
            await s.call("conclude", case=cid, summary="the network", root_cause="network")
        done = await s.call(
            "conclude", case=cid, summary="the NVMe drive", root_cause="nvme", acknowledge="sure"
        )
        assert "acknowledged" not in done and "no acknowledgement recorded" in done["note"]
    with open_service(db) as service:
        concluded = service.reader.events(cid)[-1]
    assert concluded.type == "case.concluded" and "acknowledged" not in concluded.payload


async def test_report_and_export_write_only_under_the_output_directory(
    db: str, tmp_path: Path
) -> None:
    """An agent cannot replace a file of its user's elsewhere: a path outside the directory
    the server was given (absolute, ``..``, or a link leading out) is refused, and nothing
    is written."""
    inside = tmp_path / "out"
    inside.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    precious = elsewhere / "notes.md"
    precious.write_text("mine\n")
    (inside / "link").symlink_to(elsewhere)
    async with serve(db, "--output-dir", str(inside)) as s:
        cid = await new_case(s)
        for path in (str(precious), "../elsewhere/notes.md", "link/notes.md"):
            with pytest.raises(ToolError, match="writes reports and exports only under"):
                await s.call("report", case=cid, path=path)
        with pytest.raises(ToolError, match="outside"):
            await s.call("export", case=cid, directory=str(elsewhere / "case"))
    assert precious.read_text() == "mine\n"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["notes.md"]
