"""The read tools: what an agent asks about a case, answered in capped, plain-worded JSON.

Every answer is built from the service's typed views and appends nothing. Status puts the
"never measured" warnings first, worded as what to do; long texts (a probe's raw output) are
cut to their head and tail with a pointer to where the rest is read, so one call never floods
an agent's context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from casefile.errors import DomainError

if TYPE_CHECKING:
    from casefile.app.service import CaseService
    from casefile.app.views.status import StatusView

#: the most characters one answer's text may hold
ANSWER_CAP = 24_000
#: the most characters of one raw output stream an event's answer shows (head and tail)
OUTPUT_CAP = 4_000
#: the most characters a page of one raw output stream holds
PAGE = 16_000
#: the most rows a list in an answer holds
ROWS = 40


def list_cases(service: CaseService) -> dict[str, Any]:
    rows = service.library.cases(with_leaders=True)
    return {"cases": [row.to_json() for row in rows[:ROWS]], "count": len(rows)}


def status(service: CaseService, case_id: str) -> dict[str, Any]:
    """Leader and runner-up of each question, warnings ("never measured" first, in plain
    words), the hypotheses that do not apply, and the first next step."""
    view = service.reader.status(case_id)
    return status_answer(view)


def status_answer(view: StatusView) -> dict[str, Any]:
    confidence = {row.id: row.confidence for row in view.hypotheses}
    questions = []
    for q in view.questions:
        questions.append(
            {
                "id": q.id,
                "text": q.text,
                "leader": q.leader,
                "leader_text": q.leader_text,
                "leader_confidence": confidence.get(q.leader, 0.0),
                "leading_leaf": q.leading_leaf,
                "runner_up": q.runner_up,
                "runner_up_text": q.runner_up_text,
                "runner_up_confidence": None
                if q.runner_up is None
                else confidence.get(q.runner_up, 0.0),
                "evidence": q.evidence,
            }
        )
    answer: dict[str, Any] = {
        "case": view.case.id,
        "title": view.case.title,
        "events": view.case.events,
        "warnings": warning_lines(view),
        "questions": questions,
        "hypotheses": [
            {
                "id": row.id,
                "text": row.text,
                "parent": row.parent,
                "confidence": row.confidence,
                "status": row.status,
            }
            for row in view.hypotheses
            if row.status == "open"
        ][:ROWS],
        "does_not_apply": [
            {"id": row.id, "text": row.text, "because": row.reason}
            for row in view.hypotheses
            if row.status == "does not apply"
        ],
        "next_steps": next_step_lines(view)[:3],
    }
    if view.concluded is not None:
        answer["concluded"] = view.concluded.to_json()
    if view.integrity:
        answer["integrity"] = list(view.integrity)
    return answer


def warning_lines(view: StatusView) -> list[str]:
    """Each warning as a line an agent acts on; "never measured" first."""
    lines: list[tuple[int, str]] = []
    for group in view.warning_groups:
        if group.code == "never-measured":
            line = (
                f"NEVER MEASURED: {group.message}. Do not build on it or conclude it: "
                "measure it first (see next_steps)."
            )
            lines.append((0, line))
        else:
            times = f" ({group.count}×)" if group.count > 1 else ""
            lines.append((1, f"{group.code}: {group.message}{times}"))
    return [line for _, line in sorted(lines, key=lambda item: item[0])][:ROWS]


def next_step_lines(view: StatusView) -> list[dict[str, Any]]:
    """The ranked next steps, each with its one-line reason and the figure they are ranked by
    (what a step tells about the leaders at its cost, an A/B that tries the leader's remedy
    weighted by the leader's lead: ``separates`` then says so)."""
    reasons = {(row.rule, row.question): row.rationale for row in view.next_steps}
    steps = []
    for group in view.next_step_groups:
        probes = ", ".join(f"{p.probe} ({p.cost})" for p in group.probes)
        load = "" if group.load == "any" else f" {group.load.replace('-', ' ')}"
        rationale = reasons.get((group.rule, group.question), "")
        steps.append(
            {
                "step": f"read rule {group.rule}{load} with {probes}",
                "question": group.question,
                "expected_gain_bits": round(group.expected_gain_bits, 3),
                "ranked_bits": round(group.ranked_bits, 3),
                "reason": _first_sentence(rationale) or group.separates,
                "separates": group.separates,
            }
        )
    return steps


def next_steps(service: CaseService, case_id: str) -> dict[str, Any]:
    view = service.reader.status(case_id)
    return {"case": case_id, "next_steps": next_step_lines(view)[:ROWS]}


def why(service: CaseService, case_id: str, hypothesis: str) -> dict[str, Any]:
    """Why a hypothesis has its confidence: its prior and each piece of evidence that moved it."""
    view = service.reader.hypothesis_detail(case_id, hypothesis, None)
    answer = view.to_json()
    contributions = answer.get("contributions")
    if isinstance(contributions, list) and len(contributions) > ROWS:
        answer["contributions"] = contributions[:ROWS]
        answer["contributions_left_out"] = len(contributions) - ROWS
    return answer


def replay_summary(service: CaseService, case_id: str) -> dict[str, Any]:
    """Where the story went: pivots, the surprising steps, who leads now."""
    view = service.reader.replay(case_id)
    surprises = [
        {"seq": step.seq, "summary": step.summary, "surprise_bits": step.surprise_bits}
        for step in view.steps
        if step.surprising
    ]
    return {
        "case": case_id,
        "steps": len(view.steps),
        **view.summary.to_json(),
        "surprises": surprises[:ROWS],
    }


def show_event(
    service: CaseService, case_id: str, seq: int, stream: str | None = None, offset: int = 0
) -> dict[str, Any]:
    """One event with its raw output: long output cut to head and tail, with a pointer; with
    ``stream``, a page of that stream from ``offset``."""
    detail = service.reader.event_detail(case_id, seq)
    answer = detail.to_json()
    run = answer.get("probe_run")
    if stream is not None:
        if not isinstance(run, Mapping) or not isinstance(run.get(stream), Mapping):
            raise DomainError(f"event {seq} holds no {stream} output")
        text = str(run[stream].get("text") or "")
        page = text[offset : offset + PAGE]
        end = offset + len(page)
        return {
            "seq": seq,
            "stream": stream,
            "offset": offset,
            "text": page,
            "size": len(text),
            "next_offset": end if end < len(text) else None,
        }
    if isinstance(run, dict):
        for name in ("stdout", "stderr"):
            output = run.get(name)
            if isinstance(output, dict) and isinstance(output.get("text"), str):
                output["text"] = _head_and_tail(output["text"], seq, name)
    return answer


def intake_questions(service: CaseService, case_id: str) -> dict[str, Any]:
    """The playbooks' intake questions: the answers each takes, and what the case holds."""
    items = service.reader.intake(case_id)
    return {
        "case": case_id,
        "questions": [
            {
                "id": item.id,
                "text": item.text,
                "answers": list(item.answers),
                "answer": item.answer,
                "known": item.known_fields,
                "counted_by": item.counted_by,
                "does_not_apply": item.does_not_apply,
            }
            for item in items
        ],
    }


def log_text(service: CaseService, case_id: str) -> str:
    """The case's log, one event a line."""
    rows = service.reader.log(case_id)
    return "".join(f"{r.seq}\t{r.when}\t{r.actor}\t{r.summary}\n" for r in rows)


def report_markdown(service: CaseService, case_id: str) -> str:
    from casefile.report import ReportOptions, build_report, render

    report = build_report(service, case_id, ReportOptions(facts=False))
    return render(report, "md").decode("utf-8")


def cap(text: str, limit: int = ANSWER_CAP) -> str:
    """``text`` at most ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    left = len(text) - limit
    return text[:limit] + f"\n… {left} characters left out (ask for less: a narrower tool)"


def _head_and_tail(text: str, seq: int, stream: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    head, tail = text[: OUTPUT_CAP // 2], text[-OUTPUT_CAP // 4 :]
    left = len(text) - len(head) - len(tail)
    return (
        f"{head}\n… {left} characters of {stream} left out: show_event with seq={seq}, "
        f"stream={stream!r} and offset={len(head)} reads them …\n{tail}"
    )


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]
