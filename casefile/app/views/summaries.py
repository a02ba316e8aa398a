"""One line per event saying what it recorded, for the log, replay and the detail pane.

One small function per event type, looked up by the type string; an unknown type (a newer
schema read by an older casefile) is summarised by its name rather than refused.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

from casefile.domain.beliefs import Projection
from casefile.domain.catalogue import CURRENT_VERSIONS
from casefile.domain.events import Event
from casefile.domain.upcasters import upcast
from casefile.errors import InvalidEvent

Payload = dict[str, Any]


def _case_opened(p: Payload) -> str:
    return f"case opened: {p['title']}" + (f" — {p['symptom']}" if p.get("symptom") else "")


def _question_proposed(p: Payload) -> str:
    return f"question {p['question_id']}: {p['text']} (catch-all {p.get('catch_all', 0.1):g})"


def _hypothesis_proposed(p: Payload) -> str:
    under = p.get("parent_id") or p["question_id"]
    return f"hypothesis {p['hypothesis_id']} under {under} (prior {p['prior']:g}): {p['text']}"


def _probe_ran(p: Payload) -> str:
    load = p.get("conditions", {}).get("load", "unknown")
    origin = " (reconstructed)" if p.get("reconstructed") else ""
    status = f"exit {p['exit_status']}" if p.get("exit_status") is not None else p["source"]
    if p.get("error"):
        status = f"error: {p['error']}"
    argv = shlex.join(p["argv"])  # as a shell would take it back: copy, paste, rerun
    setup = p.get("conditions", {}).get("setup")
    other = f" [other setup: {setup}]" if setup else ""
    return f"probe {p['probe']} on {p['host']} [{load}]{other}{origin}: `{argv}` ({status})"


def _observation_recorded(p: Payload) -> str:
    if not p.get("parsed", True):
        return f"observation from {p['probe']}: did not parse — {'; '.join(p['problems'])}"
    return f"observation from {p['probe']}: {len(p['facts'])} facts" + fact_digest(p["facts"])


def _evidence_assessed(p: Payload) -> str:
    rule = p.get("rule")
    sup = f", supersedes {p['supersedes']}" if p.get("supersedes") else ""
    intake = p.get("intake")
    if intake:
        source = intake.get("source", "answered")
        said = "" if source == "answered" else f" (from {intake.get('basis') or source})"
        return (
            f"intake {intake['id']}: {intake['answer']!r}{said} → evidence {p['evidence_id']}, "
            f"{p['kind']}, r={p['reliability']:g}{sup}"
        )
    if rule and p.get("experiment_id"):
        statistic = p.get("statistic")
        ratio = f"{statistic:.2f}×" if isinstance(statistic, float | int) else f"stated {statistic}"
        return (
            f"evidence {p['evidence_id']}: experiment {p['experiment_id']} read by rule "
            f"{rule['id']} v{rule['version']} → {p.get('outcome')!r} ({ratio}), {p['kind']}, "
            f"r={p['reliability']:g}{sup}"
        )
    if rule:
        statistic = p.get("statistic")
        shown = f"{statistic:.3g}" if isinstance(statistic, float) else statistic
        return (
            f"evidence {p['evidence_id']}: rule {rule['id']} v{rule['version']} → "
            f"{p.get('outcome')!r} (statistic {shown}), {p['kind']}, "
            f"r={p['reliability']:g}{sup}"
        )
    named = ", ".join(f"{h}={v:g}" for h, v in p["likelihoods"].items())
    return (
        f"evidence {p['evidence_id']} ({p['kind']}, r={p['reliability']:g}{sup}): "
        f"{p['rationale']} [P(E|h): {named}; otherwise {p.get('otherwise', 0.5):g}]"
    )


def experiment_text(p: Payload) -> str:
    """An experiment in one line: its id, the change, the runs (or "reported figures"), the
    metric before and after, and the speedup (the log and the report's timeline show this)."""
    if p.get("stated"):
        seen = f" on {p['probe']}" if p.get("probe") else ""
        return f"{p['experiment_id']}: {p['change']} — stated{seen}: {p['stated']} (no figures)"
    unit = f" {p['unit']}" if p.get("unit") else ""
    runs = (
        f"{p['probe']}, reported figures"
        if p.get("reported")
        else f"{p['probe']} seq {p['baseline_seq']} vs seq {p['variant_seq']}"
    )
    ratio = (
        f" ({p['speedup']:.2f}×)"
        if p.get("speedup") is not None
        else " (which way is better unsaid: not read)"
    )
    return (
        f"{p['experiment_id']}: {p['change']} — {runs}: {p['metric']} "
        f"{p['baseline_value']:g} → {p['variant_value']:g}{unit}{ratio}"
    )


def _experiment_recorded(p: Payload) -> str:
    tests = f" [named a test of {', '.join(p['tests'])}]" if p.get("tests") else ""
    return "experiment " + experiment_text(p) + tests


def _priors_rebalanced(p: Payload) -> str:
    priors = ", ".join(f"{h}={v:.4g}" for h, v in p["priors"].items())
    forced = " (forced, after evidence)" if p.get("forced") else ""
    why = f": {p['reason']}" if p.get("reason") else ""
    return f"priors of {p['question_id']} rebalanced{forced} [{priors}]{why}"


def _action_taken(p: Payload) -> str:
    return f"action: {p['text']}" + (f" → {p['outcome']}" if p.get("outcome") else "")


_SUMMARIES: dict[str, Callable[[Payload], str]] = {
    "case.opened": _case_opened,
    "note.added": lambda p: f"note: {p['text']}",
    "question.proposed": _question_proposed,
    "hypothesis.proposed": _hypothesis_proposed,
    "hypothesis.refined": lambda p: f"hypothesis {p['hypothesis_id']} refined: {p['text']}",
    "hypothesis.retired": lambda p: f"hypothesis {p['hypothesis_id']} retired: {p['reason']}",
    "hypothesis.reinstated": lambda p: f"hypothesis {p['hypothesis_id']} reinstated",
    "priors.rebalanced": _priors_rebalanced,
    "probe.ran": _probe_ran,
    "observation.recorded": _observation_recorded,
    "evidence.assessed": _evidence_assessed,
    "reading.set_aside": lambda p: (
        f"set aside reading {p['observation_seq']} for rule {p['rule']['id']}: {p['reason']}"
    ),
    "action.taken": _action_taken,
    "case.concluded": lambda p: f"concluded: {p['summary']}",
    "experiment.recorded": _experiment_recorded,
}


def summarise(event: Event, projection: Projection | None = None) -> str:
    """One line saying what an event recorded (``projection`` is accepted for the callers of
    the old signature and not needed)."""
    describe = _SUMMARIES.get(event.type)
    if describe is None:
        return event.type
    current = CURRENT_VERSIONS.get(event.type, event.version)
    if event.version != current:  # an older shape, read as today's (a newer one: its name)
        try:
            return describe(upcast(event.type, event.version, current, event.payload))
        except InvalidEvent:
            return f"{event.type} v{event.version}"
    return describe(event.payload)


def detail(event: Event) -> str | None:
    """The why behind a step, shown under its summary: a rule's rationale, a probe's or an
    experiment's note."""
    p = event.payload
    if event.type == "evidence.assessed" and p.get("rule"):
        return str(p["rationale"])
    if event.type in ("probe.ran", "experiment.recorded") and p.get("note"):
        return str(p["note"])
    return None


def fact_digest(facts: list[dict[str, Any]], limit: int = 4) -> str:
    """A few facts in brackets; measurements (facts with units) first, since they say more
    than identity (names, versions, bus ids)."""
    ordered = [f for f in facts if f.get("unit")] + [f for f in facts if not f.get("unit")]
    shown = []
    for fact in ordered[:limit]:
        unit = f" {fact['unit']}" if fact.get("unit") else ""
        shown.append(f"{fact['name']}[{fact['subject']}]={fact['value']}{unit}")
    more = f", … +{len(facts) - limit}" if len(facts) > limit else ""
    return " (" + ", ".join(shown) + more + ")" if shown else ""


def own_text(event: Event) -> tuple[str | None, str | None]:
    """A note's or an action's own words and an action's outcome (not folded by the domain,
    so replay and the report read them here)."""
    if event.type in ("note.added", "action.taken"):
        outcome = event.payload.get("outcome")
        return str(event.payload["text"]), None if outcome is None else str(outcome)
    return None, None
