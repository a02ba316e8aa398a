"""The stable JSON shapes of ``status`` and ``replay``, shared by the CLI and the TUI.

Shapes (documented in the README; scripts rely on them):

- every hypothesis: ``id``, ``text``, ``parent``, ``question``, ``confidence`` (float),
  ``prior``, ``status`` (``open``/``retired``), ``meaning``; each question's catch-all appears
  as a hypothesis with id ``<question>/catch-all``;
- every replay step: ``seq``, ``type``, ``actor``, ``when``, ``summary``, and per question the
  ``leader``, ``leading_leaf``, ``pivot`` (bool) and ``previous_leader``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casefile.domain.beliefs import Projection, Step
from casefile.domain.beliefs.projection import SURPRISE_FLAG_BITS
from casefile.domain.beliefs.question import QuestionState
from casefile.domain.beliefs.views import Decisive, NextStep, ProbeStep, question_entropy
from casefile.domain.beliefs.warnings import Warning
from casefile.domain.events import Event

CATCH_ALL_TEXT = "something not yet named"


def hypothesis_rows(question: QuestionState, confidences: dict[str, float]) -> list[dict[str, Any]]:
    """The question's tree in display order (depth first), catch-all last."""
    rows: list[dict[str, Any]] = []

    def walk(hid: str, depth: int) -> None:
        node = question.nodes[hid]
        rows.append(
            {
                "id": hid,
                "text": node.text,
                "parent": node.parent_id,
                "question": question.id,
                "confidence": confidences.get(hid, 0.0),
                "prior": node.prior,
                "status": "retired" if node.retired else "open",
                "meaning": node.meaning,
                "depth": depth,
            }
        )
        for child in node.children:
            walk(child, depth + 1)

    for top in question.top:
        walk(top, 0)
    rows.append(
        {
            "id": question.catch_all_id,
            "text": CATCH_ALL_TEXT,
            "parent": None,
            "question": question.id,
            "confidence": confidences.get(question.catch_all_id, 0.0),
            "prior": question.catch_all_prior(),
            "status": "open",
            "meaning": "the explanation is something no hypothesis here names",
            "depth": 0,
        }
    )
    return rows


def runner_up(question: QuestionState) -> str | None:
    """The strongest alternative: the open top-level hypothesis (or catch-all) second to the
    leader."""
    confidences = question.confidences
    leader = question.leader()
    others = [h for h in question.structure.tops if h != leader]
    if not others:
        return None
    return max(others, key=lambda h: (confidences.get(h, 0.0), -others.index(h)))


def case_header(projection: Projection) -> dict[str, Any]:
    return {
        "id": projection.case_id,
        "title": projection.title,
        "symptom": projection.symptom,
        "events": len(projection.events),
        "last_seq": projection.last_seq,
    }


def status_view(
    projection: Projection,
    next_steps: Sequence[NextStep],
    decisive: Sequence[Decisive],
    best_probes: Sequence[ProbeStep] = (),
) -> dict[str, Any]:
    questions = []
    hypotheses: list[dict[str, Any]] = []
    for question in projection.questions.values():
        questions.append(
            {
                "id": question.id,
                "text": question.text,
                "leader": question.leader(),
                "leading_leaf": question.leading_leaf(),
                "runner_up": runner_up(question),
                "entropy_bits": question_entropy(question),
                "evidence": question.evidence_count,
                "playbook": question.playbook,
            }
        )
        hypotheses.extend(hypothesis_rows(question, question.confidences))
    return {
        "case": case_header(projection),
        "questions": questions,
        "hypotheses": hypotheses,
        "warnings": [w.to_dict() for w in projection.warnings.all()],
        "next_steps": [
            {
                "probe": s.probe,
                "rule": s.rule_id,
                "rule_version": s.rule_version,
                "question": s.question_id,
                "expected_gain_bits": s.expected_gain_bits,
                "cost": s.cost,
                "load": s.load,
                "rationale": s.rationale,
            }
            for s in next_steps
        ],
        "best_probes": [
            {
                "probe": b.probe,
                "question": b.question_id,
                "expected_gain_bits": b.expected_gain_bits,
                "rules": list(b.rules),
                "cost": b.cost,
                "load": b.load,
            }
            for b in best_probes
        ],
        "decisive_evidence": [
            {
                "evidence": d.evidence_id,
                "seq": d.seq,
                "question": d.question_id,
                "kind": d.kind,
                "bits": d.bits,
                "rationale": d.rationale,
            }
            for d in decisive
        ],
        "concluded": projection.concluded,
    }


def summarise(event: Event, projection: Projection) -> str:
    """One line saying what an event recorded, for timelines and replay."""
    p = event.payload
    kind = event.type
    if kind == "case.opened":
        return f"case opened: {p['title']}" + (f" — {p['symptom']}" if p.get("symptom") else "")
    if kind == "note.added":
        return f"note: {p['text']}"
    if kind == "question.proposed":
        return f"question {p['question_id']}: {p['text']} (catch-all {p.get('catch_all', 0.1):g})"
    if kind == "hypothesis.proposed":
        under = p.get("parent_id") or p["question_id"]
        return f"hypothesis {p['hypothesis_id']} under {under} (prior {p['prior']:g}): {p['text']}"
    if kind == "hypothesis.refined":
        return f"hypothesis {p['hypothesis_id']} refined: {p['text']}"
    if kind == "hypothesis.retired":
        return f"hypothesis {p['hypothesis_id']} retired: {p['reason']}"
    if kind == "hypothesis.reinstated":
        return f"hypothesis {p['hypothesis_id']} reinstated"
    if kind == "probe.ran":
        load = p.get("conditions", {}).get("load", "unknown")
        origin = " (reconstructed)" if p.get("reconstructed") else ""
        status = f"exit {p['exit_status']}" if p.get("exit_status") is not None else p["source"]
        if p.get("error"):
            status = f"error: {p['error']}"
        argv = " ".join(p["argv"])
        return f"probe {p['probe']} on {p['host']} [{load}]{origin}: `{argv}` ({status})"
    if kind == "observation.recorded":
        if not p.get("parsed", True):
            return f"observation from {p['probe']}: did not parse — {'; '.join(p['problems'])}"
        return f"observation from {p['probe']}: {len(p['facts'])} facts" + _fact_digest(p["facts"])
    if kind == "evidence.assessed":
        rule = p.get("rule")
        sup = f", supersedes {p['supersedes']}" if p.get("supersedes") else ""
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
    if kind == "reading.set_aside":
        return f"set aside reading {p['observation_seq']} for rule {p['rule']['id']}: {p['reason']}"
    if kind == "action.taken":
        return f"action: {p['text']}" + (f" → {p['outcome']}" if p.get("outcome") else "")
    if kind == "case.concluded":
        return f"concluded: {p['summary']}"
    return kind


def detail(event: Event) -> str | None:
    """The why behind a step, shown under its summary: a rule's rationale, a probe's note."""
    p = event.payload
    if event.type == "evidence.assessed" and p.get("rule"):
        return str(p["rationale"])
    if event.type == "probe.ran" and p.get("note"):
        return str(p["note"])
    return None


def _fact_digest(facts: list[dict[str, Any]], limit: int = 4) -> str:
    # measurements (facts with units) say more than identity (names, versions, bus ids)
    ordered = [f for f in facts if f.get("unit")] + [f for f in facts if not f.get("unit")]
    shown = []
    for fact in ordered[:limit]:
        unit = f" {fact['unit']}" if fact.get("unit") else ""
        shown.append(f"{fact['name']}[{fact['subject']}]={fact['value']}{unit}")
    more = f", … +{len(facts) - limit}" if len(facts) > limit else ""
    return " (" + ", ".join(shown) + more + ")" if shown else ""


def step_view(
    step: Step, event: Event, projection: Projection, previous: Step | None
) -> dict[str, Any]:
    questions: dict[str, Any] = {}
    changes: dict[str, float] = {}
    for qid, snap in step.snapshots.items():
        pivot = step.pivots.get(qid)
        questions[qid] = {
            "leader": snap.leader,
            "leading_leaf": snap.leading_leaf,
            "pivot": pivot is not None,
            "previous_leader": pivot[0] if pivot else None,
            "confidences": snap.confidences,
        }
        if qid in step.changed:
            before = previous.snapshots.get(qid) if previous else None
            for hid, value in snap.confidences.items():
                old = before.confidences.get(hid, 0.0) if before else 0.0
                if hid not in (before.confidences if before else {}) or value != old:
                    changes[hid] = value - old
    surprise = step.surprise_bits
    return {
        "seq": step.seq,
        "type": step.type,
        "actor": event.actor,
        "when": event.when,
        "summary": summarise(event, projection),
        "detail": detail(event),
        "questions": questions,
        "changes": changes,
        "surprise_bits": surprise,
        "unexpected_bits": step.unexpected_bits,
        "surprising": step.unexpected_bits is not None
        and step.unexpected_bits >= SURPRISE_FLAG_BITS,
        "warnings_raised": [w.to_dict() for w in step.raised],
        "warnings_cleared": [w.to_dict() for w in step.cleared],
    }


def replay_view(projection: Projection, upto: int | None = None) -> dict[str, Any]:
    steps = []
    previous: Step | None = None
    for step, event in zip(projection.trajectory, projection.events, strict=True):
        if upto is not None and step.seq > upto:
            break
        steps.append(step_view(step, event, projection, previous))
        previous = step
    return {"case": case_header(projection), "steps": steps}


def warning_line(warning: Warning) -> str:
    return f"[{warning.code}] {warning.message} (seq {warning.seq})"
