"""Comparing folds bit for bit: what a session holds against a fresh fold of the same events."""

from __future__ import annotations

from typing import Any

from casefile.domain.beliefs import Projection


def fingerprint(projection: Projection, *, trajectory: bool = True) -> dict[str, Any]:
    """Everything a view reads from a fold, with floats as their exact bits (``float.hex``)."""
    questions = {}
    for qid, question in projection.questions.items():
        questions[qid] = {
            "leader": question.leader(),
            "leaf": question.leading_leaf(),
            "confidences": {h: v.hex() for h, v in sorted(question.confidences.items())},
            "probs": [p.hex() for p in question.probs],
            "evidence": question.evidence_count,
            "support": question.support,
            "nodes": {
                hid: (n.text, n.parent_id, n.prior.hex(), n.retired, n.meaning)
                for hid, n in question.nodes.items()
            },
        }
    out: dict[str, Any] = {
        "case": (projection.case_id, projection.title, projection.symptom),
        "last": (projection.last_seq, projection.last_hash),
        "questions": questions,
        "evidence": {
            eid: (e.seq, e.active, e.superseded_by, e.kind, e.reliability.hex(), e.hash)
            for eid, e in projection.evidence.items()
        },
        "warnings": [w.to_dict() for w in projection.warnings.all()],
        "set_asides": projection.set_asides,
        "concluded": projection.concluded,
    }
    if trajectory:
        out["trajectory"] = [
            (
                step.seq,
                step.type,
                {q: (s.leader, [w.hex() for w in s.probs]) for q, s in step.snapshots.items()},
                sorted(step.changed),
                step.pivots,
                None if step.surprise is None else step.surprise.bits.hex(),
                [w.to_dict() for w in step.raised],
                [w.to_dict() for w in step.cleared],
            )
            for step in projection.trajectory
        ]
        out["events"] = [e.to_dict() for e in projection.events]
    return out
