"""The sections that tell the story: summary, timeline, actions and lessons, integrity."""

from __future__ import annotations

import shlex
from collections import Counter
from dataclasses import dataclass

from casefile import __version__
from casefile.app.views.report_sources import strongest_rival
from casefile.domain.event_types import EVENT_TYPES, Fields
from casefile.domain.event_types.case import ActionTaken, CaseOpened
from casefile.domain.event_types.evidence import EvidenceAssessed
from casefile.domain.event_types.stored import StoredObservation
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
    # the case's own span: the postmortem written after it is not part of the incident
    worked = [e for e in src.events if not e.type.startswith("postmortem.")]
    first, last = src.events[0], (worked or src.events)[-1]
    opened = CaseOpened.of(first.payload)
    environment = opened.environment
    concluded = src.status.concluded
    actors = Counter(event.actor for event in src.events)
    order = list(dict.fromkeys(event.actor for event in src.events))
    return Summary(
        case_id=src.case_id,
        title=opened.title,
        symptom=opened.symptom,
        environment=tuple((k, environment[k]) for k in sorted(environment)),
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
        value = row.confidence if row is not None else 0.0
        runner = strongest_rival(src.projection.questions[question.id], chosen)
        other = confidences.get(runner) if runner is not None else None
        against = other.confidence if other is not None else 0.0
        rests_on = supports(src, chosen)
        kinds = {e.id: e.kind for e in src.projection.evidence}
        measured = any(kinds.get(s.evidence) == "measured" for s in rests_on)
        out.append(
            RootCause(
                hypothesis=chosen,
                text=row.text if row is not None else chosen,
                question=question.id,
                confidence=value,
                concluded=is_named,
                rests_on=rests_on,
                runner_up=runner,
                runner_up_confidence=against,
                measured=measured,
                unconfirmed=against * 2.0 >= value or not measured,
            )
        )
    return tuple(out)


def supports(src: Sources, hypothesis: str) -> tuple[Support, ...]:
    """The evidence that raised ``hypothesis`` most (leave-one-out log-odds, bits)."""
    found = [c for c in src.contributions(hypothesis) if c.bits > 0.0]
    found.sort(key=lambda c: (-c.bits, c.seq))
    return tuple(
        Support(c.evidence, Ref(c.seq, c.hash), c.bits, reading_of(_assessed(src, c.seq)))
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
    rows = []
    for event in src.events:
        kind_of = EVENT_TYPES.get(event.type)
        tell = None if kind_of is None else kind_of.narrative  # None: not a row of its own
        line = None if tell is None else tell(event.payload, _Telling(src, event.seq))
        if line is not None:
            kind = line.kind or event.type.split(".", 1)[0]  # the type's family
            text, host, conditions, facts = line.text, line.host, line.conditions, line.facts
        elif event.seq in pivots:
            kind, text = "pivot", event.type
            host = conditions = facts = None
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
                at=event.when,
            )
        )
    return tuple(rows)


def build_closing(src: Sources) -> Closing:
    taken = [(e, ActionTaken.of(e.payload)) for e in src.events if e.type == "action.taken"]
    actions = tuple(Action(Ref(e.seq, e.hash), a.text, a.outcome) for e, a in taken)
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


@dataclass(frozen=True, slots=True)
class _Telling:
    """What an event's narrative line borrows from the report: its ways of quoting and
    reading, and the observation recorded from a probe run (the event right after it)."""

    src: Sources
    seq: int

    def quote(self, text: str) -> str:
        return quote(text)

    def reading(self, payload: Fields) -> str:
        return reading_of(EvidenceAssessed.of(payload))

    def conditions(self, conditions: Fields | None) -> str | None:
        return conditions_text(conditions)

    def facts_read(self) -> str | None:
        stored = self.src.projection.observations.get(self.seq + 1)
        observation = None if stored is None else StoredObservation(stored)
        if observation is None or observation.probe_run_seq != self.seq:
            return None
        return fact_digest(observation.facts)


def _assessed(src: Sources, seq: int) -> EvidenceAssessed:
    """The ``evidence.assessed`` event at ``seq``, its payload as its model."""
    return EvidenceAssessed.of(src.event(seq).payload)
