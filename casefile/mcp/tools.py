"""The server's tools: one per row of the action table, the probe tools and the read tools.

Each :class:`ToolSpec` has its name, description, JSON input schema, whether it only reads
(annotated read-only for the client), and the function that answers it. The rows' tools are
made from the table, so a new row becomes a tool with no change here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from casefile.actions.spec import ActionSpec
from casefile.actions.table import ACTIONS, CONCLUDE, IMPORT, INGEST, PROBE
from casefile.app.probing import LOADS
from casefile.mcp import reads, writes
from casefile.mcp.schemas import CASE_PROPERTY, row_schema
from casefile.mcp.writes import Caller

Answer = Callable[[Caller, Mapping[str, Any]], dict[str, Any]]

#: rows that are no tool of their own: importing a case directory, or ingesting a transcript
#: by its path, reads the server's disk (the ingest tool takes the transcript's text); the
#: probe row is two tools, pasted output (always allowed) and a command run here or over SSH
#: (only with --allow-run), both building the row's action
_NOT_TOOLS = {IMPORT.name, INGEST.name, PROBE.name}
#: tool names where a row's command words do not make a good one
_NAMES = {"new": "case_new", "intake": "intake_answer"}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    schema: dict[str, Any]
    read_only: bool
    answer: Answer
    #: runs a command (local or SSH): only with --allow-run
    runs_commands: bool = False


def tool_name(spec: ActionSpec) -> str:
    return _NAMES.get(spec.name, "_".join(spec.command))


_ACKNOWLEDGE = {
    "acknowledge": {
        "type": "string",
        "minLength": 1,
        "description": "conclude although the honesty guard holds the conclusion back: your "
        "reason, recorded in the conclusion and shown in the report",
    }
}


def _row_tool(spec: ActionSpec) -> ToolSpec:
    extra = _ACKNOWLEDGE if spec is CONCLUDE else None
    description = f"{spec.heading or spec.title}: {spec.help}"
    if spec is CONCLUDE:
        description += (
            ". Refused while the root cause was never measured or the runner-up is within a "
            "factor of two; the refusal names the step that would separate them"
        )

    def answer(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return writes.run_row(caller, spec, arguments)

    return ToolSpec(
        tool_name(spec), spec.title, description, row_schema(spec, extra), False, answer
    )


def _object(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


_CASE = {"case": CASE_PROPERTY}
_PROBE_COMMON: dict[str, Any] = {
    **_CASE,
    "probe": {"type": "string", "minLength": 1, "description": "the probe, e.g. nvidia-smi-q"},
    "load": {
        "type": "string",
        "enum": list(LOADS),
        "description": "what the GPUs were doing when the output was taken",
    },
    "note": {"type": "string", "description": "what the run is for"},
    "setup": {
        "type": "string",
        "minLength": 1,
        "description": "another setup than the one under investigation (kept, not read)",
    },
}


def _case_tool(name: str, title: str, description: str, read: Callable[..., Any]) -> ToolSpec:
    def answer(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
        case_id = caller.service.library.resolve(str(arguments["case"]))
        result: dict[str, Any] = read(caller.service, case_id)
        return result

    return ToolSpec(name, title, description, _object(dict(_CASE), "case"), True, answer)


def _why(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
    case_id = caller.service.library.resolve(str(arguments["case"]))
    return reads.why(caller.service, case_id, str(arguments["hypothesis"]))


def _show(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
    case_id = caller.service.library.resolve(str(arguments["case"]))
    return reads.show_event(
        caller.service,
        case_id,
        int(arguments["seq"]),
        arguments.get("stream"),
        int(arguments.get("offset", 0)),
    )


def _reads() -> list[ToolSpec]:
    return [
        ToolSpec(
            "list_cases",
            "Cases",
            (
                "The cases in the database: id, title, events, who leads each question "
                "(null for a case too long to fold just to list it: its status has them)"
            ),
            _object({}),
            True,
            lambda caller, arguments: reads.list_cases(caller.service),
        ),
        _case_tool(
            "status",
            "Status",
            "Each question's leader and runner-up, warnings ('never measured' first, in plain "
            "words), the hypotheses that do not apply, and the next steps",
            reads.status,
        ),
        _case_tool(
            "next_steps",
            "Next steps",
            "What to measure or try next, ranked by what it would tell at its cost (the "
            "leading hypothesis's remedy weighted by its lead), each with its one-line reason",
            reads.next_steps,
        ),
        ToolSpec(
            "why",
            "Why this confidence",
            "Why a hypothesis has its confidence: its prior and each piece of evidence",
            _object(
                {**_CASE, "hypothesis": {"type": "string", "minLength": 1}}, "case", "hypothesis"
            ),
            True,
            _why,
        ),
        _case_tool(
            "replay_summary",
            "Replay summary",
            "Where the investigation went: pivots, surprising steps, who leads now",
            reads.replay_summary,
        ),
        ToolSpec(
            "show_event",
            "One event",
            "One event in full with its raw output (long output cut, with a pointer); with "
            "stream and offset, a page of that output",
            _object(
                {
                    **_CASE,
                    "seq": {"type": "integer", "minimum": 1},
                    "stream": {"type": "string", "enum": ["stdout", "stderr"]},
                    "offset": {"type": "integer", "minimum": 0},
                },
                "case",
                "seq",
            ),
            True,
            _show,
        ),
        _case_tool(
            "intake_questions",
            "Intake questions",
            "The playbook's intake questions about the symptom, their answers, and what the "
            "case already holds (answer them with intake_answer)",
            reads.intake_questions,
        ),
    ]


def _probes() -> list[ToolSpec]:
    paste = {
        **_PROBE_COMMON,
        "output": {"type": "string", "description": "the output as captured"},
        "command": {
            "description": "the command that produced it",
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        },
        "host": {"type": "string", "minLength": 1, "description": "where it was taken"},
        "taken_at": {"type": "string", "description": "when it was taken (ISO 8601 UTC)"},
        "reconstructed": {"type": "boolean", "description": "rebuilt from what was reported"},
    }
    stated = {
        **_PROBE_COMMON,
        "facts": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {"type": ["string", "number", "boolean"]},
            "description": "the readings as the probe's facts: NAME or NAME[SUBJECT] to the "
            'value as said, e.g. {"pcie.link.gen.current[gpu0]": 2, "throughput": "231 GB/s"}; '
            'a share as a fraction ({"gpu.busy_share": 0.32}, not 32 or "32 %"), utilisation '
            'in percent as nvidia-smi prints it ({"utilization.gpu[gpu0]": 90}, not 0.9): the '
            "others are refused; a probe that declares its facts takes those and the ones only "
            "a person states (a profile's gpu.busy_share)",
        },
        "host": paste["host"],
        "taken_at": paste["taken_at"],
    }
    run = {
        **_PROBE_COMMON,
        "command": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "hosts": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "trust_host": {"type": "boolean", "description": "accept an unknown SSH host key"},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0},
    }
    transcript = {
        **_CASE,
        "transcript": {"type": "string", "minLength": 1},
        "format": {"type": "string", "description": "auto, script, asciinema, …"},
        "load": _PROBE_COMMON["load"],
        "host": {"type": "string", "minLength": 1},
    }
    return [
        ToolSpec(
            "probe_paste",
            "Paste probe output",
            "Record output you captured yourself as a probe run (parsed, read by the rules)",
            _object(paste, "case", "probe", "output"),
            False,
            writes.probe_paste,
        ),
        ToolSpec(
            "probe_state",
            "State readings",
            'Record readings someone states without their output ("the link sits at Gen2 '
            "x16\") as the probe's facts: nothing runs, and the rules read them as reported "
            "evidence, weaker than a captured output",
            _object(stated, "case", "probe", "facts"),
            False,
            writes.probe_state,
        ),
        ToolSpec(
            "probe_run",
            "Run a probe",
            "Run a probe here or over SSH and record it (only if the server allows running)",
            _object(run, "case", "probe"),
            False,
            writes.probe_run,
            runs_commands=True,
        ),
        ToolSpec(
            "ingest",
            "Ingest a transcript",
            "Record every command and its output from a terminal session transcript",
            _object(transcript, "case", "transcript"),
            False,
            writes.ingest,
        ),
    ]


def all_tools() -> list[ToolSpec]:
    rows = [_row_tool(spec) for spec in ACTIONS if spec.name not in _NOT_TOOLS]
    return [*_reads(), *rows, *_probes()]


TOOLS: dict[str, ToolSpec] = {tool.name: tool for tool in all_tools()}
