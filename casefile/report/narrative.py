"""The sections that tell the story: summary, timeline, actions and lessons, integrity."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Mapping
from typing import Any

from casefile import __version__
from casefile.app.views.summaries import experiment_text
from casefile.domain.beliefs.scoring import contributions
from casefile.report.model import (
    Action,
    Closing,
    Integrity,
    Participant,
    Ref,
    RootCause,
    Summary,
    Support,
    TimelineRow,
)
from casefile.report.sources import Sources, conditions_text, fact_digest, quote, reading_of
from casefile.report.times import duration, seconds_between, show

#: How many pieces of evidence the summary names for a root cause.
RESTS_ON = 5


def build_summary(src: Sources) -> Summary:
    first, last = src.events[0], src.events[-1]
    opened = first.payload
    environment = opened.get("environment") or {}
    concluded = src.status.concluded
    actors = Counter(event.actor for event in src.events)
    order = list(dict.fromkeys(event.actor for event in src.events))
    return Summary(
        case_id=src.case_id,
        title=str(opened.get("title", "")),
        symptom=None if opened.get("symptom") is None else str(opened["symptom"]),
        environment=tuple((str(k), str(environment[k])) for k in sorted(environment)),
        outcome=None if concluded is None else concluded.summary,
        outcome_ref=None if concluded is None else src.ref(concluded.seq),
        root_causes=root_causes(src),
        started=show(first.when, src.zone),
        ended=show(last.when, src.zone),
        duration=duration(seconds_between(first.when, last.when)),
        first=Ref(first.seq, first.hash),
        last=Ref(last.seq, last.hash),
        participants=tuple(Participant(actor, actors[actor]) for actor in order),
        zone=src.zone_name,
    )


def root_causes(src: Sources) -> tuple[RootCause, ...]:
    """For each question: the conclusion's root cause if it names one there, else the leader."""
    concluded = src.status.concluded
    named = concluded.root_cause if concluded is not None else None
    confidences = {row.id: row for row in src.status.hypotheses}
    out = []
    for question in src.status.questions:
        chosen, is_named = question.leader, False
        if named is not None and src.projection.hypothesis_question.get(named) == question.id:
            chosen, is_named = named, True
        row = confidences.get(chosen)
        out.append(
            RootCause(
                hypothesis=chosen,
                text=row.text if row is not None else chosen,
                question=question.id,
                confidence=row.confidence if row is not None else 0.0,
                concluded=is_named,
                rests_on=supports(src, chosen),
            )
        )
    return tuple(out)


def supports(src: Sources, hypothesis: str) -> tuple[Support, ...]:
    """The evidence that raised ``hypothesis`` most (leave-one-out log-odds, bits)."""
    found = [c for c in contributions(src.projection, hypothesis) if c.bits > 0.0]
    found.sort(key=lambda c: (-c.bits, c.seq))
    return tuple(
        Support(c.evidence_id, Ref(c.seq, c.hash), c.bits, reading_of(src.event(c.seq).payload))
        for c in found[:RESTS_ON]
    )


def build_timeline(src: Sources) -> tuple[TimelineRow, ...]:
    """The curated steps: notes, questions and hypotheses as they were put forward and changed,
    probe runs, evidence, actions, pivots and the conclusion (observations and set-asides have
    sections of their own). Every point of the chart is one of these rows."""
    pivots: dict[int, list[str]] = {}
    for step in src.trajectory:
        for qid, (old, new) in step.pivots.items():
            pivots.setdefault(step.seq, []).append(f"{qid}: {old} → {new}")
    observations = src.projection.observations
    rows = []
    for event in src.events:
        p = event.payload
        host = conditions = facts = None
        kind = event.type.split(".")[0]
        if event.type == "note.added":
            text = str(p["text"])
        elif event.type == "action.taken":
            text = str(p["text"]) + (f" → {p['outcome']}" if p.get("outcome") else "")
        elif event.type == "probe.ran":
            kind = "probe"
            text = probe_line(p)
            host = str(p.get("host", ""))
            conditions = conditions_text(p.get("conditions"))
            observation = observations.get(event.seq + 1)
            if observation is not None and observation.get("probe_run_seq") == event.seq:
                facts = fact_digest(observation.get("facts", ()))
        elif event.type == "evidence.assessed":
            text = f"{p['evidence_id']} ({p.get('kind', 'measured')}): {reading_of(p)}"
        elif event.type == "experiment.recorded":
            kind = "experiment"
            text = experiment_text(p)
        elif event.type == "question.proposed":
            text = f"question {p['question_id']}: {p['text']}"
        elif event.type == "hypothesis.proposed":
            under = p.get("parent_id") or p.get("question_id")
            text = (
                f"proposed {p['hypothesis_id']} under {under} (prior {p['prior']:g}): {p['text']}"
            )
        elif event.type == "hypothesis.retired":
            text = f"retired {p['hypothesis_id']}: {p['reason']}"
        elif event.type == "hypothesis.reinstated":
            text = f"reinstated {p['hypothesis_id']}"
        elif event.type == "hypothesis.refined":
            text = f"refined {p['hypothesis_id']}: {p['text']}"
        elif event.type == "case.concluded":
            kind = "conclusion"
            text = str(p["summary"])
        elif event.seq in pivots:
            kind = "pivot"
            text = event.type
        else:
            continue
        if event.seq in pivots:
            text += " — pivot " + "; ".join(pivots[event.seq])
        recorded = event.recorded_at if event.occurred_at not in (None, event.recorded_at) else None
        rows.append(
            TimelineRow(
                ref=Ref(event.seq, event.hash),
                kind=kind,
                when=show(event.when, src.zone),
                recorded=None if recorded is None else show(recorded, src.zone),
                actor=event.actor,
                text=text,
                host=host,
                conditions=conditions,
                facts=facts,
            )
        )
    return tuple(rows)


def probe_line(p: Mapping[str, Any]) -> str:
    argv = [str(arg) for arg in p.get("argv") or ()]
    origin = " (reconstructed)" if p.get("reconstructed") else ""
    setup = (p.get("conditions") or {}).get("setup")
    if setup:
        origin += f" (on another setup: {setup})"
    if p.get("error"):
        status = f"error: {p['error']}"
    elif p.get("exit_status") is not None:
        status = f"exit {p['exit_status']}"
    else:
        status = str(p.get("source", ""))
    note = f" — {quote(str(p['note']))}" if p.get("note") else ""
    return f"{p.get('probe')}: {shlex.join(argv)} ({status}){origin}{note}"


def build_closing(src: Sources) -> Closing:
    actions = tuple(
        Action(Ref(e.seq, e.hash), str(e.payload["text"]), _optional(e.payload.get("outcome")))
        for e in src.events
        if e.type == "action.taken"
    )
    concluded = src.status.concluded
    return Closing(
        actions=actions,
        recommendations=() if concluded is None else concluded.recommendations,
        lessons=() if concluded is None else concluded.lessons,
        conclusion=None if concluded is None else src.ref(concluded.seq),
    )


def build_integrity(src: Sources) -> Integrity:
    last = src.events[-1]
    return Integrity(
        head=Ref(last.seq, last.hash),
        events=len(src.events),
        upto=src.upto,
        casefile_version=__version__,
        verify_command=f"casefile report verify REPORT {shlex.quote(src.case_id)}",
    )


def _optional(value: object) -> str | None:
    return None if value is None else str(value)
