"""The write tools: each row of the action table, the guarded conclusion, probes and ingest.

A row's tool runs the row's action through the service, exactly as the CLI and the TUI do;
the conclusion goes through the honesty guard first (:mod:`casefile.app.conclusion_guard`).
Probes and ingest are not rows yet: their tools build the service's probe requests. Running
a command (here or over SSH) is allowed only when the server was started with
``--allow-run``; pasted output always is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casefile.actions.probe_actions import RunProbe
from casefile.actions.spec import ActionSpec
from casefile.actions.table import CONCLUDE, EXPORT, REPORT
from casefile.app.probing import SshOptions
from casefile.app.who import Who
from casefile.errors import CasefileError, DomainError
from casefile.mcp.schemas import action_of

if TYPE_CHECKING:
    from casefile.app.probing import CancelToken, ProbeRequest
    from casefile.app.recording import ProbeRecord
    from casefile.app.service import CaseService


class Refused(CasefileError):
    """A request this server does not carry out (the guard, a command without --allow-run)."""


@dataclass
class Caller:
    """Who writes, and what the server allows them."""

    service: CaseService
    who: Who
    allow_run: bool
    cancel: CancelToken | None = None
    ssh: SshOptions = field(default_factory=SshOptions)
    #: the only directory report and export write under (the server's working directory)
    output_dir: Path = field(default_factory=Path.cwd)


def run_row(caller: Caller, spec: ActionSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A row's action from the tool's arguments, run on its case."""
    action = action_of(spec, arguments)
    if spec is REPORT or spec is EXPORT:
        action = _confined(action, caller.output_dir)
    service = caller.service
    case_id = service.library.resolve(str(arguments["case"])) if spec.on_case else ""
    who = caller.who if spec.stamped else Who()
    if spec is CONCLUDE:
        return _conclude(caller, case_id, action, arguments.get("acknowledge"))
    outcome = action.run(service, case_id, who)
    answer: dict[str, Any] = {"said": outcome.said, "value": outcome.value}
    if outcome.seqs:
        answer["seqs"] = list(outcome.seqs)
    if case_id:
        answer["case"] = case_id
    return answer


def _confined(action: Any, root: Path) -> Any:
    """The report or export with its path inside ``root``: an agent writes files only there
    (a relative path is taken from it; ``..``, an absolute path elsewhere, or a symbolic link
    leading out is refused), so it can never replace a file of its user's elsewhere."""
    field_name = "path" if hasattr(action, "path") else "directory"
    given = str(getattr(action, field_name))
    wanted = Path(given) if Path(given).is_absolute() else root / given
    resolved = wanted.resolve()
    if resolved != root and root not in resolved.parents:
        raise Refused(
            f"{given!r} is outside {root}: this server writes reports and exports only under "
            "the directory it was started in (--output-dir)"
        )
    return replace(action, **{field_name: str(resolved)})


def _conclude(caller: Caller, case_id: str, action: Any, acknowledge: object) -> dict[str, Any]:
    from casefile.app.conclusion_guard import conclude_acknowledged, hold

    service = caller.service
    held = hold(service.reader.status(case_id), action.root_cause)
    if held is not None and not acknowledge:
        raise Refused(held.message())
    if held is None:
        outcome = action.run(service, case_id, caller.who)
        answer = {"said": outcome.said, "value": outcome.value, "seqs": list(outcome.seqs)}
        if acknowledge:
            answer["note"] = "nothing held the conclusion back: no acknowledgement recorded"
        return answer
    event = conclude_acknowledged(
        service,
        case_id,
        action.summary,
        action.root_cause,
        action.recommendations,
        action.lessons,
        str(acknowledge),
        caller.who,
    )
    return {
        "said": f"conclusion recorded as event {event.seq}, against the guard: "
        + "; ".join(held.warnings),
        "value": str(event.seq),
        "seqs": [event.seq],
        "acknowledged": str(acknowledge),
    }


def probe_paste(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Record output captured elsewhere as a probe run (always allowed: nothing runs)."""

    host = str(arguments.get("host") or "unknown")
    action = _action(
        arguments,
        paste=str(arguments["output"]),
        hosts=() if host == "unknown" else (host,),
        taken_at=_taken_at(arguments.get("taken_at")),
        argv=_command(arguments.get("command")),
    )
    return _probe(caller, arguments, action)


def probe_state(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Record readings a person states as a probe's facts (always allowed: nothing runs)."""

    host = str(arguments.get("host") or "unknown")
    facts = arguments.get("facts")
    if not isinstance(facts, Mapping) or not facts:
        raise DomainError("facts: give at least one NAME (or NAME[SUBJECT]) and its value")
    for name, value in facts.items():
        if isinstance(value, bool):
            facts = {**facts, name: "true" if value else "false"}
        elif not isinstance(value, str | int | float):
            raise DomainError(f"facts: {name}'s value is {type(value).__name__}: give it as text")
    action = _action(
        arguments,
        stated={str(name): str(value) for name, value in facts.items()},
        hosts=() if host == "unknown" else (host,),
        taken_at=_taken_at(arguments.get("taken_at")),
    )
    return _probe(caller, arguments, action)


def _taken_at(text: object) -> str | None:
    """When pasted output was taken, in the stored form; a time without a zone is refused
    (the agent's clock is not this machine's)."""
    from datetime import datetime

    from casefile.domain.events import format_time

    if text is None:
        return None
    try:
        parsed = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise DomainError(f"taken_at {text!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise DomainError(f"taken_at {text!r} has no zone: add Z or an offset (+02:00)")
    try:
        return format_time(parsed)
    except (OverflowError, ValueError):
        raise DomainError(f"taken_at {text!r} is outside the times casefile can store") from None


def probe_run(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Run a probe here or over SSH: only with ``--allow-run``."""

    if not caller.allow_run:
        raise Refused(
            "running commands is off: the server was started without --allow-run "
            "(probe_paste records output you captured yourself)"
        )
    action = _action(
        arguments,
        hosts=tuple(str(h) for h in arguments.get("hosts") or ()),
        trust_host=bool(arguments.get("trust_host", False)),
        argv=tuple(str(word) for word in arguments.get("command") or ()),
    )
    return _probe(caller, arguments, action)


def _command(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        import shlex

        try:
            return tuple(shlex.split(value)) or (value,)
        except ValueError as error:
            raise DomainError(f"command {value!r} does not split: {error}") from None
    return tuple(str(word) for word in value)  # type: ignore[attr-defined]


def _action(arguments: Mapping[str, Any], **where: Any) -> RunProbe:
    """The probe action a tool's arguments state (the probe row's own rules)."""
    timeout = arguments.get("timeout_s")
    try:
        return RunProbe(
            probe=str(arguments["probe"]),
            load=str(arguments.get("load") or "unknown"),
            timeout=None if timeout is None else float(timeout),
            reconstructed=bool(arguments.get("reconstructed", False)),
            note=arguments.get("note"),
            setup=arguments.get("setup"),
            **where,
        )
    except ValueError as error:
        raise DomainError(str(error)) from None


def _probe(caller: Caller, arguments: Mapping[str, Any], action: RunProbe) -> dict[str, Any]:
    service = caller.service
    case_id = service.library.resolve(str(arguments["case"]))
    service.probing.probe(action.probe)  # an unknown probe: refused before anything runs
    try:
        request = action.request(caller.ssh)
    except ValueError as error:
        raise DomainError(str(error)) from None
    records = list(service.probing.run_probe(case_id, request, caller.who, caller.cancel))
    return _records(case_id, request, records)


def _records(case_id: str, request: ProbeRequest, records: list[ProbeRecord]) -> dict[str, Any]:
    runs = []
    for record in records:
        parse = record.parse
        runs.append(
            {
                "host": record.result.host,
                "ok": record.failure is None,
                "failure": record.failure,
                "probe_run_seq": record.probe_run_seq,
                "observation_seq": record.observation_seq,
                "facts": len(parse.facts) if parse.parsed else None,
                "evidence": list(record.evidence_ids),
                "set_aside_by": list(record.set_aside),
                # readings recorded and withdrawn at once: an answer in force rules their
                # rule out (``nccl-network (does not apply: nodes = single (seq 29))``)
                "withdrawn": list(record.withdrawn),
                # what a rule that could not read the run still needs (a stated reading's
                # other facts, or what the case must state: an RDMA run's port rate)
                "wanting": list(record.wanting),
                "intake_reads": list(record.intake_reads),
                "seqs": list(record.seqs),
            }
        )
    failed = [run for run in runs if not run["ok"]]
    if failed and len(failed) == len(runs):
        first = failed[0]
        raise Refused(
            f"probe {request.probe} failed on {first['host']}: {first['failure']} "
            f"(recorded as probe run {first['probe_run_seq']})"
        )
    return {"case": case_id, "probe": request.probe, "runs": runs}


def ingest(caller: Caller, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Ingest a recorded terminal session: every run and note it proposes, in one append."""
    service = caller.service
    case_id = service.library.resolve(str(arguments["case"]))
    proposal = service.probing.propose_ingest(
        str(arguments["transcript"]).encode("utf-8"),
        fmt=str(arguments.get("format") or "auto"),
        load=str(arguments.get("load") or "unknown"),
        host=str(arguments.get("host") or "unknown"),
    )
    runs = service.probing.ingest(case_id, proposal, None, caller.who)
    return {
        "case": case_id,
        "said": f"ingested {len(runs)} run(s) from the transcript",
        "runs": [
            {"probe": run.probe, "host": run.host, "command": run.line, "parsed": run.parsed}
            for run in runs[:40]
        ],
    }
